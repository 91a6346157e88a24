//! Summary compaction: the older part of the transcript replaced by a summary the model
//! writes (asked by the user, the model's `compact` tool, the window filling up, or a
//! request too long), keeping recent turns verbatim, the folder memory shown so far and the
//! todo list.

use std::sync::Arc;

use rein_protocol::{ContentBlock, Event, Message, Role, SessionRecord};
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
        self.totals.add(&response.usage, cost);
        Ok(response)
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
        let keep = context::messages_to_keep(&self.transcript.messages, self.window() * 3 / 10);
        let older = self.transcript.messages.len() - keep;
        // A summary is some hundreds of tokens: asked to compact a shorter history, the user
        // is told so (it would only grow, and cost a request) before any hook runs. The model
        // and the window's limits decide for themselves.
        let older_tokens = context::estimate(&self.transcript.messages[..older]);
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
        let mut messages = self.transcript.messages[..older].to_vec();
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
        let transcript = std::mem::take(&mut self.transcript.messages);
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
        self.transcript.messages = context::compacted(transcript, &summary, keep);
        self.transcript.anchor = None;
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
