//! A scheduled job as front ends and the event stream see it: a cron job (`cron_create`,
//! `/loop`) or a wake-up (`schedule_wakeup`).

use serde::{Deserialize, Serialize};

/// What makes a job fire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// A 5-field cron expression in local time.
    Cron,
    /// A wake-up at a set time (`schedule_wakeup`).
    Wakeup,
}

/// One scheduled job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScheduledJob {
    /// The job's id (`cron_delete` and `/tasks stop` take it).
    pub id: String,
    /// A cron job or a wake-up.
    pub kind: JobKind,
    /// The cron expression (a cron job's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cron: Option<String>,
    /// The prompt queued into the session when it fires.
    pub prompt: String,
    /// Whether it fires again after firing (until deleted or expired).
    pub recurring: bool,
    /// Whether it is kept across restarts of rein in the workspace.
    pub durable: bool,
    /// When it fires next: local time, RFC 3339.
    pub next_fire: String,
    /// When a recurring job fires for the last time at the latest (local time, RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// Why a wake-up was set for this delay, as the model said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}
