//! Prompt caching as each provider documents it, so tests can measure what rein's requests
//! would read from a real cache. Tokens are counted as bytes / 4 (rounded up) of a canonical
//! rendering: an approximation, but the same one on every request.
//!
//! - **Anthropic** (explicit breakpoints): the prompt is the blocks tools → system → messages.
//!   A block carrying `cache_control` is a breakpoint: it writes the prefix ending with it (when
//!   that prefix reaches the 1,024-token minimum) for its TTL (5 minutes, or `"ttl": "1h"`),
//!   and looks for a live entry at its own block boundary or up to 20 blocks before it. The
//!   longest prefix found is `cache_read_input_tokens`; from there to the last breakpoint is
//!   `cache_creation_input_tokens`; the rest is `input_tokens`. `cache_control` itself is not
//!   part of the prefix, so breakpoints may move.
//! - **OpenAI** (Responses and Chat, automatic): the prompt is tools → instructions → input
//!   (Responses) or tools → messages (Chat), keyed by model and `prompt_cache_key`. The cached
//!   part is the longest prefix seen before, in 128-token steps, if it is at least 1,024
//!   tokens; entries live 10 minutes after their last use. Writes are free and not reported.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::wire::Wire;

/// The smallest prefix either provider caches, in tokens.
const MIN_CACHED_TOKENS: u64 = 1_024;
/// OpenAI's cache granularity, in tokens.
const OPENAI_STEP_TOKENS: u64 = 128;
/// How far before a breakpoint Anthropic looks for an earlier entry, in blocks.
const LOOKBACK_BLOCKS: usize = 20;
/// How long an OpenAI entry lives after its last use.
const OPENAI_TTL: Duration = Duration::from_secs(600);

/// The input side of one request's usage, split as the provider reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct CachedInput {
    /// Tokens neither read from nor written to the cache.
    pub input: u64,
    /// Tokens written to the cache (Anthropic only).
    pub creation: u64,
    /// Tokens read from the cache.
    pub read: u64,
}

/// The mock's cache: prefix hashes and when they expire.
#[derive(Debug, Default)]
pub(crate) struct PromptCacheSim {
    entries: Mutex<HashMap<u64, (Instant, Duration)>>,
}

/// Tokens of `bytes` bytes of prompt.
fn tokens(bytes: usize) -> u64 {
    (bytes as u64).div_ceil(4)
}

impl PromptCacheSim {
    /// Looks `body` up, records what it writes, and says how its input splits.
    pub(crate) fn admit(&self, wire: Wire, body: &Value, now: Instant) -> CachedInput {
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match wire {
            Wire::Anthropic => anthropic(&mut entries, body, now),
            Wire::Responses | Wire::Chat => openai(&mut entries, wire, body, now),
        }
    }
}

type Entries = HashMap<u64, (Instant, Duration)>;

fn live(entries: &Entries, hash: u64, now: Instant) -> bool {
    entries.get(&hash).is_some_and(|(expiry, _)| *expiry > now)
}

/// Writes (or refreshes) an entry; an entry keeps the longer of its TTLs.
fn write(entries: &mut Entries, hash: u64, ttl: Duration, now: Instant) {
    let entry = entries.entry(hash).or_insert((now, ttl));
    entry.1 = entry.1.max(ttl);
    entry.0 = entry.0.max(now + entry.1);
}

fn anthropic(entries: &mut Entries, body: &Value, now: Instant) -> CachedInput {
    let blocks = anthropic_blocks(body);
    let mut hasher = DefaultHasher::new();
    ("anthropic", body["model"].as_str()).hash(&mut hasher);
    let mut hashes = Vec::with_capacity(blocks.len());
    let mut ends = Vec::with_capacity(blocks.len());
    let mut total = 0;
    for (text, _) in &blocks {
        hasher.write(text.as_bytes());
        hasher.write_u8(0xff);
        hashes.push(hasher.finish());
        total += tokens(text.len());
        ends.push(total);
    }
    let breakpoints: Vec<(usize, Duration)> = blocks
        .iter()
        .enumerate()
        .filter_map(|(i, (_, ttl))| ttl.map(|ttl| (i, ttl)))
        .collect();
    let mut hit: Option<usize> = None;
    for &(at, _) in &breakpoints {
        let found = (at.saturating_sub(LOOKBACK_BLOCKS)..=at)
            .rev()
            .find(|&i| live(entries, hashes[i], now));
        hit = hit.max(found);
    }
    let read = hit.map_or(0, |i| ends[i]);
    if let Some(i) = hit
        && let Some(&(_, ttl)) = entries.get(&hashes[i])
    {
        write(entries, hashes[i], ttl, now);
    }
    let mut written = read;
    for &(at, ttl) in &breakpoints {
        if ends[at] >= MIN_CACHED_TOKENS {
            write(entries, hashes[at], ttl, now);
            written = written.max(ends[at]);
        }
    }
    CachedInput {
        input: total - written,
        creation: written - read,
        read,
    }
}

