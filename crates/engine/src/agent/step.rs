//! The agent loop: [`Agent::drive`] repeats one step — a model request, and what its reply
//! asks for (tool calls run, a retry, a continuation) — until a step ends the run.

use rein_llm::AssembledResponse;
use rein_protocol::{Event, Message, RunOutcome, SessionRecord, StopReason};
use rein_tools::ToolContext;
use tokio_util::sync::CancellationToken;

use super::context_budget::WindowTooSmall;
use super::recovery::{Asked, Recovery};
use super::transcript::{is_empty_reply, tool_calls};
use super::{Agent, RunSummary};
use crate::EventSender;
use crate::context::Anchor;
use crate::dispatch::{self, ToolCall};
use crate::emitter::Emitter;
use crate::gate::StopBy;

/// What one step left for the next.
enum Step {
    /// The loop goes on.
    Next,
    /// The run ends so.
    End(RunOutcome),
}

/// What the steps of one run share.
struct Drive {
    /// The tool context of the run's calls (the session's, with the run's cancel token).
    ctx: ToolContext,
    /// Times a `Stop` hook sent the agent back to work.
    stop_continuations: u32,
    /// What the run tried to recover from failed or cut requests.
    recovery: Recovery,
    /// Whether an empty reply was asked again already.
    empty_retried: bool,
}

impl Agent {
    /// Steps until one ends the run.
    pub(super) async fn drive(
        &mut self,
        summary: &mut RunSummary,
        events: &EventSender,
        cancel: &CancellationToken,
    ) -> RunOutcome {
        let mut drive = Drive {
            ctx: ToolContext {
                cancel: cancel.clone(),
                ..self.tool_ctx.clone()
            },
            stop_continuations: 0,
            recovery: Recovery::default(),
            empty_retried: false,
        };
        if let Some(spawner) = &self.delegation.spawner {
            let view = self.parent_view(events);
            // A resumed session's teammates start again (idle) now that there is a run.
            spawner.restore_teammates(&view);
            spawner.set_parent(view);
        }
        loop {
            if let Step::End(outcome) = self.step(&mut drive, summary, events, cancel).await {
                return outcome;
            }
        }
    }

    /// One model request and what its reply asks for.
    async fn step(
        &mut self,
        drive: &mut Drive,
        summary: &mut RunSummary,
        events: &EventSender,
        cancel: &CancellationToken,
    ) -> Step {
        if summary.turns >= self.config.max_turns {
            events.error(format!(
                "stopped after {} turns (the --max-turns limit)",
                self.config.max_turns
            ));
            return Step::End(RunOutcome::MaxTurns);
        }
        if let Some(spent) = self.budget_spent(summary) {
            events.error(spent);
            return Step::End(RunOutcome::MaxBudget);
        }
        if let Err(too_small) = self
            .prepare_request(&mut drive.recovery, events, cancel)
            .await
        {
            let message = too_small.to_string();
            self.record(SessionRecord::Error {
                message: message.clone(),
            });
            events.error(message);
            return Step::End(RunOutcome::Failed);
        }
        summary.turns += 1;
        let turn = summary.turns;
        events.emit(Event::TurnStart { turn });
        let response = match self.ask(summary, &mut drive.recovery, events, cancel).await {
            Asked::Reply(response) => response,
            Asked::Again => return Step::Next,
            Asked::End(outcome) => return Step::End(outcome),
        };
        self.report_reply(summary, &response, turn, events);
        if is_empty_reply(&response.message, &response.stop_reason) {
            return self.empty_reply(drive, events);
        }
        let cut = response.stop_reason == StopReason::MaxTokens;
        if cut && self.retry_cut_call(&mut drive.recovery, &response.message, events) {
            return Step::Next;
        }
        let stop_reason = response.stop_reason.clone();
        let calls = self.keep_reply(drive, summary, response);
        if calls.is_empty() {
            if stop_reason == StopReason::PauseTurn
                || (cut && self.continue_cut_text(&mut drive.recovery))
            {
                return Step::Next;
            }
            return self.finish(drive, summary, events, cancel).await;
        }
        if let Some(plan) = self.plan_as_answer(&calls) {
            summary.text = plan;
            return Step::End(RunOutcome::Completed);
        }
        if cut {
            let ids = calls.into_iter().map(|c| c.id).collect();
            self.refuse_cut_calls(&drive.recovery, ids);
            return Step::Next;
        }
        self.run_calls(drive, calls, summary, events, cancel).await
    }

    /// Why the run stops before another request: the session (earlier runs and this one so
    /// far) has cost `--max-budget-usd`.
    fn budget_spent(&self, summary: &RunSummary) -> Option<String> {
        let limit = self.config.max_budget_usd?;
        let spent = super::add_costs(self.totals.cost, summary.cost_usd)?;
        (spent >= limit).then(|| {
            format!(
                "stopped: the session has cost ${spent:.4}, which reaches the --max-budget-usd \
                 limit of ${limit}"
            )
        })
    }

    /// Before a request: the sourced tools refreshed, room made in the window (old results
    /// cleared, the transcript compacted when it grew too large). `Err` ends the run: the
    /// request cannot fit.
    async fn prepare_request(
        &mut self,
        recovery: &mut Recovery,
        events: &EventSender,
        cancel: &CancellationToken,
    ) -> Result<(), WindowTooSmall> {
        // Tools first: they count in what must fit.
        if let Some(source) = self.config.tool_source.clone() {
            self.toolset.refresh(source.as_ref(), events).await;
        }
        self.make_room(recovery, events, cancel).await
    }

