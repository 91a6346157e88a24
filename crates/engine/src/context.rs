//! Keeping long sessions inside the model's context window: a token estimate anchored on the
//! provider's reported usage, tool results cleared to files ([`clear_tool_results`]), and summary
//! compaction that replaces old turns with a structured summary while keeping the recent ones
//! verbatim (tool calls never separated from their results).

use rein_protocol::{ContentBlock, Media, Message, Role};

mod clearing;

pub use clearing::{Cleared, Clearing, clear_tool_results, clearable_bytes};

/// Fraction of the window at which the transcript is compacted.
pub const COMPACT_AT: f64 = 0.85;
/// Fraction of the window at which old tool results are cleared (micro-compaction).
pub const CLEAR_AT: f64 = 0.6;
/// Most recent tool results always kept verbatim.
pub const KEEP_RECENT_RESULTS: usize = 5;
/// Tool results shorter than this are never cleared (the placeholder would not be smaller).
pub const CLEAR_MIN_BYTES: usize = 1_000;
/// Calibrated bytes per token for mixed code and prose (JSON framing included).
const BYTES_PER_TOKEN: f64 = 3.5;

/// What the summary request asks for.
pub const SUMMARY_INSTRUCTIONS: &str = "Your context window is nearly full. Write a summary of \
this session that lets you continue the work without the earlier messages. Use these headings: \
Goal; Decisions made; Files touched and why; Current state; Errors still open; Next steps; The \
user's latest instructions (quote them exactly). Be specific: paths, names, commands, numbers. \
Do not call any tool: answer with the summary only, in text.";

/// The context window of a model, in tokens (from [`rein_llm::models`]'s table).
pub fn context_window(model: &str) -> u64 {
    rein_llm::models::limits(model).context_window
}

/// The context window of a model with the user's overrides (see
/// [`rein_llm::models::limits_with`]).
pub fn context_window_with(model: &str, overrides: &[(String, u64)]) -> u64 {
    rein_llm::models::limits_with(model, overrides, &[]).context_window
}

/// Tokens `bytes` of text are estimated at.
pub fn tokens_of(bytes: usize) -> u64 {
    (bytes as f64 / BYTES_PER_TOKEN).ceil() as u64
}

/// Bytes of text estimated at `tokens` tokens (what must go to free them).
pub fn bytes_of(tokens: u64) -> usize {
    (tokens as f64 * BYTES_PER_TOKEN).ceil() as usize
}

/// Bytes of text an image is counted as: about the 1,600 tokens a picture fitted to 1,568
/// pixels costs (Anthropic's `width × height / 750`).
pub const MEDIA_BYTES: usize = 6_000;

/// Estimated tokens of some messages.
pub fn estimate(messages: &[Message]) -> u64 {
    let bytes: usize = messages
        .iter()
        .flat_map(|m| m.content.iter())
        .map(|block| match block {
            ContentBlock::Text { text } => sent_len(text),
            ContentBlock::Thinking { thinking, .. } => sent_len(thinking),
            ContentBlock::RedactedThinking { data } => data.len(),
            ContentBlock::ToolUse { name, input, .. } => name.len() + input.to_string().len(),
            ContentBlock::ToolResult { content, media, .. } => {
                sent_len(content)
                    + media
                        .iter()
                        .map(|item| match item {
                            Media::Image { .. } => MEDIA_BYTES,
                            Media::Pdf { text, .. } => MEDIA_BYTES.max(sent_len(text)),
                        })
                        .sum::<usize>()
            }
            ContentBlock::Image { .. } => MEDIA_BYTES,
            ContentBlock::Provider { block, .. } => block.to_string().len(),
        } + 16)
        .sum();
    tokens_of(bytes)
}

/// The length of `text` as a JSON string carries it: newlines, tabs, quotes and backslashes
/// take two bytes there (a 3,000-line listing is a fifth longer on the wire than on disk).
/// Counted with `memchr`'s vectorised search: every estimate reads the whole transcript.
fn sent_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    let escaped = memchr::memchr3_iter(b'\n', b'"', b'\\', bytes).count()
        + memchr::memchr2_iter(b'\t', b'\r', bytes).count();
    text.len() + escaped
}

