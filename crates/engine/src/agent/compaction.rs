//! The agent's side of context management: estimating the next request, clearing old tool
//! results, summary compaction, and the memory files of touched folders.

use std::sync::Arc;

use rein_protocol::{ContentBlock, Event, Message, Role, SessionRecord};
use rein_tools::CallFacts;
use tokio_util::sync::CancellationToken;

use super::Agent;
use crate::EventSender;
use crate::context;
use crate::controller::CompactTrigger;
use crate::emitter::Emitter;
use crate::hooks::HookEvent;
use crate::turn::{self, TurnOutcome};

/// Why a compaction left the transcript as it was.
#[derive(Debug, thiserror::Error)]
pub enum CompactionError {
    /// A manual compaction of a history smaller than its summary would be.
    #[error(
        "nothing to compact: the conversation before the latest prompt is about {tokens} \
         tokens, less than a summary of it would be"
    )]
    TooShort {
        /// The estimated tokens of the history before the kept turns.
        tokens: u64,
    },
    /// The run was cancelled while the summary was written.
    #[error("cancelled")]
    Cancelled,
    /// The summary request failed.
    #[error("{0}")]
    Model(#[from] rein_llm::LlmError),
    /// The model answered the summary request with no text.
    #[error("the model returned an empty summary")]
    EmptySummary,
}

/// History shorter than this (estimated tokens) is not compacted: its summary would not be
/// smaller.
const MIN_COMPACTED_TOKENS: u64 = 1_000;

impl Agent {
    pub(super) fn window(&self) -> u64 {
        self.config
            .context_window
            .unwrap_or_else(|| self.model_limits().context_window)
    }

    /// The output limit of each request: configured, else the model's.
    pub(super) fn max_output(&self) -> u32 {
        self.config.max_tokens.unwrap_or_else(|| {
            crate::models::first_output(&self.config.model, &self.config.max_output_tokens)
        })
    }

    /// The most output a request may ask for after a reply was cut: the model's limit, or
    /// `max_tokens` when the user set it.
    pub(super) fn largest_output(&self) -> u32 {
        self.config
            .max_tokens
            .unwrap_or_else(|| self.model_limits().max_output)
    }

    fn model_limits(&self) -> crate::models::ModelLimits {
        crate::models::limits_with(
            &self.config.model,
            &self.config.context_windows,
            &self.config.max_output_tokens,
        )
    }

    /// The estimated size of the next request, tool specs and system prompt included. For
    /// OpenAI models, once the cheap estimate passes half the window, the part since the last
    /// reported usage is counted with the model's own tokenizer.
    pub(super) fn next_request_tokens(&self) -> u64 {
        let fixed = self.system.as_str().len()
            + serde_json::to_string(&self.offered_specs()).map_or(0, |s| s.len());
        let cheap = context::estimate_next(&self.transcript, fixed, self.anchor);
        let tokenizer = context::Tokenizer::for_model(&self.config.model);
        match (tokenizer, self.anchor) {
            (Some(tokenizer), Some(anchor))
                if cheap * 2 > self.window()
                    && anchor.tokens > 0
                    && anchor.messages <= self.transcript.len() =>
            {
                anchor
                    .tokens
                    .saturating_add(tokenizer.count(&self.transcript[anchor.messages..]))
            }
            _ => cheap,
        }
    }

