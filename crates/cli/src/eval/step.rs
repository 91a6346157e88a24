//! A task's own commands (its setup and its check), run as the agent's `bash` calls run: in
//! the run's copy, inside the OS sandbox, every process killed at the time limit.

use std::path::Path;
use std::time::{Duration, Instant};

use rein_tools::ToolRegistry;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// How a command ended.
#[derive(Debug)]
pub struct Step {
    /// Exit 0.
    pub passed: bool,
    /// Killed at the time limit.
    pub timed_out: bool,
    /// What it printed, with how it ended (the `bash` tool's result).
    pub output: String,
}

/// The longest a `bash` call may run; a longer limit is cut to it.
const MAX_STEP: Duration = Duration::from_secs(600);

/// How a task's command runs.
pub struct Confined<'a> {
    /// The OS sandbox's policy.
    pub sandbox: &'a str,
    /// The variables it does not inherit besides the one list of secrets (the gateway key
    /// `--api-key-env` names).
    pub hidden: &'a [String],
    /// Its time limit.
    pub limit: Duration,
}

/// Runs `line` with `bash` in `dir` as `how` says. `cancel` (the whole evaluation's) kills it
/// too.
pub async fn run(dir: &Path, line: &str, how: Confined<'_>, cancel: &CancellationToken) -> Step {
    let cancel = cancel.child_token();
    let limit = how.limit;
    let policy = crate::arg_values::sandbox_flag(how.sandbox);
    let made =
        policy.and_then(|policy| crate::tool_cmd::context(dir, cancel.clone(), Some(policy)));
    let ctx = match made {
        Ok(ctx) => {
            let names = ctx.hidden_env.names().iter().chain(how.hidden).cloned();
            rein_tools::ToolContext {
                hidden_env: rein_tools::HiddenEnv::with(names.collect::<Vec<_>>()),
                ..ctx
            }
        }
        Err(exit) => {
            return Step {
                passed: false,
                timed_out: false,
                output: exit.message,
            };
        }
    };
    let registry = ToolRegistry::builtin_only(|name| name == "bash");
    let limit = limit.min(MAX_STEP);
    let millis = u64::try_from(limit.as_millis()).unwrap_or(u64::MAX).max(1);
    let input = json!({"command": line, "timeout_ms": millis});
    let started = Instant::now();
    let output = registry.call("bash", input, &ctx).await;
    let timed_out = output.is_error && started.elapsed() >= limit;
    Step {
        passed: !output.is_error,
        timed_out,
        output: output.text,
    }
}
