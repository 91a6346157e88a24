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
use crate::emitter::Emitter;
use crate::hooks::HookEvent;
use crate::lifecycle::CompactTrigger;
use crate::turn::{self, TurnOutcome};

/// Why a compaction left the transcript as it was.
#[derive(Debug, thiserror::Error)]
pub enum CompactionError {
    /// A history smaller than its summary would be: no summary was asked for.
    #[error(
        "nothing to compact: the conversation before the latest prompt is about {tokens} \
         tokens, less than a summary of it would be"
    )]
    TooShort {
        /// The estimated tokens of the history before the kept turns.
        tokens: u64,
    },
    /// The summary would not have made the transcript smaller: it was not used.
    #[error(
        "the summary was not used: it would have taken the transcript from ~{before} to \
         ~{after} tokens, no smaller"
    )]
    NoGain {
        /// The estimated tokens of the next request as it is.
        before: u64,
        /// What they would have been with the summary.
        after: u64,
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

/// What wrote a compaction's summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// Built from the session's notes, without a model call.
    Notes,
    /// The model.
    Model,
}

impl Source {
    fn name(self) -> &'static str {
        match self {
            Self::Notes => "notes",
            Self::Model => "model",
        }
    }
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
        let started = std::time::Instant::now();
        let keep = context::messages_to_keep(&self.transcript.messages, self.kept_budget(trigger));
        let older = self.transcript.messages.len() - keep;
        // A summary is some hundreds of tokens: a shorter history would only grow, and cost a
        // request. The window's triggers also wait for the history to outgrow the last
        // summary written (a history that short was summarised no smaller).
        let older_tokens = context::estimate(&self.transcript.messages[..older]);
        let floor = match trigger {
            CompactTrigger::Auto | CompactTrigger::Reactive => {
                MIN_COMPACTED_TOKENS.max(self.transcript.summary_tokens)
            }
            CompactTrigger::Manual | CompactTrigger::Model => MIN_COMPACTED_TOKENS,
        };
        if older_tokens < floor {
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
        // The notes first, when they cover what is dropped (a focus needs the model).
        if focus.is_none_or(|f| f.trim().is_empty())
            && let Some(summary) = self.summary_from_notes(older)
        {
            let how = (trigger, Source::Notes, started);
            match self.replace_with_summary(summary, keep, how, events) {
                Err(CompactionError::NoGain { .. }) => {}
                done => return done,
            }
        }
        let summary = self.summarize(older, focus, cancel).await?;
        self.replace_with_summary(summary, keep, (trigger, Source::Model, started), events)
    }

    /// Tokens of recent messages a compaction keeps verbatim: 30% of the window, or less when
    /// the fixed part of every request leaves less room (half of what it leaves below
    /// [`context::CLEAR_AT`], the other half for the summary and the work to come). After the
    /// provider refused the request as too long, the window is smaller than rein thought: a
    /// quarter of the transcript at most.
    fn kept_budget(&self, trigger: CompactTrigger) -> u64 {
        let below_clearing = (context::CLEAR_AT * self.window() as f64) as u64;
        let budget =
            (self.window() * 3 / 10).min(below_clearing.saturating_sub(self.fixed_tokens()) / 2);
        match trigger {
            CompactTrigger::Reactive => {
                budget.min(context::estimate(&self.transcript.messages) / 4)
            }
            _ => budget,
        }
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
        let mut request = self.request(messages);
        if self.fixed_tokens() + context::estimate(&request.messages) > self.window() {
            // With the tools it would not fit: without them it may.
            request.tools.clear();
        }
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
    /// list) followed by its last `keep` messages, recorded and said; unless that would not
    /// make the next request smaller.
    fn replace_with_summary(
        &mut self,
        summary: String,
        keep: usize,
        (trigger, source, started): (CompactTrigger, Source, std::time::Instant),
        events: &EventSender,
    ) -> Result<(), CompactionError> {
        let tokens_before = self.next_request_tokens();
        let mut summary = match self.folder_memory.all() {
            Some(memory) => format!("{summary}\n\n{memory}"),
            None => summary,
        };
        if !self
            .tool_ctx
            .services
            .get::<rein_board::Board>()
            .list()
            .is_empty()
        {
            summary.push_str(&format!(
                "\n\nThe task board (task_list) as it stands:\n{}",
                rein_tools::render_board(&self.tool_ctx.services.get::<rein_board::Board>())
            ));
        }
        self.transcript.summary_tokens = context::tokens_of(summary.len());
        let compacted = context::compacted(self.transcript.messages.clone(), &summary, keep);
        let transcript = std::mem::replace(&mut self.transcript.messages, compacted);
        let anchor = self.transcript.anchor.take();
        let tokens_after = self.next_request_tokens();
        if tokens_after >= tokens_before {
            self.transcript.messages = transcript;
            self.transcript.anchor = anchor;
            return Err(CompactionError::NoGain {
                before: tokens_before,
                after: tokens_after,
            });
        }
        self.record(SessionRecord::Compaction {
            trigger: trigger.name().to_string(),
            summary,
            kept_messages: keep,
        });
        events.emit(Event::Compaction {
            trigger: trigger.name().to_string(),
            tokens_before,
            tokens_after,
            kept_messages: keep,
            source: Some(source.name().into()),
            duration_ms: Some(u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)),
        });
        self.notes_compacted();
        Ok(())
    }
}