/// The provider's last reported prompt size, anchored to the transcript length it covered.
#[derive(Debug, Clone, Copy, Default)]
pub struct Anchor {
    /// Messages the report covered (the reply included).
    pub messages: usize,
    /// Tokens: the request's input (cache reads and writes included) plus the reply.
    pub tokens: u64,
}

/// Tokens the next request will take: `fixed` (the system prompt and tools) and the
/// transcript, by the last report plus an estimate of what came since, or by the estimate of
/// everything when that is larger (a compatible server that reports no usage must not make the
/// transcript look empty).
pub fn estimate_next(transcript: &[Message], fixed: u64, anchor: Option<Anchor>) -> u64 {
    let whole = estimate(transcript) + fixed;
    match anchor.filter(|a| a.messages <= transcript.len()) {
        Some(anchor) => whole.max(
            anchor
                .tokens
                .saturating_add(estimate(&transcript[anchor.messages..])),
        ),
        None => whole,
    }
}

/// How many trailing messages to keep verbatim within `budget` tokens. The kept part starts at
/// a user prompt or at an assistant message, never between a tool call and its result; it
/// always includes the last assistant message and what follows it (the latest exchange).
pub fn messages_to_keep(transcript: &[Message], budget: u64) -> usize {
    let cuts: Vec<usize> = (1..transcript.len())
        .filter(|&i| {
            let m = &transcript[i];
            m.role == Role::Assistant || is_prompt(m)
        })
        .collect();
    let Some(&last) = cuts.last() else {
        return 0;
    };
    let mut keep_from = last;
    for &cut in cuts.iter().rev().skip(1) {
        if estimate(&transcript[cut..]) > budget {
            break;
        }
        keep_from = cut;
    }
    transcript.len() - keep_from
}

/// A user message that carries no tool results (it opens a turn rather than closing one).
fn is_prompt(message: &Message) -> bool {
    !message
        .content
        .iter()
        .any(|b| matches!(b, ContentBlock::ToolResult { .. }))
}

/// The first line of the message a compaction's summary becomes.
pub(crate) const SUMMARY_HEADER: &str =
    "[Summary of the earlier part of this session, written when the context window filled up]";

