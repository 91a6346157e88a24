//! The session controller: the one place a session's lifecycle lives. A front end (the TUI,
//! `rein exec`, later an editor) sends it [`Op`]s — submit a prompt, cancel, compact, switch
//! model, mode or effort, start or resume a session, shut down — and reads the agent's
//! [`rein_protocol::Event`]s; it never touches the agent, the policy or the context estimate
//! itself. Where agents come from (configuration, the session store) is the front end's
//! [`AgentFactory`].
//!
//! Runs and compactions are jobs: they run in the background on the one agent, so the front
//! end keeps drawing and can cancel. A run ends with its `Result` event, a compaction with its
//! `CompactionEnd` event: a front end learns everything from the one event stream. What a
//! status line shows is published on a `watch` channel (`status.rs`), so asking for it never
//! waits for a job.

mod answers;
mod rewind;
mod scheduled;
mod status;
mod types;

pub use answers::Answers;

pub use types::{
    AgentFactory, CompactTrigger, ControlError, EndReason, FrontEndError, Op, RewindWhat,
    SessionStatus,
};

use std::sync::Arc;
use std::time::Duration;

use rein_protocol::Event;
use tokio::sync::{Mutex, watch};

use crate::emitter::Emitter;
use crate::subagents::{Background, BackgroundTask};
use crate::{Agent, Approver, EventSender};
use rein_policy::{PermissionMode, Policy};
use status::Publisher;

/// How long a shutdown waits for a cancelled job to wind down (tools killed, results recorded).
const WIND_DOWN: Duration = Duration::from_secs(5);

/// What an [`Op`] gave back, when it gives anything.
#[derive(Debug, Clone)]
pub enum Applied {
    /// Started a job (a run ends with `Result`, a compaction with `CompactionEnd`), or
    /// changed a setting with nothing to report.
    Done,
    /// The session shown changed (new, resumed) or its model did: the new status.
    Status(SessionStatus),
    /// What happened, in words for the user (`bg_1 killed`).
    Said(String),
    /// The session was rewound ([`Op::Rewind`]).
    Rewound {
        /// The forked session's status, when the conversation was rewound.
        status: Option<SessionStatus>,
        /// The prompt rewound to (a front end offers it to edit and send again).
        prompt: String,
        /// One line per file restored or kept.
        files: Vec<String>,
    },
}

/// What a job the controller starts runs.
enum Job {
    /// A user prompt.
    Prompt(String),
    /// The user's own shell command (`!command`).
    Shell(String),
}

/// Drives one agent at a time for a front end.
pub struct Controller {
    agent: Arc<Mutex<Agent>>,
    factory: Arc<dyn AgentFactory>,
    events: EventSender,
    approver: Option<Arc<dyn Approver>>,
    /// The token of the job that runs now (a prompt, a compaction, a scheduled prompt).
    cancel: scheduled::CancelSlot,
    /// The session's scheduled jobs (read while a job holds the agent).
    schedule: rein_schedule::Schedule,
    /// Reports the schedule's changes and runs what falls due (none while the session is
    /// being replaced).
    runner: Option<scheduled::Runner>,
    /// Whether what falls due runs here ([`Controller::serve_schedule`]).
    serve: scheduled::Serve,
    /// Whether the agent has the OS sandbox (fixed for the invocation).
    sandboxed: bool,
    /// The session's background work, reachable while a job holds the agent.
    background: Background,
    /// The agent's live policy, read and switched while a job holds the agent.
    policy: Arc<std::sync::Mutex<Policy>>,
    /// The status, published for queries that must not wait for a job.
    status: Publisher,
    /// Questions answered by [`Op::Answer`], when this controller answers them.
    answers: Option<Arc<Answers>>,
    /// Who answers the model's own questions (`ask_user_question`), for every agent.
    answerer: Option<Arc<dyn crate::questions::Answerer>>,
}

