//! `bash_output` and `kill_shell`: the model's handles on its background shells.

use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::jobs::JobStatus;
use crate::{CallFacts, Effect, ToolContext, ToolOutput, TypedTool, WorkspaceGuard};

/// How long a blocking read waits when the call gives no timeout.
const DEFAULT_WAIT_MS: u64 = 30_000;
/// Longest a blocking read may wait.
const MAX_WAIT_MS: u64 = 600_000;
/// How often a blocking read looks for news.
const POLL: Duration = Duration::from_millis(50);

/// Arguments of `bash_output`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct BashOutputArgs {
    /// The job id `bash` returned (`bg_1`).
    pub id: String,
    /// Keep only output lines matching this regular expression (the others are consumed).
    pub filter: Option<String>,
    /// Wait for new output or for the job to end instead of returning at once.
    pub block: Option<bool>,
    /// With `block`: most milliseconds to wait (default 30000, at most 600000).
    pub timeout_ms: Option<u64>,
}

/// Reads a background job's new output.
#[derive(Debug, Default)]
pub struct BashOutput;

#[async_trait]
impl TypedTool for BashOutput {
    type Args = BashOutputArgs;
    const NAME: &'static str = "bash_output";
    // Rarely used; not worth its definition in a small window.
    const LEAN: crate::Lean = crate::Lean::LeftOut;
    const CLAUDE_NAME: &'static str = "BashOutput";

    fn description(&self) -> String {
        "Returns what a background job printed since the last read and whether it still \
         runs. `block: true` waits for new output or its end (up to `timeout_ms`): wait this \
         way, not by calling again and again. `filter` keeps matching lines."
            .to_string()
    }

    /// It only reads a job rein started.
    fn effect(&self, _args: &BashOutputArgs) -> Effect {
        Effect::ReadOnly
    }

    fn describe(&self, args: &BashOutputArgs, _guard: &WorkspaceGuard, facts: &mut CallFacts) {
        facts.summary = args.id.clone();
    }

    async fn run(&self, args: BashOutputArgs, ctx: &ToolContext) -> ToolOutput {
        let filter = match args.filter.as_deref().map(regex::Regex::new).transpose() {
            Ok(filter) => filter,
            Err(e) => return ToolOutput::error(format!("the filter is not a valid regex: {e}")),
        };
        if args.block == Some(true) {
            let wait = Duration::from_millis(
                args.timeout_ms
                    .unwrap_or(DEFAULT_WAIT_MS)
                    .clamp(1, MAX_WAIT_MS),
            );
            let until = tokio::time::Instant::now() + wait;
            loop {
                match ctx.services.get::<crate::Jobs>().poll(&args.id) {
                    Err(error) => return ToolOutput::error(error.to_string()),
                    Ok((JobStatus::Running, false)) if tokio::time::Instant::now() < until => {}
                    Ok(_) => break,
                }
                tokio::select! {
                    () = ctx.cancel.cancelled() => break,
                    () = tokio::time::sleep(POLL) => {}
                }
            }
        }
        let limit = ctx.budget.content_room();
        let read = match ctx.services.get::<crate::Jobs>().read(
            &args.id,
            filter.as_ref(),
            limit,
            &ctx.hidden_env,
        ) {
            Ok(read) => read,
            Err(error) => return ToolOutput::error(error.to_string()),
        };
        let mut text = if read.text.is_empty() {
            "(no new output)\n".to_string()
        } else {
            read.text
        };
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!("[{}: {}", args.id, read.status));
        if read.more > 0 {
            text.push_str(&format!(
                "; {} more bytes of output follow: read again",
                read.more
            ));
        }
        text.push(']');
        ToolOutput::ok(text)
    }
}

/// Arguments of `kill_shell`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct KillShellArgs {
    /// A job id (`bg_1`) or a session number.
    pub id: String,
}

/// Ends a background job or an interactive session, and everything it started.
#[derive(Debug, Default)]
pub struct KillShell {
    terminals: super::Terminals,
}

impl KillShell {
    /// The tool, ending also the interactive sessions of `terminals`.
    pub fn new(terminals: super::Terminals) -> Self {
        Self { terminals }
    }
}

#[async_trait]
impl TypedTool for KillShell {
    type Args = KillShellArgs;
    const NAME: &'static str = "kill_shell";
    // Rarely used; not worth its definition in a small window.
    const LEAN: crate::Lean = crate::Lean::LeftOut;
    const CLAUDE_NAME: &'static str = "KillShell";

    fn description(&self) -> String {
        "Stops a background job or a tty session (its number as id) and everything it started."
            .to_string()
    }

    /// It only ends a process rein started for this session.
    fn effect(&self, _args: &KillShellArgs) -> Effect {
        Effect::ReadOnly
    }

    fn describe(&self, args: &KillShellArgs, _guard: &WorkspaceGuard, facts: &mut CallFacts) {
        facts.summary = args.id.clone();
    }

    async fn run(&self, args: KillShellArgs, ctx: &ToolContext) -> ToolOutput {
        if let Some(id) = super::Terminals::number(&args.id) {
            return match self.terminals.kill(id).await {
                Ok(JobStatus::Running) => ToolOutput::error(format!(
                    "session {id} was told to stop but is still running"
                )),
                Ok(JobStatus::Killed) => ToolOutput::ok(format!("session {id} killed")),
                Ok(ended) => ToolOutput::ok(format!("session {id} has ended: {ended}")),
                Err(error) => ToolOutput::error(error.to_string()),
            };
        }
        match ctx.services.get::<crate::Jobs>().kill(&args.id).await {
            Ok(JobStatus::Killed) => ToolOutput::ok(format!("{} killed", args.id)),
            Ok(JobStatus::Running) => {
                ToolOutput::error(format!("{} was told to stop but is still running", args.id))
            }
            Ok(ended) => ToolOutput::ok(format!("{} had already ended: {ended}", args.id)),
            Err(error) => ToolOutput::error(error.to_string()),
        }
    }
}
