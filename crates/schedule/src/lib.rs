//! Schedules: cron jobs (`cron_create`, `/loop`) and wake-ups (`schedule_wakeup`) that queue
//! prompts into a session. The schedule reads the time from a [`Clock`] (a test's
//! [`FakeClock`] moves it), hands out what fell due ([`Schedule::due`]), and keeps durable
//! jobs in a file ([`DurablePlace`]) restored at the next start in the workspace.

mod clock;
mod cron;
mod job;
pub mod loops;
mod store;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use chrono::{DateTime, Local};
use rein_protocol::ScheduledJob;
use tokio::sync::watch;

pub use clock::{Clock, FakeClock, SharedClock, Sleep, SystemClock};
pub use cron::{CronError, CronExpr};
pub use job::{Fired, Keep, RECURRING_LIFETIME, Repeat};
pub use store::{DurablePlace, SaveWrapper, StoreError};

use job::{Job, Trigger};
use store::Store;

/// Most jobs a session keeps at once.
pub const MAX_JOBS: usize = 50;
/// The shortest and the longest delay of a wake-up (Claude Code's clamp).
pub const WAKEUP_RANGE: (u64, u64) = (60, 3600);
/// Longest prompt a job keeps, in bytes.
pub const MAX_PROMPT: usize = 64 * 1024;

/// A cron job to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CronRequest {
    /// The 5-field expression, local time.
    pub cron: String,
    /// The prompt queued at each firing.
    pub prompt: String,
    /// At every match, or the next only.
    pub repeat: Repeat,
    /// In memory, or saved for later starts.
    pub keep: Keep,
}

/// What [`Schedule::create`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum Created {
    /// A new job.
    New(ScheduledJob),
    /// A job with the same expression and prompt was there: its 7 days start again.
    Renewed(ScheduledJob),
}

/// Why a job was not made or deleted.
#[derive(Debug, thiserror::Error)]
pub enum ScheduleError {
    /// The expression is not a 5-field cron expression.
    #[error(transparent)]
    Cron(#[from] CronError),
    /// The prompt is empty or too long.
    #[error("the prompt must be 1 to {MAX_PROMPT} bytes")]
    Prompt,
    /// The session has as many jobs as it may.
    #[error("the session already has {MAX_JOBS} jobs; delete some first (cron_delete)")]
    Full,
    /// No job by that id.
    #[error("no scheduled job {0}; cron_list shows the jobs")]
    Unknown(String),
    /// Durable jobs cannot be kept here.
    #[error("durable jobs cannot be kept: {0}; make a session-only job instead")]
    NotDurable(String),
    /// The jobs file could not be written (nothing changed).
    #[error("cannot save the durable jobs: {0}")]
    Save(#[source] std::io::Error),
}

/// Where durable jobs go.
enum Durable {
    /// Not taken yet: they are taken ([`Schedule::claim`]) when the schedule is served or
    /// the model touches them, so a run that neither serves nor touches them leaves them to
    /// a session that does.
    Unclaimed {
        place: DurablePlace,
        /// Whether "another rein runs them" was said already.
        told: bool,
    },
    /// This process keeps them in the store.
    Kept(Store),
    /// They cannot be kept: why.
    Refused(String),
}

struct State {
    jobs: Vec<Job>,
    durable: Durable,
    /// Jobs fired ([`Schedule::take_due`]) whose runs have not yet been said to end
    /// ([`Schedule::ran`]): a one-shot job that left the list is still work to wait for.
    firing: usize,
}

struct Inner {
    clock: SharedClock,
    state: Mutex<State>,
    /// Ticks at every change of the jobs.
    changes: watch::Sender<u64>,
}

/// One session's jobs. Clones share them.
#[derive(Clone)]
pub struct Schedule(Arc<Inner>);

impl std::fmt::Debug for Schedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schedule")
            .field("jobs", &self.jobs().len())
            .finish()
    }
}

impl Schedule {
    /// A schedule whose jobs all end with the session (durable ones are refused, saying
    /// `why`).
    pub fn in_memory(clock: SharedClock, why: &str) -> Self {
        Self::with(clock, Vec::new(), Durable::Refused(why.to_string()))
    }

    /// A schedule keeping durable jobs at `place`; the ones saved there come in when it is
    /// claimed ([`Schedule::claim`]). Nothing is read or locked before.
    pub fn durable(clock: SharedClock, place: &DurablePlace) -> Self {
        let durable = Durable::Unclaimed {
            place: place.clone(),
            told: false,
        };
        Self::with(clock, Vec::new(), durable)
    }