    /// The reply's usage counted and the reply shown.
    fn report_reply(
        &mut self,
        summary: &mut RunSummary,
        response: &AssembledResponse,
        turn: u32,
        events: &EventSender,
    ) {
        let cost = self.record_usage(response.usage);
        summary.spent(&response.usage, cost);
        events.emit(Event::Usage {
            usage: response.usage,
            cost_usd: cost,
        });
        events.emit(Event::AssistantMessage {
            message: response.message.clone(),
        });
        events.emit(Event::TurnEnd {
            turn,
            stop_reason: response.stop_reason.clone(),
        });
    }

    /// A reply with no text and no calls: asked again once, then the run fails.
    fn empty_reply(&mut self, drive: &mut Drive, events: &EventSender) -> Step {
        if !drive.empty_retried {
            // Not kept: the same request goes again, once.
            drive.empty_retried = true;
            events.emit(Event::Retry {
                attempt: 1,
                delay_ms: 0,
                reason: "the model sent an empty reply (no text, no tool calls)".into(),
            });
            return Step::Next;
        }
        let message = "the model sent an empty reply twice (no text, no tool calls); \
                       try again, or another model"
            .to_string();
        self.record(SessionRecord::Error {
            message: message.clone(),
        });
        events.error(message);
        Step::End(RunOutcome::Failed)
    }

    /// The reply joins the transcript (recorded, its size the new anchor) and its text the
    /// run's answer; its tool calls.
    fn keep_reply(
        &mut self,
        drive: &mut Drive,
        summary: &mut RunSummary,
        response: AssembledResponse,
    ) -> Vec<ToolCall> {
        let message: Message = response.message;
        let text = message.text();
        if std::mem::take(&mut drive.recovery.continuing) {
            summary.text.push_str(&text);
        } else if !text.is_empty() {
            summary.text = text;
        }
        let calls = tool_calls(&message);
        self.record(SessionRecord::Message {
            message: message.clone(),
        });
        self.transcript.messages.push(message);
        self.transcript.anchor = Some(Anchor {
            messages: self.transcript.messages.len(),
            tokens: response
                .usage
                .total_input()
                .saturating_add(response.usage.output_tokens),
        });
        calls
    }

    /// A reply without calls: the run is done unless a `Stop` hook or background work
    /// keeps it going.
    async fn finish(
        &mut self,
        drive: &mut Drive,
        summary: &mut RunSummary,
        events: &EventSender,
        cancel: &CancellationToken,
    ) -> Step {
        // A subagent's end runs `SubagentStop` (in its `task` call) instead of `Stop`.
        if self.delegation.subagent_name.is_none()
            && self
                .stop_blocked(&mut drive.stop_continuations, events)
                .await
        {
            return Step::Next;
        }
        if self.await_background(events, cancel).await {
            return Step::Next;
        }
        self.count_subagents(summary);
        Step::End(RunOutcome::Completed)
    }

    /// Runs the reply's calls, adds what the results bring along (folder memory, ended
    /// jobs, todo reminders, finished subagents, repeat warnings) and checks whether the run
    /// stops here.
    async fn run_calls(
        &mut self,
        drive: &mut Drive,
        calls: Vec<ToolCall>,
        summary: &mut RunSummary,
        events: &EventSender,
        cancel: &CancellationToken,
    ) -> Step {
        let inputs: Vec<(String, String, serde_json::Value)> = calls
            .iter()
            .map(|c| (c.id.clone(), c.name.clone(), c.input.clone()))
            .collect();
        let record_result = self.recording.result_sink(self.tool_ctx.hidden_env.clone());
        self.settle_snapshot(events).await;
        let done = dispatch::Dispatch {
            tools: &self.toolset.registry,
            ctx: &drive.ctx,
            limits: self.config.dispatch,
            gate: &self.gate,
            events,
            checkpoints: self.checkpointing.store.as_deref(),
            on_done: &record_result,
            claude_results: self.config.claude_results,
            sees_images: rein_llm::models::sees_images(&self.config.model, &self.config.vision),
        }
        .run(calls)
        .await;
        let (mut results, touched): (Vec<_>, Vec<_>) =
            done.into_iter().map(|d| (d.block, d.facts)).unzip();
        self.count_subagents(summary);
        self.add_folder_memory(&touched, &mut results, events);
        self.tell_ended_jobs(&mut results);
        self.after_todos(&inputs, &mut results, events);
        if self.follow_worktree(&mut results) {
            // The run's calls use the new root from the next batch on.
            drive.ctx.guard = self.tool_ctx.guard.clone();
        }
        self.tell_finished_subagents(&mut results);
        let verdict = self
            .watch
            .repeats
            .check(self.config.repeat_limits, &inputs, &mut results);
        let noted = self.noted_in(&inputs, &results);
        self.push_recorded_user_blocks(results);
        if noted {
            self.notes_taken();
        }
        if cancel.is_cancelled() {
            return Step::End(RunOutcome::Cancelled);
        }
        if self.stopped_for_repeats(verdict, events) {
            return Step::End(RunOutcome::Failed);
        }
        self.compact_if_asked(events, cancel).await;
        match self.gate.take_stop() {
            Some(StopBy::Hook(reason)) => {
                events.error(format!("a hook ended the session: {reason}"));
                return Step::End(RunOutcome::Failed);
            }
            Some(StopBy::User) => return Step::End(RunOutcome::Cancelled),
            None => {}
        }
        Step::Next
    }
}
