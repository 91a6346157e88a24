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
    async fn event(&mut self, event: Event);
}

/// How a job ended, as its last event said.
pub enum JobEnd {
    /// A run's `Result`.
    Ran(Reply),
    /// A compaction's `CompactionEnd`, with why nothing was compacted.
    Compacted(Option<String>),
    /// The event stream closed first.
    Closed,
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

    /// Who answers the model's questions (`--answers`).
    pub async fn set_answerer(&self, answerer: Arc<dyn rein_engine::questions::Answerer>) {
        self.controller.lock().await.set_answerer(answerer).await;
    }

    /// Runs the session's scheduled jobs as they fall due (`--stay`).
    pub async fn serve_schedule(&self) {
        self.controller.lock().await.serve_schedule();
    }

    /// The session's scheduled jobs.
    pub async fn jobs(&self) -> Vec<rein_protocol::ScheduledJob> {
        self.controller.lock().await.jobs()
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
        Ok(match self.job(Op::Submit(prompt), sink, cancelled).await? {
            JobEnd::Ran(reply) => reply,
            // The controller ends every run with its `Result`; without one, the run failed.
            JobEnd::Compacted(_) | JobEnd::Closed => {
                Reply::failed("the session ended before its answer")
            }
        })
    }

    /// Starts the job `op` (a prompt, a compaction) and gives `sink` each of its events up to
    /// the one that ends it. The one event loop of every front end driving a session, with
    /// the one rule for when a job has ended ([`Event::ends_job`]): a run's `Result` (given to
    /// `sink` too), a compaction's `CompactionEnd` (not given: its failure is the caller's to
    /// say), or the end of the event stream. `cancelled`, before or during the job, cancels it: its
    /// commands are killed, the session kept. [`Busy`] while another job runs.
    pub async fn job(
        &self,
        op: Op,
        sink: &mut dyn Sink,
        cancelled: &CancellationToken,
    ) -> Result<JobEnd, Busy> {
        let Ok(mut events) = self.events.try_lock() else {
            return Err(Busy);
        };
        let _ = self.apply(op).await;
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
                return Ok(JobEnd::Closed);
            };
            if !event.ends_job() {
                sink.event(event).await;
                continue;
            }
            if let Event::CompactionEnd { error } = event {
                return Ok(JobEnd::Compacted(error));
            }
            let reply = Reply::of(&event);
            sink.event(event).await;
            return Ok(JobEnd::Ran(reply));
        }
    }

    /// Gives `sink` the events of the scheduled jobs' runs as they come, until no job is
    /// left and none runs, or `cancelled` (which cancels the run under way, if one is, and
    /// ends the wait). The last run's outcome (completed when none ran); [`Busy`] while a
    /// prompt runs.
    pub async fn stay(
        &self,
        sink: &mut dyn Sink,
        cancelled: &CancellationToken,
    ) -> Result<RunOutcome, Busy> {
        let mut outcome = RunOutcome::Completed;
        // Whether a scheduled run is under way, by its events (the status may still say the
        // last run runs for a moment after its `Result`).
        let mut running = false;
        loop {
            let Ok(mut events) = self.events.try_lock() else {
                return Err(Busy);
            };
            let settled = async { self.controller.lock().await.settled().await };
            tokio::select! {
                biased;
                () = cancelled.cancelled() => {
                    drop(events);
                    if !running {
                        return Ok(outcome);
                    }
                    let never = CancellationToken::new();
                    return Ok(match self.job(Op::Cancel, sink, &never).await? {
                        JobEnd::Ran(reply) => reply.outcome,
                        JobEnd::Compacted(_) | JobEnd::Closed => RunOutcome::Cancelled,
                    });
                }
                event = events.recv() => match event {
                    None => return Ok(outcome),
                    Some(event) => {
                        match &event {
                            Event::ScheduledPrompt { .. } => running = true,
                            Event::Result { outcome: ended, .. } => {
                                (outcome, running) = (*ended, false);
                            }
                            _ => {}
                        }
                        sink.event(event).await;
                    }
                },
                () = settled => return Ok(outcome),
            }
        }
    }

    /// Ends the session (saved as it is) and gives `sink` what is still to come, until every
    /// sender of its events is gone; its setup stays (see [`Setup::close`]).
    pub async fn finish(self, sink: &mut dyn Sink) {
        self.end().await;
        let Self {
            controller, events, ..
        } = self;
        drop(controller);
        let mut events = events.into_inner();
        while let Some(event) = events.recv().await {
            sink.event(event).await;
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
    /// The reply a `Result` event says (a failure for any other event).
    fn of(event: &Event) -> Self {
        match event {
            Event::Result {
                outcome,
                text,
                turns,
                usage,
                cost_usd,
                ..
            } => Self {
                outcome: *outcome,
                text: text.clone(),
                turns: *turns,
                usage: *usage,
                cost_usd: *cost_usd,
            },
            _ => Self::failed("the session ended before its answer"),
        }
    }

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
