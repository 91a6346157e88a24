//! Keeping the transcript within the model's window: the next request's estimated size,
//! old tool results cleared once it passes [`context::CLEAR_AT`] of the window (saved to
//! files the model can read again), and whether a summary compaction is due
//! ([`context::COMPACT_AT`]).

use rein_protocol::Event;

use super::Agent;
use crate::EventSender;
use crate::context;
use crate::emitter::Emitter;

impl Agent {
    /// The estimated size of the next request, tool specs and system prompt included. For
    /// OpenAI models, once the cheap estimate passes half the window, the part since the last
    /// reported usage is counted with the model's own tokenizer.
    pub(super) fn next_request_tokens(&self) -> u64 {
        let fixed = self.system.as_str().len() + self.offered_specs_bytes();
        let cheap =
            context::estimate_next(&self.transcript.messages, fixed, self.transcript.anchor);
        let tokenizer = context::Tokenizer::for_model(&self.config.model);
        match (tokenizer, self.transcript.anchor) {
            (Some(tokenizer), Some(anchor))
                if cheap * 2 > self.window()
                    && anchor.tokens > 0
                    && anchor.messages <= self.transcript.messages.len() =>
            {
                anchor
                    .tokens
                    .saturating_add(tokenizer.count(&self.transcript.messages[anchor.messages..]))
            }
            _ => cheap,
        }
    }

    pub(super) fn over_threshold(&self) -> bool {
        self.transcript.messages.len() > 2
            && self.next_request_tokens() as f64 > context::COMPACT_AT * self.window() as f64
    }

    /// Micro-compaction once the estimate crosses [`context::CLEAR_AT`] of the window.
    pub(super) fn clear_old_results(&mut self, events: &EventSender) {
        let before = self.next_request_tokens();
        if (before as f64) < context::CLEAR_AT * self.window() as f64 {
            return;
        }
        let budget = self.tool_ctx.budget.clone();
        // Worth clearing once it frees a tenth of the window.
        let min_total = (self.window() as f64 / 10.0 * 3.5) as usize;
        let cleared = context::clear_old_tool_results(
            &mut self.transcript.messages,
            context::KEEP_RECENT_RESULTS,
            context::CLEAR_MIN_BYTES,
            min_total,
            |tool, content| {
                // Read-only lookups are cheap to repeat; only other outputs are saved.
                if matches!(tool, "read_file" | "glob" | "grep") {
                    return None;
                }
                let path = budget.new_save_path(tool)?.ok()?;
                rein_tools::private::write_private_new(&path, content.as_bytes()).ok()?;
                Some(path.display().to_string())
            },
        );
        if cleared > 0 {
            // The reported size counted the cleared outputs: estimate afresh.
            self.transcript.anchor = None;
            events.emit(Event::Compaction {
                trigger: "micro".to_string(),
                tokens_before: before,
                tokens_after: self.next_request_tokens(),
                kept_messages: self.transcript.messages.len(),
            });
        }
    }
}
