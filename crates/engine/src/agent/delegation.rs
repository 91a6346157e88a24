//! What the loop does about work it handed off: background shells that ended, subagents'
//! answers that came in the background, and what subagents spent.

use std::sync::Arc;

use rein_protocol::{ContentBlock, Message, SessionRecord};
use tokio_util::sync::CancellationToken;

use super::{Agent, RunSummary};
use crate::EventSender;
use crate::emitter::Emitter;
use crate::subagents::{BACKGROUND_WAIT, Spawner};

/// Work handed to subagents: the spawner of this agent's `task` tool (when subagents are
/// configured), and this agent's own name when it is itself a subagent (it then runs no
/// session or prompt hooks, and `SubagentStop` instead of `Stop`).
#[derive(Default)]
pub(super) struct Delegation {
    pub(super) spawner: Option<Arc<Spawner>>,
    pub(super) subagent_name: Option<String>,
}

impl Agent {
    /// Background jobs that ended since the model last heard, told at the end of the batch's
    /// last result (a text block beside results is not valid everywhere).
    pub(super) fn tell_ended_jobs(&self, results: &mut [ContentBlock]) {
        let ended = self
            .tool_ctx
            .services
            .get::<rein_tools::Jobs>()
            .take_ended();
        if ended.is_empty() {
            return;
        }
        if let Some(ContentBlock::ToolResult { content, .. }) = results.last_mut() {
            content.push_str("\n\n");
            content.push_str(&ended.join("\n"));
        }
    }

    /// Answers of background subagents that arrived during the batch, told at the end of
    /// its last result.
    pub(super) fn tell_finished_subagents(&self, results: &mut [ContentBlock]) {
        let Some(spawner) = &self.delegation.spawner else {
            return;
        };
        let finished = spawner.take_finished();
        if let (false, Some(ContentBlock::ToolResult { content, .. })) =
            (finished.is_empty(), results.last_mut())
        {
            content.push_str("\n\n");
            content.push_str(&finished.join("\n\n"));
        }
    }

    /// When the model is done but background subagents or teammates still work: waits for
    /// the next answer or letter (up to [`BACKGROUND_WAIT`]) and hands it to the model as a
    /// new message; `true` to go on. The wait ends without one once nothing works any more
    /// (teammates idle); one that runs out stops them and says so.
    pub(super) async fn await_background(
        &mut self,
        events: &EventSender,
        cancel: &CancellationToken,
    ) -> bool {
        let Some(spawner) = self.delegation.spawner.clone() else {
            return false;
        };
        let mut ready = spawner.take_finished();
        let deadline = std::time::Instant::now() + BACKGROUND_WAIT;
        // Polled: a teammate going idle changes what is worth waiting for without a notice.
        while ready.is_empty() && spawner.running() > 0 {
            if std::time::Instant::now() >= deadline {
                spawner.stop_all();
                events.error(format!(
                    "background subagents were still running after {} min; they were stopped",
                    BACKGROUND_WAIT.as_secs() / 60
                ));
                return false;
            }
            let poll = std::time::Duration::from_millis(200);
            match spawner.next_finished(poll, cancel).await {
                Some(notice) => ready.push(notice),
                None if cancel.is_cancelled() => return false,
                None => {}
            }
        }
        if ready.is_empty() {
            return false;
        }
        let message = Message::user_text(ready.join("\n\n"));
        self.record(SessionRecord::Message {
            message: message.clone(),
        });
        self.transcript.messages.push(message);
        true
    }

    /// Adds what the batch's subagents spent to the run and the session file.
    pub(super) fn count_subagents(&mut self, summary: &mut RunSummary) {
        let Some(spawner) = &self.delegation.spawner else {
            return;
        };
        for (model, usage, cost_usd) in spawner.take_spent() {
            summary.spent(&usage, cost_usd);
            self.record(SessionRecord::Usage {
                model,
                usage,
                cost_usd,
            });
        }
    }
}
