//! The ways a model request can go wrong that the loop recovers from: a prompt too long
//! (compact once and ask again), the model overloaded or not found (ask the fallback model),
//! a reply cut at the output limit (inside a tool call: ask again with the model's larger
//! limit, else refuse the cut calls; in text: ask the model to go on, a few times).

use rein_llm::{AssembledResponse, LlmError, LlmErrorKind};
use rein_protocol::{ContentBlock, Event, Message, RunOutcome, SessionRecord};
use tokio_util::sync::CancellationToken;

use super::RunSummary;
use super::compaction::CompactionError;
use crate::EventSender;
use crate::context::{self, Clearing};
use crate::emitter::Emitter;
use crate::lifecycle::CompactTrigger;
use crate::turn::{self, TurnOutcome};

/// Most times one run asks the model to go on after a reply cut in its text.
const MAX_CONTINUATIONS: u32 = 3;

/// What a run has tried so far.
#[derive(Debug, Default)]
pub(super) struct Recovery {
    /// A reactive compaction was tried.
    compacted: bool,
    /// A summary was asked for since the model last answered: at most one per request.
    pub(super) summarised: bool,
    /// The output limit requests use from now on, once raised.
    raised_limit: Option<u32>,
    /// Continuations asked for after cut text.
    continuations: u32,
    /// The last reply was cut in its text: the next one continues it.
    pub(super) continuing: bool,
}

/// What became of a request.
pub(super) enum Asked {
    /// The model answered.
    Reply(AssembledResponse),
    /// Something was fixed: the run's loop asks again.
    Again,
    /// The run ends so.
    End(RunOutcome),
}

impl super::Agent {
    /// Streams the next request and recovers from what it can.
    pub(super) async fn ask(
        &mut self,
        summary: &mut RunSummary,
        recovery: &mut Recovery,
        events: &EventSender,
        cancel: &CancellationToken,
    ) -> Asked {
        let mut request = self.request(self.transcript.messages.clone());
        if let Some(limit) = recovery.raised_limit {
            request.max_tokens = request.max_tokens.max(limit);
        }
        let error = match turn::stream_turn(self.client.as_ref(), request, events, cancel).await {
            TurnOutcome::Completed(response) => {
                recovery.summarised = false;
                return Asked::Reply(response);
            }
            TurnOutcome::Cancelled { blocks } => {
                self.record_cut_reply(blocks);
                return Asked::End(RunOutcome::Cancelled);
            }
            TurnOutcome::Failed(error) => error,
        };
        if error.kind == LlmErrorKind::ContextLength && !recovery.compacted {
            // The prompt no longer fits: make it smaller once and try again.
            recovery.compacted = true;
            return match self.shrink_refused(recovery, events, cancel).await {
                Ok(()) => Asked::Again,
                Err(why) => {
                    let message = format!("{error}; {why}");
                    self.fail(summary, error, message, events)
                }
            };
        }
        if let Some(reason) = fallback_reason(&error)
            && let Some(fallback) = self.config.fallback.take()
        {
            events.emit(Event::ModelFallback {
                from: self.config.model.clone(),
                to: fallback.model.clone(),
                reason: format!("{reason}: {error}"),
            });
            self.set_model(fallback.model, fallback.client);
            return Asked::Again;
        }
        let message = error.to_string();
        self.fail(summary, error, message, events)
    }

