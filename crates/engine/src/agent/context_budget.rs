//! Keeping the next request within the model's window, cheapest first and never losing
//! ground: old tool results cleared once the estimate passes [`context::CLEAR_AT`] of the
//! window (saved to files the model can read again); past [`context::COMPACT_AT`], the
//! results before the latest cleared when that is enough, else one summary compaction (when
//! there is something old enough to summarise, and only if it shrinks the transcript), then
//! the latest results cleared too; a run whose fixed part and prompt still overflow the
//! window ends with [`WindowTooSmall`].

use rein_protocol::Event;
use rein_tools::OutputBudget;
use tokio_util::sync::CancellationToken;

use super::Agent;
use super::compaction::CompactionError;
use super::recovery::Recovery;
use crate::EventSender;
use crate::context::{self, Clearing};
use crate::emitter::Emitter;
use crate::lifecycle::CompactTrigger;

/// The next request overflows the window with everything cleared or summarised that could be.
#[derive(Debug, thiserror::Error)]
#[error(
    "the context window ({window} tokens) is too small for the next request: the system prompt \
     and tool definitions alone take ~{fixed} tokens, and the conversation ~{conversation} more \
     with everything compacted and cleared that could be; use a model with a larger window, or \
     set --context-window (context_window) to the model's real window if it is larger"
)]
pub(super) struct WindowTooSmall {
    window: u64,
    fixed: u64,
    conversation: u64,
}

/// What fills the context window, estimated as the next request would be sent (`/context`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ContextReport {
    /// The model's context window.
    pub window: u64,
    /// The system prompt: rein's instructions, the environment, memory files, skills.
    pub system: u64,
    /// The offered tools' definitions.
    pub tools: u64,
    /// The conversation (the provider's last report plus what came since).
    pub conversation: u64,
}

impl ContextReport {
    /// What is left of the window.
    pub fn free(&self) -> u64 {
        self.window
            .saturating_sub(self.system + self.tools + self.conversation)
    }
}

impl Agent {
    /// What fills the window now (see [`ContextReport`]).
    pub fn context_report(&self) -> ContextReport {
        let system = context::tokens_of(self.system.as_str().len());
        let tools = context::tokens_of(self.offered_specs_bytes());
        ContextReport {
            window: self.window(),
            system,
            tools,
            conversation: self.next_request_tokens().saturating_sub(system + tools),
        }
    }

    /// Estimated tokens of what every request sends besides the conversation: the system
    /// prompt and the offered tools' definitions, serialised as they are sent.
    pub(super) fn fixed_tokens(&self) -> u64 {
        context::tokens_of(self.system.as_str().len() + self.offered_specs_bytes())
    }

    /// The estimated size of the next request, tool specs and system prompt included: the
    /// provider's last report plus an estimate of what came since. (An exact tokenizer for the
    /// part since the report was 3.6 MB of tables for a few hundred tokens of precision.)
    pub(super) fn next_request_tokens(&self) -> u64 {
        context::estimate_next(
            &self.transcript.messages,
            self.fixed_tokens(),
            self.transcript.anchor,
        )
    }

    /// The window's tokens at `fraction` of it.
    fn window_at(&self, fraction: f64) -> u64 {
        (fraction * self.window() as f64) as u64
    }

    /// Before a request: the transcript brought under [`context::COMPACT_AT`] of the window,
    /// cheapest first, with at most one summary request since the model last answered.
    pub(super) async fn make_room(
        &mut self,
        recovery: &mut Recovery,
        events: &EventSender,
        cancel: &CancellationToken,
    ) -> Result<(), WindowTooSmall> {
        // The common case costs one estimate.
        if self.next_request_tokens() < self.window_at(context::CLEAR_AT) {
            return Ok(());
        }
        self.clear_old_results(events);
        let limit = self.window_at(context::COMPACT_AT);
        if self.next_request_tokens() > limit {
            self.clear_all_but_latest(events);
        }
        if self.next_request_tokens() > limit && !recovery.summarised {
            match self
                .compact(CompactTrigger::Auto, None, events, cancel)
                .await
            {
                Ok(()) => recovery.summarised = true,
                // Nothing old enough to summarise: no request made.
                Err(CompactionError::TooShort { .. }) => {}
                Err(error) => {
                    recovery.summarised = true;
                    events.error(format!("compaction failed, continuing without it: {error}"));
                }
            }
        }
        if self.next_request_tokens() > limit {
            self.clear_results(self.clearing_down_to(0, context::CLEAR_AT), events);
        }
        self.fits()
    }

