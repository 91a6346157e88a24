//! One session `rein mcp serve` holds: its settings, its controller and its events, driven
//! one prompt at a time, with progress notifications to the client while a prompt runs.

use std::sync::Arc;

use rein_engine::{Approver, Controller, EndReason, Op};
use rein_protocol::{Event, RunOutcome, Usage};
use rmcp::RoleServer;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::Peer;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio_util::sync::CancellationToken;

use crate::Exit;
use crate::args::ExecArgs;
use crate::setup::Setup;

/// A session and what drives it.
pub struct Live {
    pub id: String,
    setup: Arc<Setup>,
    controller: Controller,
    events: UnboundedReceiver<Event>,
}

/// How a prompt ended.
pub struct Reply {
    pub outcome: RunOutcome,
    /// The final answer (or why there is none).
    pub text: String,
    pub turns: u32,
    pub usage: Usage,
    pub cost_usd: Option<f64>,
}

/// Where progress goes: the client, when its call carried a progress token.
pub struct Progress {
    pub peer: Peer<RoleServer>,
    pub token: Option<ProgressToken>,
    sent: u32,
}

impl Progress {
    pub fn new(peer: Peer<RoleServer>, token: Option<ProgressToken>) -> Self {
        Self {
            peer,
            token,
            sent: 0,
        }
    }

    /// Tells the client what happens now (nothing without a token).
    pub async fn say(&mut self, message: String) {
        let Some(token) = &self.token else { return };
        self.sent += 1;
        let mut param = ProgressNotificationParam::new(token.clone(), f64::from(self.sent));
        param.message = Some(message);
        let _ = self.peer.notify_progress(param).await;
    }
}

impl Live {
    /// Starts the session `args` describe (a new one, or the stored one `--resume` names),
    /// asking `approver` about calls when there is one (else such calls are refused).
    pub async fn start(args: &ExecArgs, approver: Option<Arc<dyn Approver>>) -> Result<Self, Exit> {
        let mut setup = Setup::new(args, crate::trust::Asking::Never)?;
        setup.start_mcp().await;
        let setup = Arc::new(setup);
        let agent = setup.agent(setup.start(args)?)?;
        let id = agent.session_id().to_string();
        let (tx, events) = tokio::sync::mpsc::unbounded_channel();
        let controller = Controller::new(agent, setup.clone(), tx, approver);
        Ok(Self {
            id,
            setup,
            controller,
            events,
        })
    }

    /// Runs `prompt` to its end, telling `progress` what happens; `cancelled` (the client
    /// cancelled its call) cancels the turn: its commands are killed, the session kept.
    pub async fn ask(
        &mut self,
        prompt: String,
        progress: &mut Progress,
        cancelled: &CancellationToken,
    ) -> Reply {
        let _ = self.controller.apply(Op::Submit(prompt)).await;
        let mut cancelling = false;
        loop {
            let event = tokio::select! {
                biased;
                () = cancelled.cancelled(), if !cancelling => {
                    cancelling = true;
                    let _ = self.controller.apply(Op::Cancel).await;
                    continue;
                }
                event = self.events.recv() => event,
            };
            let Some(event) = event else {
                return Reply::failed("the session ended before its answer");
            };
            if let Event::Result {
                outcome,
                text,
                turns,
                usage,
                cost_usd,
                ..
            } = event
            {
                return Reply {
                    outcome,
                    text,
                    turns,
                    usage,
                    cost_usd,
                };
            }
            if let Some(message) = progress_line(&event) {
                progress.say(message).await;
            }
        }
    }

    /// Ends the session (saved as it is) and stops its MCP servers.
    pub async fn close(&mut self) {
        let _ = self.controller.apply(Op::Shutdown(EndReason::Other)).await;
        self.setup.mcp.shutdown(crate::mcp::SHUTDOWN_GRACE).await;
    }
}

impl Reply {
    fn failed(why: &str) -> Self {
        Self {
            outcome: RunOutcome::Failed,
            text: why.to_string(),
            turns: 0,
            usage: Usage::default(),
            cost_usd: None,
        }
    }
}

/// What a client is told of `event`, if anything: each tool call, errors, retries.
fn progress_line(event: &Event) -> Option<String> {
    match event {
        Event::ToolCallStart { name, summary, .. } => Some(format!("{name} {summary}")),
        Event::Error { message } => Some(format!("error: {message}")),
        Event::Retry { reason, .. } => Some(format!("retrying: {reason}")),
        Event::Compaction { .. } => Some("compacting the conversation".to_string()),
        Event::PermissionRequest { name, .. } => Some(format!("asking to run {name}")),
        _ => None,
    }
}