impl Controller {
    /// Drives `agent`, which asks `approver` (if any) about the calls the policy asks about;
    /// `factory` builds the agents of later sessions and switches models.
    pub fn new(
        mut agent: Agent,
        factory: Arc<dyn AgentFactory>,
        events: EventSender,
        approver: Option<Arc<dyn Approver>>,
    ) -> Self {
        if let Some(approver) = &approver {
            agent.set_approver(Arc::clone(approver));
        }
        let events = factory.events(events);
        let status = Publisher::new(&agent);
        let cancel = scheduled::CancelSlot::default();
        let schedule = agent.schedule();
        let sandboxed = agent.sandboxed();
        let background = agent.background();
        let policy = agent.policy();
        let agent = Arc::new(Mutex::new(agent));
        let mut controller = Self {
            sandboxed,
            background,
            policy,
            status,
            answers: None,
            answerer: None,
            agent,
            factory,
            events,
            approver,
            cancel,
            schedule,
            runner: None,
            serve: scheduled::Serve::Report,
        };
        controller.runner = Some(controller.start_runner());
        controller
    }

    /// Lets `answerer` answer the model's questions, in this session and the ones after it.
    pub async fn set_answerer(&mut self, answerer: Arc<dyn crate::questions::Answerer>) {
        self.agent.lock().await.set_answerer(Arc::clone(&answerer));
        self.answerer = Some(answerer);
    }

    /// Drives `agent` for a front end that answers permission questions with [`Op::Answer`]
    /// after each `Event::PermissionRequest`.
    pub fn answering(agent: Agent, factory: Arc<dyn AgentFactory>, events: EventSender) -> Self {
        let answers = Arc::new(Answers::default());
        let approver: Arc<dyn Approver> = answers.clone();
        let mut controller = Self::new(agent, factory, events, Some(approver));
        controller.answers = Some(answers);
        controller
    }

    /// Carries out `op`.
    pub async fn apply(&mut self, op: Op) -> Result<Applied, ControlError> {
        match op {
            Op::Submit(prompt) => self.start(Job::Prompt(prompt)),
            Op::Shell(command) => self.start(Job::Shell(command)),
            Op::Cancel => self.cancel(),
            Op::Compact { focus } => self.compact(focus),
            Op::SetModel(model) => return self.switch_model(&model).await.map(Applied::Status),
            Op::SetMode(mode) => self.set_mode(mode)?,
            Op::AddDir(dir) => {
                let mut agent = self.agent.try_lock().map_err(|_| ControlError::Busy)?;
                let added = self.factory.add_dir(&mut agent, &dir)?;
                return Ok(Applied::Said(format!(
                    "added {} to the workspace: the file tools read and write it, sandboxed \
                     commands see it read-only",
                    added.display()
                )));
            }
            Op::EditRules(edit) => {
                if let Ok(mut policy) = self.policy.lock() {
                    policy.rules.apply(edit);
                }
            }
            Op::SetEffort(effort) => {
                self.agent.lock().await.set_effort(effort);
                self.status.update(|status| status.effort = effort);
            }
            Op::NewSession => {
                let agent = self.factory.new_session()?;
                return Ok(Applied::Status(self.replace(agent, EndReason::Clear).await));
            }
            Op::Resume(id) => {
                let agent = self.factory.resume(&id)?;
                return Ok(Applied::Status(
                    self.replace(agent, EndReason::Resume).await,
                ));
            }
            Op::StopTask(id) => return self.stop_task(&id).await.map(Applied::Said),
            Op::Answer { id, approval } => {
                let answered = self
                    .answers
                    .as_ref()
                    .is_some_and(|answers| answers.answer(&id, approval));
                if !answered {
                    return Err(ControlError::NoQuestion(id));
                }
            }
            Op::Rewind {
                back,
                what,
                restore,
            } => return self.rewind(back, what, restore).await,
            Op::Shutdown(reason) => self.shutdown(reason).await,
        }
        Ok(Applied::Done)
    }

    /// The status line's data as last published: it does not wait for a running job (usage
    /// and context are as the last job left them; the events of a run tell what it adds).
    /// Async only for the callers that awaited it when it did wait.
    pub async fn status(&self) -> SessionStatus {
        self.status.current()
    }

