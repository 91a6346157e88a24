//! `!command`: the user's own shell command, run as a `bash` call would be (deny rules, the
//! OS sandbox, checkpoints, redaction, hooks) but without asking, since the user typed it; its
//! line and output join the conversation for the model's next turn, and no request is made.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use async_trait::async_trait;
use rein_protocol::{ContentBlock, Event, RunOutcome, Usage};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::Agent;
use crate::EventSender;
use crate::dispatch::{self, ToolCall};
use crate::emitter::Emitter;
use crate::gate::{Approval, ApprovalRequest, Approver, Gate};

/// The user typed the command: what would ask runs (what deny rules refuse does not).
struct TypedByTheUser;

#[async_trait]
impl Approver for TypedByTheUser {
    async fn approve(&self, _request: ApprovalRequest) -> Approval {
        Approval::AllowOnce
    }
}

/// Numbers the user's commands' call ids.
static SHELLS: AtomicU64 = AtomicU64::new(0);

/// How a `!command` and its output are kept in the transcript (Claude Code's tags).
pub(crate) use crate::session::BASH_INPUT;

impl Agent {
    /// Runs `command` as the user's own (`!command`); the run's events end with `Result`.
    pub async fn run_shell(
        &mut self,
        command: &str,
        events: &EventSender,
        cancel: CancellationToken,
    ) -> RunOutcome {
        let started = Instant::now();
        self.open_run(events, None);
        let line = format!("{BASH_INPUT}{command}</bash-input>");
        self.close_unanswered_prompt();
        self.checkpoint_turn(Some(&line), events).await;
        self.settle_snapshot(events).await;
        let gate = Gate {
            approver: Some(Arc::new(TypedByTheUser)),
            ..self.gate.clone()
        };
        let ctx = rein_tools::ToolContext {
            cancel: cancel.clone(),
            ..self.tool_ctx.clone()
        };
        let record_result = |_: &ContentBlock| {};
        let call = ToolCall {
            id: format!("user_shell_{}", SHELLS.fetch_add(1, Ordering::Relaxed) + 1),
            name: "bash".to_string(),
            input: json!({"command": command}),
        };
        let done = dispatch::Dispatch {
            tools: &self.toolset.registry,
            ctx: &ctx,
            limits: self.config.dispatch,
            gate: &gate,
            events,
            checkpoints: self.checkpointing.store.as_deref(),
            on_done: &record_result,
            claude_results: self.config.claude_results,
            sees_images: rein_llm::models::sees_images(&self.config.model, &self.config.vision),
        }
        .run(vec![call])
        .await;
        self.checkpoint_turn(None, events).await;
        let (output, failed) = match done.into_iter().next().map(|d| d.block) {
            Some(ContentBlock::ToolResult {
                content, is_error, ..
            }) => (content, is_error),
            _ => (String::new(), true),
        };
        let tag = if failed { "bash-stderr" } else { "bash-stdout" };
        self.push_user_blocks(vec![
            ContentBlock::Text { text: line },
            ContentBlock::Text {
                text: format!("<{tag}>{output}</{tag}>"),
            },
        ]);
        let outcome = if cancel.is_cancelled() {
            RunOutcome::Cancelled
        } else {
            RunOutcome::Completed
        };
        events.emit(Event::Result {
            outcome,
            text: String::new(),
            turns: 0,
            usage: Usage::default(),
            cost_usd: Some(0.0),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            session_usage: self.totals.usage,
            session_cost_usd: self.totals.cost,
        });
        outcome
    }
}
