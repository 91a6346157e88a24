//! Claude Code's `statusLine` command: run with the session's state as JSON on its stdin
//! (Claude Code's shape), its first line shown on the status line in place of the model and
//! the numbers. Run again when the state changes, at most every [`MIN_INTERVAL`]; one that
//! takes longer than [`TIMEOUT`] is killed and its line kept as it was.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use rein_engine::SessionStatus;
use serde_json::json;
use tokio::sync::{mpsc, watch};

/// Shortest time between two runs.
pub const MIN_INTERVAL: Duration = Duration::from_millis(300);
/// Longest a run may take.
pub const TIMEOUT: Duration = Duration::from_secs(2);

/// The command a user configured for the status line.
#[derive(Debug, Clone)]
pub struct StatusCommand {
    /// The shell command line.
    pub command: String,
    /// Where it runs (the workspace).
    pub cwd: PathBuf,
    /// Variables it must not see (the provider keys).
    pub hidden: rein_engine::hooks::HiddenEnv,
}

/// Runs `command` for each new status `status` publishes; the lines come on the receiver.
/// The task ends when the receiver is dropped.
pub(crate) fn spawn(
    command: StatusCommand,
    mut status: watch::Receiver<SessionStatus>,
) -> mpsc::UnboundedReceiver<String> {
    let (lines, receiver) = mpsc::unbounded_channel();
    let started = Instant::now();
    tokio::spawn(async move {
        let mut last_run: Option<Instant> = None;
        loop {
            if let Some(at) = last_run {
                tokio::time::sleep(MIN_INTERVAL.saturating_sub(at.elapsed())).await;
            }
            let current = status.borrow_and_update().clone();
            last_run = Some(Instant::now());
            let input = input(&current, &command.cwd, started.elapsed());
            let finished = rein_engine::hooks::run_command(
                &command.command,
                &command.cwd,
                &[],
                &command.hidden,
                &input,
                TIMEOUT,
            )
            .await;
            if !finished.timed_out {
                let first = finished.stdout.lines().next().unwrap_or_default();
                if lines.send(first.trim_end().to_string()).is_err() {
                    return;
                }
            }
            if status.changed().await.is_err() || lines.is_closed() {
                return;
            }
        }
    });
    receiver
}

/// What Claude Code gives its status line command.
fn input(status: &SessionStatus, cwd: &std::path::Path, elapsed: Duration) -> String {
    let cwd = cwd.display().to_string();
    json!({
        "hook_event_name": "Status",
        "session_id": status.session_id,
        "transcript_path": "",
        "cwd": cwd,
        "model": {"id": status.model, "display_name": status.model},
        "workspace": {"current_dir": cwd, "project_dir": cwd},
        "version": env!("CARGO_PKG_VERSION"),
        "output_style": {"name": "default"},
        "cost": {
            "total_cost_usd": status.cost_usd.unwrap_or(0.0),
            "total_duration_ms": u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
            "total_api_duration_ms": 0,
            "total_lines_added": 0,
            "total_lines_removed": 0,
        },
        "exceeds_200k_tokens": status.context_tokens > 200_000,
        "context_window": {
            "context_window_size": status.context_window,
            "current_usage": status.context_tokens,
        },
    })
    .to_string()
}