    /// Every status published from now on: a front end that shows the status without
    /// following the events watches this.
    pub fn watch_status(&self) -> watch::Receiver<SessionStatus> {
        self.status.subscribe()
    }

    /// The transcript so far (waits for a running job: the transcript is the agent's).
    pub async fn transcript(&self) -> Vec<rein_protocol::Message> {
        self.agent.lock().await.transcript().to_vec()
    }

    /// What fills the context window (waits for a running job: the transcript is the
    /// agent's).
    pub async fn context_report(&self) -> crate::ContextReport {
        self.agent.lock().await.context_report()
    }

    /// The permission policy as it is now (rules, mode, what was allowed for the session):
    /// the agent's shared policy, read without waiting for a running job. Async only for the
    /// callers that awaited it when it did wait.
    pub async fn policy(&self) -> Option<Policy> {
        self.policy.lock().ok().map(|p| p.clone())
    }

    /// The end of what the background shell `id` printed, for the user (without waiting for
    /// a running job, and without moving what the model reads next).
    pub fn task_output(&self, id: &str) -> Result<String, crate::subagents::StopError> {
        self.background.output(id)
    }

    /// Types `text` into the interactive session `id` (`tty_N`) for the user (without
    /// waiting for a running job).
    pub async fn type_into(&self, id: &str, text: &str) -> Result<(), crate::subagents::StopError> {
        self.background.type_into(id, text).await
    }

    /// The session's background shells and subagents, then its scheduled jobs (without
    /// waiting for a running job): one view of what runs or will.
    pub fn tasks(&self) -> Vec<BackgroundTask> {
        let mut tasks = self.background.list();
        tasks.extend(self.schedule.jobs().iter().map(|job| BackgroundTask {
            id: job.id.clone(),
            label: format!(
                "{} {}",
                job.cron.as_deref().unwrap_or("wake-up"),
                job.prompt.lines().next().unwrap_or("")
            ),
            running: false,
            status: format!("scheduled, next {}", job.next_fire),
        }));
        tasks
    }

    /// Whether `auto` mode can be used (shell commands can run in the OS sandbox).
    pub fn sandboxed(&self) -> bool {
        self.sandboxed
    }

    /// Runs the prompt, or the user's own command, as the session's job.
    fn start(&mut self, job: Job) {
        let cancel = scheduled::fresh(&self.cancel);
        let agent = Arc::clone(&self.agent);
        let events = self.events.clone();
        let status = self.status.clone();
        status.job_started();
        tokio::spawn(async move {
            let mut agent = agent.lock().await;
            match job {
                Job::Prompt(prompt) => {
                    agent.run(&prompt, &events, cancel).await;
                }
                Job::Shell(command) => {
                    agent.run_shell(&command, &events, cancel).await;
                }
            }
            status.job_ended(&agent);
        });
    }

    fn compact(&mut self, focus: Option<String>) {
        let cancel = scheduled::fresh(&self.cancel);
        let agent = Arc::clone(&self.agent);
        let events = self.events.clone();
        let status = self.status.clone();
        status.job_started();
        tokio::spawn(async move {
            let mut agent = agent.lock().await;
            let result = agent
                .compact(CompactTrigger::Manual, focus.as_deref(), &events, &cancel)
                .await;
            status.job_ended(&agent);
            drop(agent);
            events.emit(Event::CompactionEnd {
                error: result.err().map(|e| e.to_string()),
            });
        });
    }

    fn cancel(&self) {
        self.cancel
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .cancel();
    }

    /// Switches the mode at once, also while a job runs (its next call is decided in it).
    fn set_mode(&self, mode: PermissionMode) -> Result<(), ControlError> {
        if mode == PermissionMode::Auto && !self.sandboxed {
            return Err(ControlError::NoSandbox);
        }
        if let Ok(mut policy) = self.policy.lock() {
            policy.mode = mode;
        }
        self.status.update(|status| status.mode = mode);
        Ok(())
    }

    async fn switch_model(&self, model: &str) -> Result<SessionStatus, ControlError> {
        let mut agent = self.agent.lock().await;
        self.factory.switch_model(&mut agent, model)?;
        // What the switch should warn about is said now, not at the next run.
        for message in agent.take_notices() {
            self.events.error(message);
        }
        Ok(self.status.publish(&agent))
    }

