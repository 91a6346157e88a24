//! The session's status as the controller publishes it: a `watch` channel holding the
//! latest [`SessionStatus`], updated when an op changes it (model, mode, effort, the session)
//! and when a job starts and ends (usage, context, running or idle). Queries read it without
//! waiting for the job that holds the agent.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::watch;

use super::SessionStatus;
use crate::Agent;

/// The sending side, shared by the controller and its jobs.
#[derive(Clone)]
pub(super) struct Publisher {
    sender: Arc<watch::Sender<SessionStatus>>,
    /// Jobs started and not yet ended: a prompt queued after a `Result` may start before the
    /// last job's task has said it ended, and the session is running until both have.
    jobs: Arc<AtomicUsize>,
}

impl Publisher {
    /// Publishes `agent`'s status, idle.
    pub(super) fn new(agent: &Agent) -> Self {
        let (sender, _) = watch::channel(SessionStatus::of(agent));
        Self {
            sender: Arc::new(sender),
            jobs: Arc::default(),
        }
    }

    /// The status as last published.
    pub(super) fn current(&self) -> SessionStatus {
        self.sender.borrow().clone()
    }

    /// A receiver of every status published from now on.
    pub(super) fn subscribe(&self) -> watch::Receiver<SessionStatus> {
        self.sender.subscribe()
    }

    /// Changes what `change` changes, keeping the rest.
    pub(super) fn update(&self, change: impl FnOnce(&mut SessionStatus)) {
        self.sender.send_modify(change);
    }

    /// Publishes `agent`'s status (running while a job is under way) and gives it back.
    pub(super) fn publish(&self, agent: &Agent) -> SessionStatus {
        let mut status = SessionStatus::of(agent);
        self.sender.send_modify(|published| {
            status.running = self.jobs.load(Ordering::SeqCst) > 0;
            *published = status.clone();
        });
        status
    }

    /// Whether a job started and has not yet said it ended.
    pub(super) fn running(&self) -> bool {
        self.jobs.load(Ordering::SeqCst) > 0
    }

    /// A job was started: running.
    pub(super) fn job_started(&self) {
        self.sender.send_modify(|published| {
            self.jobs.fetch_add(1, Ordering::SeqCst);
            published.running = true;
        });
    }

    /// A job ended with `agent` as it left it: its usage and context, idle unless another
    /// job was started meanwhile.
    pub(super) fn job_ended(&self, agent: &Agent) {
        let mut status = SessionStatus::of(agent);
        self.sender.send_modify(|published| {
            let left = self.jobs.fetch_sub(1, Ordering::SeqCst).saturating_sub(1);
            status.running = left > 0;
            *published = status;
        });
    }
}
