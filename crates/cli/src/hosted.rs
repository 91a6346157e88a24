//! A session rein runs for another program (`rein mcp serve`, `rein acp`): its settings, its
//! controller and its events, driven one prompt at a time while the other program may change
//! its mode or model, or cancel, meanwhile. A front end of the session controller, like the
//! TUI and `rein exec`.

use std::sync::Arc;

use async_trait::async_trait;
use rein_engine::{Applied, Approver, ControlError, Controller, EndReason, Op};
use rein_protocol::{Event, Message, RunOutcome, Usage};
use tokio::sync::Mutex;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio_util::sync::CancellationToken;

use crate::Exit;
use crate::overrides::{Overrides, SessionStart};
use crate::setup::Setup;

/// A session and what drives it.
pub struct Hosted {
    pub id: String,
    pub setup: Arc<Setup>,
    /// Held only while an op is applied, so a mode change need not wait for a turn.
    controller: Mutex<Controller>,
    /// Held by the prompt under way: a second prompt is refused, not queued.
    events: Mutex<UnboundedReceiver<Event>>,
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

/// Where a prompt's events go while it runs.
#[async_trait]
pub trait Sink: Send {
    async fn event(&mut self, event: &Event);
}

/// [`Hosted::ask`] while another prompt of the session runs.
#[derive(Debug)]
pub struct Busy;

impl Hosted {
    /// Starts the session `args` describe (a new one, or the stored one `--resume` names),
    /// asking `approver` about calls when there is one (else such calls are refused), its file
    /// tools using `editor`'s buffers when there is one.
    pub async fn start(
        args: &Overrides,
        approver: Option<Arc<dyn Approver>>,
        editor: rein_tools::Editor,
    ) -> Result<Self, Exit> {
        let mut setup = Setup::new(args, crate::trust::Asking::Never)?;
        setup.editor = editor;
        setup.start_mcp().await;
        Self::on(Arc::new(setup), &args.start, approver)
    }

    /// A session on `setup` (settings, MCP and language servers another session may share),
    /// new or the stored one `start` names. [`Hosted::end`] ends it and leaves `setup`
    /// running.
    pub fn on(
        setup: Arc<Setup>,
        start: &SessionStart,
        approver: Option<Arc<dyn Approver>>,
    ) -> Result<Self, Exit> {
        let agent = setup.agent(setup.start(start)?)?;
        let id = agent.session_id().to_string();
        let (tx, events) = tokio::sync::mpsc::unbounded_channel();
        let controller = Controller::new(agent, setup.clone(), tx, approver);
        Ok(Self {
            id,
            setup,
            controller: Mutex::new(controller),
            events: Mutex::new(events),
        })
    }

    /// Carries out `op` on the session (a mode or model change, a cancellation).
    pub async fn apply(&self, op: Op) -> Result<Applied, ControlError> {
        self.controller.lock().await.apply(op).await
    }

    /// The session's conversation so far.
    pub async fn transcript(&self) -> Vec<Message> {
        self.controller.lock().await.transcript().await
    }

    /// The session's status (model, mode, usage…).
    pub async fn status(&self) -> rein_engine::SessionStatus {
        self.controller.lock().await.status().await
    }

    /// The status once the job that just ended has published its end (usage, context), which
    /// may come a moment after its `Result`; at most a second's wait.
    pub async fn settled_status(&self) -> rein_engine::SessionStatus {
        let mut status = self.controller.lock().await.watch_status();
        let settled = async {
            status
                .wait_for(|now| !now.running)
                .await
                .map(|now| now.clone())
        };
        let waited = tokio::time::timeout(std::time::Duration::from_secs(1), settled).await;
        match waited {
            Ok(Ok(now)) => now,
            _ => self.status().await,
        }
    }

    /// Waits until no job of the session runs (the one whose `Result` came has also ended).
    pub async fn idle(&self) {
        let mut status = self.controller.lock().await.watch_status();
        let _ = status.wait_for(|now| !now.running).await;
    }

    /// Runs `prompt` to its end, giving `sink` each event; `cancelled` cancels the turn: its
    /// commands are killed, the session kept. [`Busy`] while another prompt runs.
    pub async fn ask(
        &self,
        prompt: String,
        sink: &mut dyn Sink,
        cancelled: &CancellationToken,
    ) -> Result<Reply, Busy> {
        let Ok(mut events) = self.events.try_lock() else {
            return Err(Busy);
        };
        let _ = self.apply(Op::Submit(prompt)).await;
        let mut cancelling = false;
        loop {
            let event = tokio::select! {
                biased;
                () = cancelled.cancelled(), if !cancelling => {
                    cancelling = true;
                    let _ = self.apply(Op::Cancel).await;
                    continue;
                }
                event = events.recv() => event,
            };
            let Some(event) = event else {
                return Ok(Reply::failed("the session ended before its answer"));
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
                return Ok(Reply {
                    outcome,
                    text,
                    turns,
                    usage,
                    cost_usd,
                });
            }
            sink.event(&event).await;
        }
    }

    /// Ends the session (saved as it is), flushes its telemetry and stops its MCP servers.
    pub async fn close(&self) {
        self.end().await;
        self.setup.close().await;
    }

    /// Ends the session (saved as it is); its setup stays for the sessions sharing it.
    pub async fn end(&self) {
        let _ = self.apply(Op::Shutdown(EndReason::Other)).await;
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
