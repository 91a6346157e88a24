//! One job: what fires it, what it queues, and what firing does to it.

use chrono::{DateTime, Local, SecondsFormat};
use rein_protocol::{JobKind, ScheduledJob};

use crate::CronExpr;

/// How long a recurring job lives: it fires one last time after this, then is deleted.
pub const RECURRING_LIFETIME: chrono::TimeDelta = chrono::TimeDelta::days(7);

/// What fires a job.
#[derive(Debug, Clone)]
pub(crate) enum Trigger {
    /// At every match (`Recurring`) or at the next match only.
    Cron(CronExpr, Repeat),
    /// Once, at the job's `next` (a wake-up).
    Once,
}

/// Whether a cron job fires again after firing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repeat {
    /// At every match, until deleted or expired.
    Recurring,
    /// At the next match only, then it is deleted.
    Once,
}

/// Whether a job outlives the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// In memory: it ends with the session.
    Session,
    /// Saved: restored at the next start of rein in the workspace.
    Durable,
}

/// A job as the schedule keeps it.
#[derive(Debug, Clone)]
pub(crate) struct Job {
    pub(crate) id: String,
    pub(crate) trigger: Trigger,
    pub(crate) prompt: String,
    pub(crate) keep: Keep,
    pub(crate) created: DateTime<Local>,
    pub(crate) next: DateTime<Local>,
    pub(crate) reason: Option<String>,
}

/// A job that fired: its prompt is the session's next turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fired {
    /// The job's id.
    pub id: String,
    /// The prompt it queues.
    pub prompt: String,
    /// Said when this was the job's last firing because it expired.
    pub expired: Option<String>,
}

impl Job {
    pub(crate) fn recurring(&self) -> bool {
        matches!(self.trigger, Trigger::Cron(_, Repeat::Recurring))
    }

    /// When a recurring job stops.
    pub(crate) fn expires(&self) -> Option<DateTime<Local>> {
        self.recurring().then(|| self.created + RECURRING_LIFETIME)
    }

    /// Fires the job at `now` (its `next` has come): what it queues, and the job as it
    /// stays, if it stays.
    pub(crate) fn fire(mut self, now: DateTime<Local>) -> (Fired, Option<Self>) {
        let mut fired = Fired {
            id: self.id.clone(),
            prompt: self.prompt.clone(),
            expired: None,
        };
        let again = match &self.trigger {
            Trigger::Cron(expr, Repeat::Recurring) => expr.next_after(now),
            _ => None,
        };
        if let (Some(_), Some(expires)) = (again, self.expires())
            && now >= expires
        {
            fired.expired = Some(format!(
                "job {} fired for the last time: recurring jobs end 7 days after they are \
                 made (create it again to renew it)",
                self.id
            ));
            return (fired, None);
        }
        match again {
            Some(next) => {
                self.next = next;
                (fired, Some(self))
            }
            None => (fired, None),
        }
    }

    /// The job as front ends see it.
    pub(crate) fn view(&self) -> ScheduledJob {
        let (kind, cron) = match &self.trigger {
            Trigger::Cron(expr, _) => (JobKind::Cron, Some(expr.as_str().to_string())),
            Trigger::Once => (JobKind::Wakeup, None),
        };
        ScheduledJob {
            id: self.id.clone(),
            kind,
            cron,
            prompt: self.prompt.clone(),
            recurring: self.recurring(),
            durable: self.keep == Keep::Durable,
            next_fire: stamp(self.next),
            expires_at: self.expires().map(stamp),
            reason: self.reason.clone(),
        }
    }
}

/// `at` as RFC 3339 in local time, to the second.
pub(crate) fn stamp(at: DateTime<Local>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, false)
}

/// A fresh job id: 8 hex digits.
pub(crate) fn new_id() -> String {
    format!("{:08x}", fastrand::u32(..))
}