/// The prompt's blocks in cache order with each breakpoint's TTL, `cache_control` removed.
fn anthropic_blocks(body: &Value) -> Vec<(String, Option<Duration>)> {
    let mut out = Vec::new();
    let mut push = |block: &Value, context: Value| {
        let ttl = block.get("cache_control").map(|marker| {
            if marker["ttl"] == "1h" {
                Duration::from_secs(3600)
            } else {
                Duration::from_secs(300)
            }
        });
        let mut block = block.clone();
        if let Some(object) = block.as_object_mut() {
            object.remove("cache_control");
        }
        let mut keyed = context;
        keyed["block"] = block;
        out.push((keyed.to_string(), ttl));
    };
    for tool in body["tools"].as_array().into_iter().flatten() {
        push(tool, json!({"part": "tool"}));
    }
    match &body["system"] {
        Value::String(text) => push(
            &json!({"type": "text", "text": text}),
            json!({"part": "system"}),
        ),
        Value::Array(blocks) => blocks
            .iter()
            .for_each(|b| push(b, json!({"part": "system"}))),
        _ => {}
    }
    for message in body["messages"].as_array().into_iter().flatten() {
        let role = &message["role"];
        let content = match &message["content"] {
            Value::String(text) => vec![json!({"type": "text", "text": text})],
            Value::Array(blocks) => blocks.clone(),
            _ => Vec::new(),
        };
        for (i, block) in content.iter().enumerate() {
            push(block, json!({"role": role, "opens_message": i == 0}));
        }
    }
    out
}

fn openai(entries: &mut Entries, wire: Wire, body: &Value, now: Instant) -> CachedInput {
    let prompt = openai_prompt(wire, body);
    let total = tokens(prompt.len());
    let step = (OPENAI_STEP_TOKENS * 4) as usize;
    let mut hasher = DefaultHasher::new();
    (
        format!("{wire:?}"),
        body["model"].as_str(),
        body["prompt_cache_key"].as_str(),
    )
        .hash(&mut hasher);
    let mut hashes = Vec::new();
    for chunk in prompt.as_bytes().chunks_exact(step) {
        hasher.write(chunk);
        hashes.push(hasher.finish());
    }
    let min_steps = (MIN_CACHED_TOKENS / OPENAI_STEP_TOKENS) as usize;
    let hit = (min_steps..=hashes.len())
        .rev()
        .find(|&n| live(entries, hashes[n - 1], now));
    let read = hit.map_or(0, |n| n as u64 * OPENAI_STEP_TOKENS).min(total);
    for hash in hashes.iter().skip(min_steps.saturating_sub(1)) {
        write(entries, *hash, OPENAI_TTL, now);
    }
    CachedInput {
        input: total - read,
        creation: 0,
        read,
    }
}

/// The prompt in cache order: tools, then instructions and input items (Responses) or messages
/// (Chat), each as canonical JSON.
fn openai_prompt(wire: Wire, body: &Value) -> String {
    let mut parts: Vec<String> = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(Value::to_string)
        .collect();
    let items = match wire {
        Wire::Responses => {
            if let Some(instructions) = body["instructions"].as_str() {
                parts.push(json!({"instructions": instructions}).to_string());
            }
            &body["input"]
        }
        Wire::Chat | Wire::Anthropic => &body["messages"],
    };
    match items {
        Value::String(text) => parts.push(json!({"input": text}).to_string()),
        Value::Array(items) => parts.extend(items.iter().map(Value::to_string)),
        _ => {}
    }
    parts.concat()
}

#[cfg(test)]
#[path = "cache_tests.rs"]
mod tests;