    /// Takes the durable jobs, when this schedule keeps some and has not yet: the lock, then
    /// the jobs saved (added to the session's). Notes on what was left out (a job expired or
    /// missed, the file unreadable, another rein running them — said once; taking them is
    /// tried again at the next claim).
    pub fn claim(&self) -> Vec<String> {
        let mut state = self.state();
        let Durable::Unclaimed { place, told } = &state.durable else {
            return Vec::new();
        };
        let (place, told) = (place.clone(), *told);
        match Store::open(&place, self.0.clock.now()) {
            Ok((store, jobs, notes)) => {
                let added = !jobs.is_empty();
                for job in jobs {
                    if !state.jobs.iter().any(|j| j.id == job.id) {
                        state.jobs.push(job);
                    }
                }
                state.durable = Durable::Kept(store);
                if added {
                    self.0.changes.send_modify(|n| *n += 1);
                }
                notes
            }
            Err(StoreError::Elsewhere) => {
                state.durable = Durable::Unclaimed {
                    place: place.clone(),
                    told: true,
                };
                // Said only when there are jobs it leaves out.
                match !told && place.file.exists() {
                    true => vec![format!(
                        "durable scheduled jobs are not run here: {}",
                        StoreError::Elsewhere
                    )],
                    false => Vec::new(),
                }
            }
            Err(error) => {
                let note = format!("durable scheduled jobs are not run here: {error}");
                state.durable = Durable::Refused(error.to_string());
                vec![note]
            }
        }
    }

    fn with(clock: SharedClock, jobs: Vec<Job>, durable: Durable) -> Self {
        Self(Arc::new(Inner {
            clock,
            state: Mutex::new(State {
                jobs,
                durable,
                firing: 0,
            }),
            changes: watch::Sender::new(0),
        }))
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.0.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The clock the schedule reads.
    pub fn clock(&self) -> &SharedClock {
        &self.0.clock
    }

    /// Makes a cron job, or renews the one with the same expression and prompt.
    pub fn create(&self, request: CronRequest) -> Result<Created, ScheduleError> {
        let expr = CronExpr::parse(&request.cron)?;
        if request.keep == Keep::Durable {
            self.claim();
        }
        check_prompt(&request.prompt)?;
        let now = self.0.clock.now();
        let next = expr.next_after(now).ok_or_else(|| CronError {
            text: request.cron.clone(),
            why: "it matches no time".into(),
        })?;
        let mut state = self.state();
        let same = state.jobs.iter().position(|job| {
            matches!(&job.trigger, Trigger::Cron(e, r) if e.as_str() == expr.as_str()
                && *r == request.repeat)
                && job.prompt == request.prompt
                && job.keep == request.keep
        });
        let job = Job {
            id: same.map_or_else(job::new_id, |at| state.jobs[at].id.clone()),
            trigger: Trigger::Cron(expr, request.repeat),
            prompt: request.prompt,
            keep: request.keep,
            created: now,
            next,
            reason: None,
        };
        let view = job.view();
        let mut jobs = state.jobs.clone();
        match same {
            Some(at) => jobs[at] = job,
            None if jobs.len() >= MAX_JOBS => return Err(ScheduleError::Full),
            None => jobs.push(job),
        }
        self.commit(&mut state, jobs)?;
        Ok(match same {
            Some(_) => Created::Renewed(view),
            None => Created::New(view),
        })
    }

    /// Sets the session's wake-up: `prompt` is queued after `delay_seconds`, clamped to
    /// [`WAKEUP_RANGE`]. A wake-up set earlier is replaced (one self-paced loop at a time).
    pub fn wakeup(
        &self,
        delay_seconds: f64,
        prompt: &str,
        reason: &str,
    ) -> Result<ScheduledJob, ScheduleError> {
        check_prompt(prompt)?;
        let (low, high) = WAKEUP_RANGE;
        let delay = match delay_seconds.is_finite() {
            true => delay_seconds.clamp(low as f64, high as f64).round() as u64,
            false => low,
        };
        let now = self.0.clock.now();
        let mut state = self.state();
        let mut jobs: Vec<Job> = state
            .jobs
            .iter()
            .filter(|job| !matches!(job.trigger, Trigger::Once))
            .cloned()
            .collect();
        if jobs.len() >= MAX_JOBS {
            return Err(ScheduleError::Full);
        }
        let job = Job {
            id: job::new_id(),
            trigger: Trigger::Once,
            prompt: prompt.to_string(),
            keep: Keep::Session,
            created: now,
            next: now + Duration::from_secs(delay),
            reason: Some(reason.trim().to_string()).filter(|r| !r.is_empty()),
        };
        let view = job.view();
        jobs.push(job);
        self.commit(&mut state, jobs)?;
        Ok(view)
    }

    /// Deletes job `id`.
    pub fn delete(&self, id: &str) -> Result<ScheduledJob, ScheduleError> {
        let mut state = self.state();
        let at = state
            .jobs
            .iter()
            .position(|job| job.id == id.trim())
            .ok_or_else(|| ScheduleError::Unknown(id.to_string()))?;
        let mut jobs = state.jobs.clone();
        let gone = jobs.remove(at);
        self.commit(&mut state, jobs)?;
        Ok(gone.view())
    }

    /// Every job, the next to fire first.
    pub fn jobs(&self) -> Vec<ScheduledJob> {
        let state = self.state();
        let mut jobs: Vec<&Job> = state.jobs.iter().collect();
        jobs.sort_by_key(|job| job.next);
        jobs.into_iter().map(Job::view).collect()
    }

    /// Whether no job is left.
    pub fn is_empty(&self) -> bool {
        self.state().jobs.is_empty()
    }

    /// Whether nothing is left to wait for: no job scheduled, and none fired whose run has
    /// not been said to end ([`Schedule::ran`]) — what `rein exec --stay` waits for.
    pub fn is_done(&self) -> bool {
        let state = self.state();
        state.jobs.is_empty() && state.firing == 0
    }

    /// The run of one job [`Schedule::take_due`] fired has ended (or will not happen).
    pub fn ran(&self) {
        let mut state = self.state();
        state.firing = state.firing.saturating_sub(1);
        drop(state);
        self.0.changes.send_modify(|n| *n += 1);
    }

    /// When the next job fires.
    pub fn next_fire(&self) -> Option<DateTime<Local>> {
        self.state().jobs.iter().map(|job| job.next).min()
    }

    /// Fires every job whose time has come, by the clock: what each queues, in the order
    /// they were due. A recurring job fires once however many of its times passed. Each one
    /// fired keeps the schedule from being done ([`Schedule::is_done`]) until its run is said
    /// to end ([`Schedule::ran`]), so a one-shot job that fell due is never taken for nothing
    /// left.
    pub fn take_due(&self) -> Vec<Fired> {
        let now = self.0.clock.now();
        let mut state = self.state();
        if !state.jobs.iter().any(|job| job.next <= now) {
            return Vec::new();
        }
        let mut due: Vec<Job> = Vec::new();
        let mut kept: Vec<Job> = Vec::new();
        for job in std::mem::take(&mut state.jobs) {
            match job.next <= now {
                true => due.push(job),
                false => kept.push(job),
            }
        }
        due.sort_by_key(|job| job.next);
        let durable_fired = due.iter().any(|job| job.keep == Keep::Durable);
        let mut fired = Vec::new();
        for job in due {
            let (what, stays) = job.fire(now);
            fired.push(what);
            kept.extend(stays);
        }
        state.jobs = kept;
        state.firing += fired.len();
        // A durable job that fired changed (a one-shot is gone); should the file not take
        // it, the session goes on with what fired (the file is written at the next change).
        if let (true, Durable::Kept(store)) = (durable_fired, &state.durable) {
            let _ = store.save(state.jobs.iter());
        }
        self.0.changes.send_modify(|n| *n += 1);
        fired
    }

    /// Waits until a job falls due, then fires what is due (see [`Schedule::take_due`]).
    /// Never resolves while the schedule is empty and nothing is added.
    pub async fn due(&self) -> Vec<Fired> {
        let mut changes = self.0.changes.subscribe();
        loop {
            changes.borrow_and_update();
            let fired = self.take_due();
            if !fired.is_empty() {
                return fired;
            }
            match self.next_fire() {
                Some(at) => {
                    tokio::select! {
                        _ = self.0.clock.sleep_until(at) => {}
                        _ = changes.changed() => {}
                    }
                }
                None => {
                    if changes.changed().await.is_err() {
                        std::future::pending::<()>().await;
                    }
                }
            }
        }
    }

    /// Ticks at every change of the jobs (made, deleted, fired).
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.0.changes.subscribe()
    }

