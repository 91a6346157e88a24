//! Scheduled jobs in a controlled session. Every change of the schedule is reported
//! (`Event::Schedule`); what falls due runs as the session's next job: it waits for the
//! agent, so it starts after the running turn and never inside it, says what fired
//! (`Event::ScheduledPrompt`) and ends with its own `Result`. Esc cancels it like any run.
//! Both tasks stop when the session is replaced or the controller goes.

use std::sync::Arc;

use rein_protocol::Event;
use rein_schedule::Schedule;
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use super::status::Publisher;
use crate::emitter::Emitter;
use crate::{Agent, EventSender};

/// The cancellation token of whatever job runs now, shared by the controller (which
/// cancels it) and whoever starts a job.
pub(super) type CancelSlot = Arc<std::sync::Mutex<CancellationToken>>;

/// Puts a fresh token in `slot` and gives it back.
pub(super) fn fresh(slot: &CancelSlot) -> CancellationToken {
    let token = CancellationToken::new();
    *slot.lock().unwrap_or_else(|e| e.into_inner()) = token.clone();
    token
}

/// The tasks serving one agent's schedule; they stop when this is dropped.
pub(super) struct Runner {
    stop: CancellationToken,
}

impl Drop for Runner {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// What the runner needs of the controller.
pub(super) struct Session {
    pub(super) agent: Arc<Mutex<Agent>>,
    pub(super) events: EventSender,
    pub(super) status: Publisher,
    pub(super) cancel: CancelSlot,
}

/// Whether the jobs that fall due run here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Serve {
    /// Only their changes are reported: nothing stays to run them (`rein exec` without
    /// `--stay`), and a job taken off the schedule would be lost.
    Report,
    /// They run as the session's jobs.
    Run,
}

/// Starts reporting `schedule`'s changes and, when `serve` says so, running what falls due
/// on `session`'s agent.
pub(super) fn start(schedule: Schedule, session: Session, serve: Serve) -> Runner {
    let stop = CancellationToken::new();
    tokio::spawn(report(
        schedule.clone(),
        session.events.clone(),
        stop.clone(),
    ));
    if serve == Serve::Run {
        tokio::spawn(run_due(schedule, session, stop.clone()));
    }
    Runner { stop }
}

async fn report(schedule: Schedule, events: EventSender, stop: CancellationToken) {
    let mut changes = schedule.subscribe();
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            changed = changes.changed() => if changed.is_err() { return },
        }
        events.emit(Event::Schedule {
            jobs: schedule.jobs(),
        });
    }
}

/// The jobs of one firing not yet said to have run: each is said as its run ends, and the rest
/// when the runner stops before running them.
struct Fired<'a> {
    schedule: &'a Schedule,
    left: usize,
}

impl Fired<'_> {
    /// One job taken: said to have run when the returned guard drops.
    fn next(&mut self) -> Ran<'_> {
        self.left = self.left.saturating_sub(1);
        Ran(self.schedule)
    }
}

impl Drop for Fired<'_> {
    fn drop(&mut self) {
        for _ in 0..self.left {
            self.schedule.ran();
        }
    }
}

/// Says one fired job has run (or will not) when dropped.
struct Ran<'a>(&'a Schedule);

impl Drop for Ran<'_> {
    fn drop(&mut self) {
        self.0.ran();
    }
}

/// How often a served schedule tries again to take the workspace's durable jobs while
/// another rein holds them.
const RECLAIM: std::time::Duration = std::time::Duration::from_secs(60);

async fn run_due(schedule: Schedule, session: Session, stop: CancellationToken) {
    loop {
        let fired = tokio::select! {
            () = stop.cancelled() => return,
            fired = schedule.due() => fired,
            () = tokio::time::sleep(RECLAIM) => {
                for note in schedule.claim() {
                    session.events.error(note);
                }
                continue;
            }
        };
        // Each fired job is work `--stay` waits for until it is said to have run (or not).
        let mut left = Fired {
            schedule: &schedule,
            left: fired.len(),
        };
        for job in fired {
            let _one = left.next();
            let mut agent = tokio::select! {
                () = stop.cancelled() => return,
                agent = session.agent.lock() => agent,
            };
            // The session was replaced while this waited: the agent is another session's.
            if stop.is_cancelled() {
                return;
            }
            let cancel = fresh(&session.cancel);
            session.status.job_started();
            session.events.emit(Event::ScheduledPrompt {
                id: job.id.clone(),
                prompt: job.prompt.clone(),
            });
            if let Some(note) = &job.expired {
                session.events.error(note.clone());
            }
            agent
                .run(
                    &rein_tools::schedule::fired_prompt(&job),
                    &session.events,
                    cancel,
                )
                .await;
            session.status.job_ended(&agent);
        }
    }
}