    /// Adds the memory files of folders the calls touched for the first time to their
    /// results; `touched` holds each call's facts (`None`: it did not run), in call order.
    pub(super) fn add_folder_memory(
        &mut self,
        touched: &[Option<Arc<CallFacts>>],
        results: &mut [ContentBlock],
        events: &EventSender,
    ) {
        let guard = self.tool_ctx.guard.clone();
        let mut warnings = Vec::new();
        for (facts, block) in touched.iter().zip(results.iter_mut()) {
            // Only a call that succeeded has shown the model that folder.
            let (
                Some(facts),
                ContentBlock::ToolResult {
                    content,
                    is_error: false,
                    ..
                },
            ) = (facts, block)
            else {
                continue;
            };
            if let Some(memory) = self
                .folder_memory
                .newly_relevant(facts, &guard, &mut warnings)
            {
                content.push_str("\n\n");
                content.push_str(&memory);
            }
        }
        for message in warnings {
            events.error(message);
        }
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
            &mut self.transcript,
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
            self.anchor = None;
            events.emit(Event::Compaction {
                trigger: "micro".to_string(),
                tokens_before: before,
                tokens_after: self.next_request_tokens(),
                kept_messages: self.transcript.len(),
            });
        }
    }

    /// One summary request, its usage and cost counted; its deltas are not shown (the
    /// summary is not part of the conversation).
    async fn summary_turn(
        &mut self,
        request: rein_llm::ModelRequest,
        cancel: &CancellationToken,
    ) -> Result<rein_llm::AssembledResponse, CompactionError> {
        let (quiet, _drop) = tokio::sync::mpsc::unbounded_channel();
        let response = match turn::stream_turn(self.client.as_ref(), request, &quiet, cancel).await
        {
            TurnOutcome::Completed(response) => response,
            TurnOutcome::Cancelled { .. } => return Err(CompactionError::Cancelled),
            TurnOutcome::Failed(error) => return Err(error.into()),
        };
        let cost = self.record_usage(response.usage);
        self.session_usage.add(&response.usage);
        self.session_cost = self
            .session_cost
            .zip(cost)
            .map(|(a, b)| rein_llm::round_cost(a + b));
        Ok(response)
    }

    pub(super) fn over_threshold(&self) -> bool {
        self.transcript.len() > 2
            && self.next_request_tokens() as f64 > context::COMPACT_AT * self.window() as f64
    }

    /// Replaces the older part of the transcript with a model-written summary, keeping recent
    /// turns verbatim. On failure the transcript is left as it was.
    pub async fn compact(
        &mut self,
        trigger: CompactTrigger,
        focus: Option<&str>,
        events: &EventSender,
        cancel: &CancellationToken,
    ) -> Result<(), CompactionError> {
        let keep = context::messages_to_keep(&self.transcript, self.window() * 3 / 10);
        let older = self.transcript.len() - keep;
        // A summary is some hundreds of tokens: asked to compact a shorter history, the user
        // is told so (it would only grow, and cost a request) before any hook runs. The model
        // and the window's limits decide for themselves.
        let older_tokens = context::estimate(&self.transcript[..older]);
        if trigger == CompactTrigger::Manual && older_tokens < MIN_COMPACTED_TOKENS {
            return Err(CompactionError::TooShort {
                tokens: older_tokens,
            });
        }
        let mut fields = serde_json::Map::new();
        fields.insert("trigger".into(), trigger.name().into());
        fields.insert("custom_instructions".into(), focus.unwrap_or("").into());
        let mode = self.gate.hook_mode();
        let hooks = Arc::clone(&self.gate.hooks);
        hooks
            .run(HookEvent::PreCompact, None, mode, fields, events)
            .await;
        let summary = self.summarize(older, focus, cancel).await?;
        self.replace_with_summary(summary, keep, trigger, events);
        Ok(())
    }

    /// The model's summary of the first `older` messages, with the focus asked for.
    async fn summarize(
        &mut self,
        older: usize,
        focus: Option<&str>,
        cancel: &CancellationToken,
    ) -> Result<String, CompactionError> {
        let mut messages = self.transcript[..older].to_vec();
        let mut ask = context::SUMMARY_INSTRUCTIONS.to_string();
        if let Some(focus) = focus.filter(|f| !f.trim().is_empty()) {
            ask.push_str(&format!(" Focus especially on: {}", focus.trim()));
        }
        match messages.last_mut() {
            Some(last) if last.role == Role::User => {
                last.content.push(ContentBlock::Text { text: ask });
            }
            _ => messages.push(Message::user_text(ask)),
        }
        // The conversation's own system prompt and tools, so the summary request reads the
        // cached prefix instead of paying for the whole transcript once more; the instruction
        // tells the model to answer in text.
        let request = self.request(messages);
        let mut response = self.summary_turn(request.clone(), cancel).await?;
        if response.message.text().trim().is_empty() && !request.tools.is_empty() {
            // The model called a tool instead of writing: ask once more with no tools to call
            // (that request cannot read the cached prefix, but the summary gets written).
            let mut bare = request;
            bare.tools.clear();
            response = self.summary_turn(bare, cancel).await?;
        }
        let summary = response.message.text();
        if summary.trim().is_empty() {
            return Err(CompactionError::EmptySummary);
        }
        Ok(summary)
    }

    /// The transcript becomes `summary` (with the folder memory shown so far and the todo
    /// list) followed by its last `keep` messages; recorded and said.
    fn replace_with_summary(
        &mut self,
        summary: String,
        keep: usize,
        trigger: CompactTrigger,
        events: &EventSender,
    ) {
        let tokens_before = self.next_request_tokens();
        let transcript = std::mem::take(&mut self.transcript);
        let mut summary = match self.folder_memory.all() {
            Some(memory) => format!("{summary}\n\n{memory}"),
            None => summary,
        };
        let todos = self.tool_ctx.todos.get();
        if !todos.is_empty() {
            summary.push_str(&format!(
                "\n\nYour todo list (todo_write) as it stands:\n{}",
                super::todos::render(&todos)
            ));
        }
        self.transcript = context::compacted(transcript, &summary, keep);
        self.anchor = None;
        self.record(SessionRecord::Compaction {
            trigger: trigger.name().to_string(),
            summary,
            kept_messages: keep,
        });
        events.emit(Event::Compaction {
            trigger: trigger.name().to_string(),
            tokens_before,
            tokens_after: self.next_request_tokens(),
            kept_messages: keep,
        });
    }
}