    /// Saves `jobs` when a durable one is among them or was, then takes them.
    fn commit(&self, state: &mut State, jobs: Vec<Job>) -> Result<(), ScheduleError> {
        // Only a change of the durable jobs touches their file.
        let durable = |jobs: &[Job]| -> Vec<(String, DateTime<Local>)> {
            jobs.iter()
                .filter(|job| job.keep == Keep::Durable)
                .map(|job| (job.id.clone(), job.created))
                .collect()
        };
        if durable(&state.jobs) != durable(&jobs) {
            match &state.durable {
                Durable::Kept(store) => store.save(jobs.iter()).map_err(ScheduleError::Save)?,
                Durable::Refused(why) => return Err(ScheduleError::NotDurable(why.clone())),
                Durable::Unclaimed { .. } => {
                    return Err(ScheduleError::NotDurable(StoreError::Elsewhere.to_string()));
                }
            }
        }
        state.jobs = jobs;
        self.0.changes.send_modify(|n| *n += 1);
        Ok(())
    }
}

fn check_prompt(prompt: &str) -> Result<(), ScheduleError> {
    match prompt.trim().is_empty() || prompt.len() > MAX_PROMPT {
        true => Err(ScheduleError::Prompt),
        false => Ok(()),
    }
}

#[cfg(test)]
mod tests;