    /// Whether the next request fits in the window.
    pub(super) fn fits(&self) -> Result<(), WindowTooSmall> {
        let tokens = self.next_request_tokens();
        if tokens <= self.window() {
            return Ok(());
        }
        let fixed = self.fixed_tokens();
        Err(WindowTooSmall {
            window: self.window(),
            fixed,
            conversation: tokens.saturating_sub(fixed),
        })
    }

    /// Micro-compaction (the estimate past [`context::CLEAR_AT`] of the window): results
    /// older than the latest [`context::KEEP_RECENT_RESULTS`], in batches that free a tenth
    /// of the window.
    fn clear_old_results(&mut self, events: &EventSender) {
        self.clear_results(
            Clearing {
                keep_recent: context::KEEP_RECENT_RESULTS,
                min_bytes: context::CLEAR_MIN_BYTES,
                min_total_bytes: context::bytes_of(self.window() / 10),
                enough_bytes: usize::MAX,
            },
            events,
        );
    }

    /// Past [`context::COMPACT_AT`]: the results before the latest cleared, when that alone
    /// brings the estimate under it (a summary would lose more).
    fn clear_all_but_latest(&mut self, events: &EventSender) {
        let clearing = self.clearing_down_to(1, context::CLEAR_AT);
        let clearable = context::tokens_of(context::clearable_bytes(
            &self.transcript.messages,
            clearing,
        ));
        let over = self
            .next_request_tokens()
            .saturating_sub(self.window_at(context::COMPACT_AT));
        if clearable > over {
            self.clear_results(clearing, events);
        }
    }

    /// Clears results but the latest `keep_recent`, oldest first, until the estimate is
    /// under `fraction` of the window.
    fn clearing_down_to(&self, keep_recent: usize, fraction: f64) -> Clearing {
        let over = self
            .next_request_tokens()
            .saturating_sub(self.window_at(fraction));
        Clearing {
            keep_recent,
            min_bytes: context::CLEAR_MIN_BYTES,
            min_total_bytes: 0,
            enough_bytes: context::bytes_of(over),
        }
    }

    /// One clearing pass, said as a `micro` compaction when it cleared something; how many
    /// results it cleared.
    pub(super) fn clear_results(&mut self, clearing: Clearing, events: &EventSender) -> usize {
        let before = self.next_request_tokens();
        let budget = self.tool_ctx.budget.clone();
        let cleared = context::clear_tool_results(
            &mut self.transcript.messages,
            clearing,
            |tool, content| save_output(&budget, tool, content),
        );
        if cleared.results > 0 {
            // The reported size counted the cleared outputs: estimate afresh.
            self.transcript.anchor = None;
            events.emit(Event::Compaction {
                trigger: "micro".to_string(),
                tokens_before: before,
                tokens_after: self.next_request_tokens(),
                kept_messages: self.transcript.messages.len(),
                source: None,
                duration_ms: None,
            });
        }
        cleared.results
    }
}

/// Saves a tool's output before it is cleared from the transcript; its path. Read-only
/// lookups are cheap to repeat and are not saved.
fn save_output(budget: &OutputBudget, tool: &str, content: &str) -> Option<String> {
    if matches!(tool, "read_file" | "glob" | "grep") {
        return None;
    }
    let path = budget.new_save_path(tool)?.ok()?;
    rein_tools::private::write_private_new(&path, content.as_bytes()).ok()?;
    Some(path.display().to_string())
}