    /// After the provider refused the request as too long: one summary compaction unless one
    /// was just made or there is nothing old enough to summarise, else every tool result
    /// cleared (saved to files); why neither helped.
    async fn shrink_refused(
        &mut self,
        recovery: &mut Recovery,
        events: &EventSender,
        cancel: &CancellationToken,
    ) -> Result<(), String> {
        if !recovery.summarised {
            match self
                .compact(CompactTrigger::Reactive, None, events, cancel)
                .await
            {
                Ok(()) => {
                    recovery.summarised = true;
                    return Ok(());
                }
                // Nothing old enough: no request made.
                Err(CompactionError::TooShort { .. }) => {}
                Err(CompactionError::NoGain { .. }) => recovery.summarised = true,
                Err(error) => {
                    return Err(format!(
                        "compacting the transcript to make it fit failed: {error}"
                    ));
                }
            }
        }
        let everything = Clearing {
            keep_recent: 0,
            min_bytes: context::CLEAR_MIN_BYTES,
            min_total_bytes: 0,
            enough_bytes: usize::MAX,
        };
        if self.clear_results(everything, events) > 0 {
            return Ok(());
        }
        Err(format!(
            "the transcript is as small as compacting and clearing tool outputs make it \
             (~{} tokens, ~{} of them the system prompt and tool definitions): the model's \
             context window is too small for it",
            self.next_request_tokens(),
            self.fixed_tokens()
        ))
    }

    fn fail(
        &mut self,
        summary: &mut RunSummary,
        error: LlmError,
        message: String,
        events: &EventSender,
    ) -> Asked {
        self.record(SessionRecord::Error {
            message: message.clone(),
        });
        events.error(message);
        summary.error = Some(error);
        Asked::End(RunOutcome::Failed)
    }

    /// For a reply cut at the output limit inside a tool call: `true` when it is to be asked
    /// again (not kept) with the model's larger limit, said as a `Retry` event; once only.
    pub(super) fn retry_cut_call(
        &mut self,
        recovery: &mut Recovery,
        message: &Message,
        events: &EventSender,
    ) -> bool {
        let has_calls = message
            .content
            .iter()
            .any(|b| matches!(b, ContentBlock::ToolUse { .. }));
        let current = self.max_output().max(recovery.raised_limit.unwrap_or(0));
        let larger = self.largest_output();
        if !has_calls || recovery.raised_limit.is_some() || larger <= current {
            return false;
        }
        recovery.raised_limit = Some(larger);
        events.emit(Event::Retry {
            attempt: 1,
            delay_ms: 0,
            reason: format!(
                "the reply reached the output limit ({current} tokens) inside a tool call; \
                 asking again with {larger}"
            ),
        });
        true
    }

    /// Results for the calls of a reply cut at the output limit: not run, since their
    /// arguments may be incomplete.
    pub(super) fn refuse_cut_calls(&mut self, recovery: &Recovery, ids: Vec<String>) {
        let limit = self.max_output().max(recovery.raised_limit.unwrap_or(0));
        let results: Vec<ContentBlock> = ids
            .into_iter()
            .map(|id| ContentBlock::ToolResult {
                tool_use_id: id,
                content: format!(
                    "Not run: your reply reached the output limit ({limit} tokens) inside \
                     this call, so its arguments may be incomplete. Make the call again in \
                     smaller pieces (write a long file in parts, then add to it)."
                ),
                is_error: true,
                media: Vec::new(),
            })
            .collect();
        self.push_recorded_user_blocks(results);
    }

    /// After a reply cut in its text: `true` when the model is asked to go on (a few times
    /// per run).
    pub(super) fn continue_cut_text(&mut self, recovery: &mut Recovery) -> bool {
        if recovery.continuations >= MAX_CONTINUATIONS {
            return false;
        }
        recovery.continuations += 1;
        recovery.continuing = true;
        self.push_recorded_user_blocks(vec![ContentBlock::Text {
            text: "<system-reminder>Your reply was cut off at the output limit. Continue \
                   exactly where it stopped, without repeating anything or apologising.\
                   </system-reminder>"
                .into(),
        }]);
        true
    }
}

/// Why `error` calls for the fallback model, if it does: overloaded (529, 503) after the
/// retries, or the model not found.
fn fallback_reason(error: &LlmError) -> Option<&'static str> {
    let message = error.message.to_ascii_lowercase();
    if error.kind == LlmErrorKind::Overloaded || error.status == Some(503) {
        Some("overloaded")
    } else if error.status == Some(404)
        || (error.kind == LlmErrorKind::BadRequest
            && message.contains("model")
            && (message.contains("not found")
                || message.contains("does not exist")
                || message.contains("not_found")))
    {
        Some("model not found")
    } else {
        None
    }
}
