//! The scenario file format: an ordered list of model turns, one per HTTP request.
//!
//! ```json
//! {"turns": [
//!   {"fault": {"http": {"status": 429, "retry_after": 1}}},
//!   {"thinking": "Let me look.", "text": "Reading it.",
//!    "tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}],
//!    "usage": {"input_tokens": 120, "output_tokens": 30}},
//!   {"text": "Done.", "delay_ms": 50, "chunk_size": 7},
//!   {"when": "You are a subagent", "text": "A subagent's answer."}
//! ]}
//! ```
//!
//! A turn with `when` goes only to a request whose body contains that text (agents asking at
//! the same time), one with `when_last` only to a request whose last message contains it
//! (what an agent was just told); other requests take the unused unconditional turns, in
//! order.
//!
//! Faults are externally tagged: `{"http": {"status": 529, "body": {...}, "retry_after": 2}}`
//! (or `"raw_body": "data: {...}"` sent verbatim, and `"headers": {"name": "value"}`),
//! `{"cut_after": {"events": 3}}`, `{"hang_after": {"events": 3}}`. Event counts include every
//! SSE frame the protocol sends (`ping`, `[DONE]`, ...).
//!
//! `stop_reason` accepts the words of any protocol (`end_turn`/`stop`, `tool_use`/`tool_calls`,
//! `max_tokens`/`length`/`max_output_tokens`) and is translated per protocol; other words are
//! passed through verbatim where the protocol has a stop-reason field.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A scripted conversation: the n-th request to the server gets the n-th turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Turns in the order requests will receive them.
    pub turns: Vec<ScenarioTurn>,
    /// Answer any request carrying `stream_options` with HTTP 400 (without consuming a turn),
    /// like OpenAI-compatible servers that do not know the field.
    #[serde(default)]
    pub reject_stream_options: bool,
    /// The answer to every request that offers no tools or whose last message contains
    /// `summary_marker` (rein's compaction summary request), given without consuming a turn;
    /// such requests take turns like any other when absent.
    #[serde(default)]
    pub summary: Option<ScenarioTurn>,
    /// Keep request bodies for [`crate::MockServer::requests`] (default). Long benchmark
    /// sessions turn this off so the mock's memory does not grow with every request.
    #[serde(default = "yes")]
    pub record_bodies: bool,
    /// Answer any request carrying one of these top-level fields with HTTP 400 naming it
    /// (without consuming a turn), like servers that refuse fields they do not know.
    #[serde(default)]
    pub reject_fields: Vec<String>,
    /// Simulate each provider's prompt cache as documented (see the `cache` module): the
    /// input side of every usage comes from the request instead of the script.
    #[serde(default)]
    pub prompt_cache: bool,
    /// A request whose last message contains this text is a summary request too (rein's
    /// compaction keeps the conversation's tools so the request reads the cache).
    #[serde(default = "summary_marker")]
    pub summary_marker: String,
}

fn yes() -> bool {
    true
}

fn summary_marker() -> String {
    "Your context window is nearly full".to_string()
}

impl Default for Scenario {
    fn default() -> Self {
        Self {
            turns: Vec::new(),
            reject_stream_options: false,
            summary: None,
            record_bodies: true,
            reject_fields: Vec::new(),
            prompt_cache: false,
            summary_marker: summary_marker(),
        }
    }
}