    /// Ends the current session and continues with `agent`. The model, permission mode and
    /// rules chosen during the session (`/model`, Shift+Tab, `/permissions`) carry over.
    async fn replace(&mut self, mut agent: Agent, reason: EndReason) -> SessionStatus {
        if let Some(approver) = &self.approver {
            agent.set_approver(Arc::clone(approver));
        }
        if let Some(answerer) = &self.answerer {
            agent.set_answerer(Arc::clone(answerer));
        }
        // The old session's jobs stop before its agent is let go; the new one's start once
        // it is in place.
        self.runner = None;
        let schedule = agent.schedule();
        self.cancel();
        let mut current = self.agent.lock().await;
        if agent.model() != current.model() {
            // The model was usable a moment ago; should the factory refuse it now, the new
            // agent keeps its own.
            let _ = self.factory.switch_model(&mut agent, current.model());
        }
        // The rules too: the user may have changed them (`/permissions allow …`).
        if let (Ok((mode, rules)), Ok(mut policy)) = (
            current.policy().lock().map(|p| (p.mode, p.rules.clone())),
            agent.policy().lock(),
        ) {
            policy.mode = mode;
            policy.rules = rules;
        }
        current.end_session(reason, &self.events).await;
        *current = agent;
        self.schedule = schedule;
        self.runner = Some(self.start_runner());
        self.background = current.background();
        self.policy = current.policy();
        self.status.publish(&current)
    }

    /// Runs the jobs that fall due as the session's jobs, in this session and the ones after
    /// it (a front end that stays to show them: the TUI, `rein exec --stay`). Until then
    /// their changes are only reported.
    pub fn serve_schedule(&mut self) {
        self.serve = scheduled::Serve::Run;
        self.runner = None;
        self.runner = Some(self.start_runner());
    }

    /// The runner of the current session: once served, it takes the workspace's durable
    /// jobs first (what was left out of them said as errors).
    fn start_runner(&self) -> scheduled::Runner {
        if self.serve == scheduled::Serve::Run {
            for note in self.schedule.claim() {
                self.events.error(note);
            }
        }
        scheduled::start(
            self.schedule.clone(),
            scheduled::Session {
                agent: Arc::clone(&self.agent),
                events: self.events.clone(),
                status: self.status.clone(),
                cancel: Arc::clone(&self.cancel),
            },
            self.serve,
        )
    }

    /// Stops background work `id`, or deletes the scheduled job `id`.
    async fn stop_task(&self, id: &str) -> Result<String, ControlError> {
        match self.schedule.delete(id) {
            Ok(job) => return Ok(format!("scheduled job {} deleted", job.id)),
            Err(rein_schedule::ScheduleError::Unknown(_)) => {}
            Err(error) => return Err(ControlError::Task(error.into())),
        }
        self.background
            .stop(id)
            .await
            .map_err(|e| ControlError::Task(e.into()))
    }

    /// The session's scheduled jobs, the next to fire first (without waiting for a running
    /// job).
    pub fn jobs(&self) -> Vec<rein_protocol::ScheduledJob> {
        self.schedule.jobs()
    }

    /// Waits until no job runs and none is scheduled (`rein exec --stay`): resolves at once
    /// when that is so already.
    pub async fn settled(&self) {
        let mut status = self.status.subscribe();
        let mut changes = self.schedule.subscribe();
        loop {
            if !status.borrow_and_update().running && self.schedule.is_done() {
                return;
            }
            tokio::select! {
                _ = status.changed() => {}
                _ = changes.changed() => {}
            }
        }
    }

    /// Cancels what runs, waits for it to wind down, and runs the session-end hooks.
    async fn shutdown(&mut self, reason: EndReason) {
        self.runner = None;
        self.cancel();
        if let Ok(agent) = tokio::time::timeout(WIND_DOWN, self.agent.lock()).await {
            agent.end_session(reason, &self.events).await;
        }
    }
}
