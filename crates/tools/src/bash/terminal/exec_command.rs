//! codex's `exec_command`, for the models trained on it: a command starts in a session,
//! returns what it printed after `yield_time_ms`, and, while it runs, a session ID that
//! `write_stdin` types into or polls. rein runs every such command in a pseudo-terminal
//! (with or without `tty`), through `bash`'s checks, sandbox and limits.

use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::interact::{MAX_YIELD_MS, Style};
use super::tools::{quote, tokens_to_bytes};
use crate::bash::{Bash, BashArgs, MAX_TIMEOUT_MS};
use crate::{
    CallFacts, CallKind, Effect, Lean, ToolContext, ToolOutput, TypedTool, WorkspaceGuard,
};

/// codex's default wait for output.
const DEFAULT_YIELD_MS: u64 = 10_000;
/// codex's shortest wait.
const MIN_YIELD_MS: u64 = 250;

/// Arguments of `exec_command` (codex's shape).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ExecCommandArgs {
    /// Shell command.
    pub cmd: String,
    /// Working directory; default the workspace's.
    pub workdir: Option<String>,
    /// Shell binary (rein runs bash).
    pub shell: Option<String>,
    /// Login shell semantics (ignored).
    pub login: Option<bool>,
    /// Allocate a PTY.
    pub tty: Option<bool>,
    /// Wait before returning (ms, default 10000).
    pub yield_time_ms: Option<u64>,
    /// Output budget in tokens.
    pub max_output_tokens: Option<u64>,
    /// `use_default` or `require_escalated` (run outside the sandbox; the user is asked).
    pub sandbox_permissions: Option<String>,
    /// With `require_escalated`: why, for the user.
    pub justification: Option<String>,
}

/// `exec_command`: runs a command in an interactive session.
#[derive(Debug, Default)]
pub struct ExecCommand {
    bash: Bash,
}

impl ExecCommand {
    /// The tool, starting sessions in `terminals`.
    pub fn new(terminals: super::Terminals) -> Self {
        Self {
            bash: Bash::new().with_terminals(terminals),
        }
    }

    /// The call as `bash` sees it.
    fn as_bash(args: &ExecCommandArgs) -> BashArgs {
        let command = match args.workdir.as_deref().filter(|d| !d.is_empty()) {
            Some(dir) => format!("cd {} && {}", quote(dir), args.cmd),
            None => args.cmd.clone(),
        };
        let escalated = args.sandbox_permissions.as_deref() == Some("require_escalated");
        BashArgs {
            command,
            timeout_ms: None,
            unsandboxed: escalated.then(|| {
                args.justification
                    .clone()
                    .filter(|j| !j.trim().is_empty())
                    .unwrap_or_else(|| "the model asked to run it outside the sandbox".into())
            }),
            run_in_background: None,
            tty: Some(true),
            yield_ms: None,
        }
    }
}

#[async_trait]
impl TypedTool for ExecCommand {
    type Args = ExecCommandArgs;
    const NAME: &'static str = "exec_command";
    const CLAUDE_NAME: &'static str = "Bash";
    const KIND: CallKind = CallKind::Shell;
    // Small windows get `bash` alone.
    const LEAN: Lean = Lean::LeftOut;

    fn description(&self) -> String {
        "Runs a command in a PTY, returning output or a session ID for ongoing interaction."
            .to_string()
    }

    fn effect(&self, _args: &ExecCommandArgs) -> Effect {
        Effect::Mutating
    }

    fn describe(&self, args: &ExecCommandArgs, guard: &WorkspaceGuard, facts: &mut CallFacts) {
        self.bash.describe(&Self::as_bash(args), guard, facts);
    }

    async fn run(&self, args: ExecCommandArgs, ctx: &ToolContext) -> ToolOutput {
        let bash_args = Self::as_bash(&args);
        let launch = match self.bash.prepare(&bash_args, ctx) {
            Ok(launch) => launch,
            Err(refusal) => return refusal,
        };
        let wait = args
            .yield_time_ms
            .unwrap_or(DEFAULT_YIELD_MS)
            .clamp(MIN_YIELD_MS, MAX_YIELD_MS);
        super::start(
            launch,
            super::Start {
                line: &bash_args.command,
                lifetime: Duration::from_millis(MAX_TIMEOUT_MS),
                unsandboxed: bash_args.unsandboxed.clone(),
                wait: Duration::from_millis(wait),
                limit: tokens_to_bytes(args.max_output_tokens),
                style: Style::Codex,
            },
            self.bash.terminals(),
            ctx,
        )
        .await
    }
}
