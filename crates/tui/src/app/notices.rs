//! The engine's notices as info lines: a retry, a fallback model, a compaction, what a hook
//! said; and the usage the status line counts.

use std::time::{Duration, Instant};

use rein_protocol::Usage;

use super::App;
use crate::tool_view;

impl App {
    /// The model failed and the fallback model answers from now on.
    pub(super) fn fell_back(&mut self, from: &str, to: String, reason: &str) {
        self.info(format!(
            "{from} failed ({}); asking the fallback model {to} from now on",
            tool_view::clip(reason, 200)
        ));
        self.status.model = to;
    }

    /// A request failed and is sent again after `delay_ms`: said once, and counted down on
    /// the status line.
    pub(super) fn retrying(&mut self, attempt: u32, delay_ms: u64, reason: &str, now: Instant) {
        let reason = tool_view::clip(reason, 200);
        self.info(rein_protocol::retry_notice(attempt, delay_ms, &reason));
        if let Some(busy) = self.busy.as_mut() {
            busy.retry_at = Some(now + Duration::from_millis(delay_ms));
        }
    }

    /// The conversation was compacted (or old tool outputs cleared, `micro`).
    pub(super) fn compacted(
        &mut self,
        trigger: &str,
        tokens_before: u64,
        tokens_after: u64,
        kept_messages: usize,
    ) {
        let what = if trigger == "micro" {
            "cleared old tool outputs".to_string()
        } else {
            format!("compacted the conversation ({trigger})")
        };
        self.info(format!(
            "✻ {what}: ~{} → ~{} tokens, {kept_messages} recent messages kept",
            thousands(tokens_before),
            thousands(tokens_after)
        ));
        self.status.context_tokens = tokens_after;
    }

    /// A hook's message, its first line; `verb` says whether it `blocked` or `said` it.
    pub(super) fn hook_said(&mut self, event: &str, verb: &str, message: &str) {
        self.info(format!(
            "{event} hook {verb}: {}",
            tool_view::clip(message.lines().next().unwrap_or(""), 200)
        ));
    }

    /// One request's usage, added to the session's.
    pub(super) fn add_usage(&mut self, usage: &Usage, cost_usd: Option<f64>) {
        self.status.usage.add(usage);
        self.status.cost_usd = self.status.cost_usd.zip(cost_usd).map(|(a, b)| a + b);
        self.status.context_tokens = usage.total_input().saturating_add(usage.output_tokens);
    }
}

/// `12345` → `12.3k`.
pub(crate) fn thousands(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.1}M", n as f64 / 1e6)
    } else if n >= 1000 {
        format!("{:.1}k", n as f64 / 1e3)
    } else {
        n.to_string()
    }
}
