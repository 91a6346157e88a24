//! Carries out the UI's actions on the engine: runs and compactions as background jobs on the
//! one agent, session replacement, model and mode switches.

use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use rein_engine::permissions::Policy;
use rein_engine::{Agent, Approver, EventSender};
use tokio::sync::Mutex;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::app::Status;
use crate::runner::SessionHost;

/// How long quitting waits for a cancelled turn to wind down (tools killed, results recorded).
const WIND_DOWN: Duration = Duration::from_secs(5);

/// The agent and what the UI does with it.
pub struct Driver {
    agent: Arc<Mutex<Agent>>,
    policy: Arc<StdMutex<Policy>>,
    host: Arc<dyn SessionHost>,
    events: EventSender,
    /// Compactions report their end here (runs end with their `Result` event).
    compacted: UnboundedSender<Result<(), String>>,
    approver: Option<Arc<dyn Approver>>,
    cancel: CancellationToken,
    /// Whether the agent has the OS sandbox (fixed for the invocation).
    sandboxed: bool,
}

impl Driver {
    /// Drives `agent`, which asks `approver` (if any) about calls the policy asks about.
    pub fn new(
        mut agent: Agent,
        host: Arc<dyn SessionHost>,
        events: EventSender,
        compacted: UnboundedSender<Result<(), String>>,
        approver: Option<Arc<dyn Approver>>,
    ) -> Self {
        if let Some(approver) = &approver {
            agent.set_approver(Arc::clone(approver));
        }
        Self {
            sandboxed: agent.sandboxed(),
            policy: agent.policy(),
            agent: Arc::new(Mutex::new(agent)),
            host,
            events,
            compacted,
            approver,
            cancel: CancellationToken::new(),
        }
    }

    /// The status line's data for the current agent (waits for a running job).
    pub async fn status(&self) -> Status {
        status_of(&*self.agent.lock().await)
    }

    /// The transcript so far (waits for a running job).
    pub async fn transcript(&self) -> Vec<rein_protocol::Message> {
        self.agent.lock().await.transcript().to_vec()
    }

    /// Starts a run of `prompt` in the background; it ends with a `Result` event.
    pub fn run(&mut self, prompt: String) {
        self.cancel = CancellationToken::new();
        let cancel = self.cancel.clone();
        let agent = Arc::clone(&self.agent);
        let events = self.events.clone();
        tokio::spawn(async move {
            let mut agent = agent.lock().await;
            agent.run(&prompt, &events, cancel).await;
        });
    }

    /// Starts a compaction in the background; its end is reported on the `compacted` channel.
    pub fn compact(&mut self, focus: Option<String>) {
        self.cancel = CancellationToken::new();
        let cancel = self.cancel.clone();
        let agent = Arc::clone(&self.agent);
        let events = self.events.clone();
        let done = self.compacted.clone();
        tokio::spawn(async move {
            let mut agent = agent.lock().await;
            let result = agent
                .compact("manual", focus.as_deref(), &events, &cancel)
                .await;
            drop(agent);
            let _ = done.send(result);
        });
    }

    /// Cancels the running job.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// Whether `auto` mode can be used (shell commands can run in the OS sandbox).
    pub fn sandboxed(&self) -> bool {
        self.sandboxed
    }

    /// The live permission policy.
    pub fn policy(&self) -> Arc<StdMutex<Policy>> {
        Arc::clone(&self.policy)
    }

    /// Ends the current session and continues with `agent`.
    /// The model and permission mode chosen in the UI (`/model`, Shift+Tab) carry over.
    pub async fn replace(&mut self, mut agent: Agent, reason: &str) -> Status {
        if let Some(approver) = &self.approver {
            agent.set_approver(Arc::clone(approver));
        }
        self.cancel();
        let mut current = self.agent.lock().await;
        if agent.model() != current.model() {
            // The model was usable a moment ago; should the host refuse it now, the new
            // agent keeps its own.
            let _ = self.host.switch_model(&mut agent, current.model());
        }
        if let (Ok(mode), Ok(mut policy)) = (
            current.policy().lock().map(|p| p.mode),
            agent.policy().lock(),
        ) {
            policy.mode = mode;
        }
        current.end_session(reason, &self.events).await;
        *current = agent;
        self.policy = current.policy();
        status_of(&current)
    }

    /// A new session from the host.
    pub async fn new_session(&mut self) -> Result<Status, String> {
        let agent = self.host.new_session()?;
        Ok(self.replace(agent, "clear").await)
    }

    /// The stored session `id`, continued.
    pub async fn resume(&mut self, id: &str) -> Result<Status, String> {
        let agent = self.host.resume(id)?;
        Ok(self.replace(agent, "resume").await)
    }

    /// Switches the model; gives the new status.
    pub async fn switch_model(&self, model: &str) -> Result<Status, String> {
        let mut agent = self.agent.lock().await;
        self.host.switch_model(&mut agent, model)?;
        Ok(status_of(&agent))
    }

    /// Sets how hard the model thinks from the next request on.
    pub async fn set_effort(&self, effort: Option<rein_engine::Effort>) {
        self.agent.lock().await.set_effort(effort);
    }

    /// The host (for the session list).
    pub fn host(&self) -> &Arc<dyn SessionHost> {
        &self.host
    }

    /// Cancels what runs, waits for it to wind down, and runs the session-end hooks.
    pub async fn shutdown(&self, reason: &str) {
        self.cancel();
        if let Ok(agent) = tokio::time::timeout(WIND_DOWN, self.agent.lock()).await {
            agent.end_session(reason, &self.events).await;
        }
    }
}

/// The status line's data for `agent`.
pub fn status_of(agent: &Agent) -> Status {
    let (usage, cost_usd) = agent.session_totals();
    let mode = agent.policy().lock().map(|p| p.mode).unwrap_or_default();
    Status {
        session_id: agent.session_id().to_string(),
        model: agent.model().to_string(),
        mode,
        usage,
        cost_usd,
        context_tokens: rein_engine::context::estimate(agent.transcript()),
        context_window: agent.context_window(),
        effort: agent.effort(),
    }
}