/// What the model "says" for one request, or how the request fails.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioTurn {
    /// Reasoning text, streamed first.
    #[serde(default)]
    pub thinking: Option<String>,
    /// Signature of the thinking block (Anthropic) / encrypted content (OpenAI Responses).
    #[serde(default)]
    pub signature: Option<String>,
    /// Answer text.
    #[serde(default)]
    pub text: Option<String>,
    /// Tool calls, streamed after the text.
    #[serde(default)]
    pub tool_calls: Vec<ScenarioToolCall>,
    /// Reported usage (defaults to 10 input and 5 output tokens).
    #[serde(default)]
    pub usage: Option<ScenarioUsage>,
    /// Stop reason in the protocol's own words; derived from the content when absent.
    #[serde(default)]
    pub stop_reason: Option<String>,
    /// Wait this long before answering at all.
    #[serde(default)]
    pub delay_ms: Option<u64>,
    /// Split the SSE byte stream into chunks of this many bytes (exercises decoders).
    #[serde(default)]
    pub chunk_size: Option<usize>,
    /// A failure instead of (or in the middle of) the normal answer.
    #[serde(default)]
    pub fault: Option<Fault>,
    /// Answer with the whole message as one `200 application/json` document in the protocol's
    /// non-streamed shape, ignoring the request's `stream: true` (as some gateways do).
    #[serde(default)]
    pub whole: bool,
    /// Send the stream gzip-compressed (`Content-Encoding: gzip`), in one piece.
    #[serde(default)]
    pub gzip: bool,
    /// Send this body verbatim as the event stream (a recorded provider response), cut into
    /// `chunk_size` writes when set.
    #[serde(default)]
    pub raw_stream: Option<String>,
    /// Only for a request whose body contains this text (agents asking at the same time): a
    /// request takes the first unused turn whose `when` it matches, else the first unused
    /// turn without one.
    #[serde(default)]
    pub when: Option<String>,
    /// Only for a request whose last message contains this text (with `when`: both must
    /// match): routes an agent's next turn by what it was just told (a tool result, a
    /// teammate's message).
    #[serde(default)]
    pub when_last: Option<String>,
}

impl ScenarioTurn {
    /// Whether the turn waits for a request that matches it (`when`, `when_last`).
    pub fn conditional(&self) -> bool {
        self.when.is_some() || self.when_last.is_some()
    }
}

/// A scripted tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioToolCall {
    /// Call id; generated (`call_<turn>_<n>`, both 1-based) when absent.
    #[serde(default)]
    pub id: Option<String>,
    /// Tool name.
    pub name: String,
    /// Arguments: an object; a string is sent verbatim as the arguments' text (a model's
    /// truncated or malformed JSON).
    pub arguments: Value,
}

impl ScenarioToolCall {
    /// The arguments as the wire carries them.
    pub fn arguments_text(&self) -> String {
        match &self.arguments {
            Value::String(raw) => raw.clone(),
            other => other.to_string(),
        }
    }
}

/// Scripted token usage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioUsage {
    /// Uncached input tokens.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// Input tokens written to cache.
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    /// Input tokens read from cache.
    #[serde(default)]
    pub cache_read_input_tokens: u64,
    /// Output tokens spent on reasoning (reported by the OpenAI protocols only).
    #[serde(default)]
    pub reasoning_tokens: u64,
}

/// How a turn fails.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Fault {
    /// Answer with this HTTP status and JSON body instead of a stream.
    Http {
        /// HTTP status code.
        status: u16,
        /// Response body (JSON); a protocol-appropriate error body when absent.
        #[serde(default)]
        body: Option<Value>,
        /// `retry-after` header value in seconds.
        #[serde(default)]
        retry_after: Option<u64>,
        /// The body sent verbatim instead (an SSE-framed error, plain text): served as
        /// `text/event-stream` when it starts with `data:` or `event:`, else `text/plain`.
        #[serde(default)]
        raw_body: Option<String>,
        /// Extra response headers (`llm_provider-retry-after`, `x-ratelimit-reset-tokens`).
        #[serde(default)]
        headers: std::collections::BTreeMap<String, String>,
    },
    /// Send this many SSE events of the normal answer, then drop the connection.
    CutAfter {
        /// Events sent before the cut.
        events: usize,
    },
    /// Send this many SSE events, then keep the connection open without sending anything.
    HangAfter {
        /// Events sent before going silent.
        events: usize,
    },
    /// Send this many SSE events, then only keep-alive comments (bytes, but no content).
    PingAfter {
        /// Events sent before the pings.
        events: usize,
    },
}

/// Why a scenario could not be loaded.
#[derive(Debug)]
pub struct ScenarioError(pub String);

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ScenarioError {}

impl Scenario {
    /// Parses a scenario from JSON text.
    pub fn from_json(text: &str) -> Result<Self, ScenarioError> {
        serde_json::from_str(text).map_err(|e| ScenarioError(format!("invalid scenario: {e}")))
    }

    /// Reads and parses a scenario file.
    pub fn load(path: &Path) -> Result<Self, ScenarioError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ScenarioError(format!("cannot read {}: {e}", path.display())))?;
        Self::from_json(&text).map_err(|e| ScenarioError(format!("{}: {}", path.display(), e.0)))
    }
}