/// The transcript after a compaction: the summary as the first user message (with the latest
/// user prompt quoted when it was summarised away), then the last `kept` messages; a kept part
/// that starts with a user message is merged into the first one. Used by the agent and by
/// session loading, so both rebuild the same transcript.
pub fn compacted(mut transcript: Vec<Message>, summary: &str, kept: usize) -> Vec<Message> {
    let kept = kept.min(transcript.len());
    let tail = transcript.split_off(transcript.len() - kept);
    let mut text = format!("{SUMMARY_HEADER}\n{summary}");
    let tail_has_prompt = tail.iter().any(|m| m.role == Role::User && is_prompt(m));
    if !tail_has_prompt
        && let Some(prompt) = transcript
            .iter()
            .rev()
            .find(|m| m.role == Role::User && is_prompt(m))
    {
        text.push_str(&format!(
            "\n\n[The user's request, verbatim]\n{}",
            prompt.text()
        ));
    }
    let mut first = Message {
        role: Role::User,
        content: vec![ContentBlock::Text { text }],
    };
    let mut rest = tail.into_iter().peekable();
    if let Some(next) = rest.peek()
        && next.role == Role::User
        && let Some(prompt) = rest.next()
    {
        first.content.extend(prompt.content);
    }
    std::iter::once(first).chain(rest).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn text_is_measured_as_a_json_string_carries_it() {
        let text = "a\nb\t\"c\"\\\r";
        assert_eq!(
            sent_len(text),
            serde_json::to_string(text).unwrap_or_default().len() - 2
        );
        assert_eq!(sent_len("plain"), 5);
    }

    fn tool_turn(n: usize) -> Vec<Message> {
        vec![
            Message {
                role: Role::Assistant,
                content: vec![ContentBlock::ToolUse {
                    id: format!("c{n}"),
                    name: "bash".into(),
                    input: serde_json::json!({"command": "ls"}),
                }],
            },
            Message {
                role: Role::User,
                content: vec![ContentBlock::ToolResult {
                    tool_use_id: format!("c{n}"),
                    content: "x".repeat(700),
                    is_error: false,
                    media: Vec::new(),
                }],
            },
        ]
    }

    fn session() -> Vec<Message> {
        let mut t = vec![Message::user_text("first task")];
        t.extend(tool_turn(1));
        t.push(Message::assistant_text("done 1"));
        t.push(Message::user_text("second task"));
        t.extend(tool_turn(2));
        t.push(Message::assistant_text("done 2"));
        t.push(Message::user_text("third task"));
        t
    }

    #[test]
    fn compaction_keeps_whole_turns_and_valid_alternation() {
        let t = session();
        let keep = messages_to_keep(&t, 400);
        assert_eq!(
            keep, 6,
            "from the first answer on fits; the first tool turn does not"
        );
        let out = compacted(t, "SUMMARY", keep);
        assert_eq!(out.len(), 7);
        assert_eq!(out[0].role, Role::User);
        assert!(out[0].text().contains("SUMMARY"));
        assert_eq!(out[1].text(), "done 1");
        assert!(
            !out[0].text().contains("first task"),
            "a kept prompt is not quoted twice"
        );
        for pair in out.windows(2) {
            assert_ne!(pair[0].role, pair[1].role);
        }
    }

    #[test]
    fn a_tight_budget_keeps_only_the_latest_exchange() {
        let t = session();
        let keep = messages_to_keep(&t, 10);
        assert_eq!(keep, 1);
        let out = compacted(t, "S", keep);
        assert_eq!(out.len(), 1);
        assert!(out[0].text().contains("third task"));
    }

    #[test]
    fn one_long_task_is_cut_between_tool_turns_and_the_prompt_is_quoted() {
        let mut t = vec![Message::user_text("the one big task")];
        for n in 0..6 {
            t.extend(tool_turn(n));
        }
        let keep = messages_to_keep(&t, 500);
        assert_eq!(keep, 4, "the last two tool turns fit");
        let out = compacted(t, "S", keep);
        assert_eq!(out.len(), 5);
        assert!(out[0].text().contains("the one big task"));
        assert_eq!(out[1].role, Role::Assistant);
        for pair in out.windows(2) {
            assert_ne!(pair[0].role, pair[1].role);
        }
    }

    #[test]
    fn estimates_follow_the_reported_anchor() {
        let t = session();
        let anchor = Anchor {
            messages: 4,
            tokens: 10_000,
        };
        assert_eq!(
            estimate_next(&t, 0, Some(anchor)),
            10_000 + estimate(&t[4..])
        );
        assert_eq!(estimate_next(&t, 1000, None), estimate(&t) + 1000);
        assert_eq!(context_window("claude-sonnet-4-5"), 200_000);
        assert_eq!(context_window("openrouter/anthropic/claude-x"), 200_000);
        assert_eq!(context_window("mystery"), 128_000);
    }

    #[test]
    fn configured_windows_beat_the_table_and_the_longest_prefix_wins() {
        let overrides = vec![
            ("claude".to_string(), 1_000_000),
            ("claude-haiku".to_string(), 50_000),
            ("My-Local".to_string(), 32_768),
        ];
        assert_eq!(
            context_window_with("claude-sonnet-4-5", &overrides),
            1_000_000
        );
        assert_eq!(context_window_with("claude-haiku-4-5", &overrides), 50_000);
        assert_eq!(context_window_with("my-local-coder:7b", &overrides), 32_768);
        assert_eq!(
            context_window_with("ollama/MY-LOCAL-coder", &overrides),
            32_768
        );
        assert_eq!(context_window_with("gpt-4o", &overrides), 128_000);
        assert_eq!(context_window_with("claude-sonnet-4-5", &[]), 200_000);
    }
}
