//! The `bash` tool: runs a command with `bash -c` in a working directory that persists across
//! calls and never leaves the workspace.
//!
//! The final directory is learned from an `EXIT` trap that writes `$PWD` to a pipe rein
//! opened itself ([`cwd`]), and followed only when the guard finds it a folder inside the
//! workspace.

pub(crate) mod confine;
mod cwd;
mod facts;
mod job_tools;
mod jobs;
mod launch;
mod paths;
mod process;
mod terminal;
mod tree;

use launch::Launch;
use process::OutputFile;

pub use job_tools::{BashOutput, BashOutputArgs, KillShell, KillShellArgs};
pub use jobs::{JobError, JobRead, JobStatus, JobSummary, Jobs};
pub use terminal::{
    CodexWriteStdin, CodexWriteStdinArgs, DEFAULT_MAX_TERMINALS, ExecCommand, ExecCommandArgs,
    TerminalError, TerminalSummary, Terminals, WriteStdin, WriteStdinArgs,
};

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use rein_sandbox::Policy;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::output::DEFAULT_OUTPUT_LIMIT;
use crate::{
    CallFacts, CallKind, CommandRun, Effect, Lean, ToolContext, ToolDetails, ToolOutput, TypedTool,
    WorkspaceGuard,
};
use process::{Ending, Finished};

/// Timeout when the call gives none.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// Largest timeout a call may ask for; larger values are clamped to it.
pub const MAX_TIMEOUT_MS: u64 = 600_000;

/// Arguments of `bash`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct BashArgs {
    /// The command line.
    pub command: String,
    /// Timeout, ms.
    // Claude Code's Bash calls it `timeout` (also milliseconds); models trained on it send that.
    #[serde(alias = "timeout")]
    pub timeout_ms: Option<u64>,
    /// After a sandbox refusal: why to run unsandboxed (the user is asked).
    pub unsandboxed: Option<String>,
    /// Run as a background job.
    pub run_in_background: Option<bool>,
    /// Run as a terminal session (see write_stdin).
    pub tty: Option<bool>,
    /// With tty: ms to wait.
    pub yield_ms: Option<u64>,
}

/// The `bash` tool. Holds the shell's working directory between calls.
#[derive(Debug)]
pub struct Bash {
    /// The directory the next command starts in, with the workspace root it was reached
    /// from (a session that moved into or out of a worktree starts at its new root); `None`
    /// means the workspace root.
    cwd: Mutex<Option<(PathBuf, PathBuf)>>,
    /// Most bytes of output kept.
    output_limit: usize,
    /// Most bytes of data memory a proven read-only line may take.
    read_only_memory: u64,
    /// Which repository configurations the classifier found inert, kept between calls.
    repo_memo: crate::shell::RepoMemo,
    /// The session's interactive commands (`tty: true`).
    terminals: Terminals,
}

/// Data memory (`ulimit -d`) for a line that runs without asking because it is proven
/// read-only: generous for any reader, a ceiling for one that never stops growing.
pub const READ_ONLY_MEMORY_LIMIT: u64 = 4 * 1024 * 1024 * 1024;

impl Default for Bash {
    fn default() -> Self {
        Self::new()
    }
}

impl Bash {
    /// A `bash` tool starting in the workspace root, keeping at most
    /// [`DEFAULT_OUTPUT_LIMIT`] bytes of output.
    pub fn new() -> Self {
        Self::with_output_limit(DEFAULT_OUTPUT_LIMIT)
    }

    /// A `bash` tool keeping at most `limit` bytes of output (head and tail).
    pub fn with_output_limit(limit: usize) -> Self {
        Self {
            cwd: Mutex::new(None),
            output_limit: limit,
            read_only_memory: READ_ONLY_MEMORY_LIMIT,
            repo_memo: crate::shell::RepoMemo::default(),
            terminals: Terminals::default(),
        }
    }

    /// The table its interactive sessions are in.
    pub(crate) fn terminals(&self) -> &Terminals {
        &self.terminals
    }

    /// Starts interactive sessions in `terminals` (shared with `write_stdin` and
    /// `kill_shell`).
    pub fn with_terminals(mut self, terminals: Terminals) -> Self {
        self.terminals = terminals;
        self
    }

    /// Lets proven read-only lines take at most `bytes` of data memory instead of
    /// [`READ_ONLY_MEMORY_LIMIT`].
    pub fn with_read_only_memory(mut self, bytes: u64) -> Self {
        self.read_only_memory = bytes;
        self
    }

    /// Where the next command starts, and a note when the remembered directory is gone.
    fn start_dir(&self, guard: &WorkspaceGuard) -> (PathBuf, Option<String>) {
        let remembered = (self.cwd.lock().unwrap_or_else(|e| e.into_inner()).clone())
            .filter(|(root, _)| root == guard.root())
            .map(|(_, dir)| dir);
        match remembered {
            Some(dir) if guard.contains(&dir) && dir.is_dir() => (dir, None),
            Some(dir) if guard.contains(&dir) => {
                let note = format!(
                    "[note: the working directory {} no longer exists; ran in the workspace root]",
                    guard.display(&dir)
                );
                (guard.root().to_path_buf(), Some(note))
            }
            _ => (guard.root().to_path_buf(), None),
        }
    }

    /// Whether the permission check proved `line` read-only (the facts it saw), or, when
    /// the tool runs without the engine, whether it is.
    fn proven_read_only(&self, line: &str, start: &Path, ctx: &ToolContext) -> bool {
        match &ctx.facts {
            Some(facts) if facts.shell.as_ref().is_some_and(|s| s.line == line) => {
                facts.effect == Effect::ReadOnly
            }
            _ => crate::shell::is_read_only_with(
                &crate::shell::analyse(line),
                &ctx.guard,
                start,
                &rein_fs::lstats::Lstats::default(),
                &self.repo_memo,
            ),
        }
    }

    fn remember(&self, dir: PathBuf, guard: &WorkspaceGuard) {
        *self.cwd.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((guard.root().to_path_buf(), dir));
    }
}

#[async_trait]
impl TypedTool for Bash {
    type Args = BashArgs;
    const NAME: &'static str = "bash";
    const CLAUDE_NAME: &'static str = "Bash";
    const KIND: CallKind = CallKind::Shell;
    // `unsandboxed` is named by the note of a refused command; `run_in_background` needs
    // bash_output, which the lean profile leaves out.
    const LEAN: Lean = Lean::Short {
        description: "Runs a command with `bash -c` in the workspace; `cd` carries over. Stdin is \
                      closed. Timeout 120 s unless timeout_ms says (at most 600000). Long \
                      output keeps its head and tail.",
        arguments: &[("command", ""), ("timeout_ms", "")],
    };

    fn description(&self) -> String {
        format!(
            "Runs a command with `bash -c`; returns stdout and stderr combined. The working \
             directory starts at the workspace root and persists across calls (`cd` carries \
             over) but cannot leave the workspace. Stdin is closed: for a prompt or a REPL use \
             `tty: true`. Timeout {} s unless `timeout_ms` says (at most {MAX_TIMEOUT_MS}); the \
             command and its children are then killed. Long output keeps its head and tail \
             (the whole is saved to a file the result names). Commands may run in an OS \
             sandbox that keeps writes in the workspace and blocks the network; when the \
             result says it refused something the command truly needs, call again with \
             `unsandboxed` set to a one-line reason (the user is asked). For servers and \
             watchers use `run_in_background: true`: you get a job id at once, bash_output \
             reads its output, kill_shell ends it; jobs end with the session, and you are \
             told when one ends.",
            DEFAULT_TIMEOUT_MS / 1000
        )
    }

    /// Mutating unless proven otherwise: proving a line read-only
    /// ([`crate::shell::is_read_only`]) needs the workspace guard and the shell's directory,
    /// which [`TypedTool::describe`] has and sets in the call's facts.
    fn effect(&self, _args: &BashArgs) -> Effect {
        Effect::Mutating
    }

    fn describe(&self, args: &BashArgs, guard: &WorkspaceGuard, facts: &mut CallFacts) {
        let (cwd, _) = self.start_dir(guard);
        facts::describe(&args.command, &cwd, guard, &self.repo_memo, facts);
        facts.unsandboxed = args.unsandboxed.clone();
    }

    async fn run(&self, args: BashArgs, ctx: &ToolContext) -> ToolOutput {
        let timeout_ms = args
            .timeout_ms
            .unwrap_or(DEFAULT_TIMEOUT_MS)
            .clamp(1, MAX_TIMEOUT_MS);
        let launch = match self.prepare(&args, ctx) {
            Ok(launch) => launch,
            Err(refusal) => return refusal,
        };
        if args.tty == Some(true) {
            let yield_ms = args.yield_ms.unwrap_or(terminal::START_YIELD_MS);
            // An interactive session lives for the call's timeout, ten minutes unless given.
            let lifetime = args
                .timeout_ms
                .unwrap_or(MAX_TIMEOUT_MS)
                .clamp(1, MAX_TIMEOUT_MS);
            return terminal::start(
                launch,
                terminal::Start {
                    line: &args.command,
                    lifetime: Duration::from_millis(lifetime),
                    unsandboxed: args.unsandboxed.clone(),
                    wait: Duration::from_millis(yield_ms.clamp(1, terminal::MAX_YIELD_MS)),
                    limit: self.output_limit,
                    style: terminal::Style::Rein,
                },
                &self.terminals,
                ctx,
            )
            .await;
        }
        if args.run_in_background == Some(true) {
            return launch.start_job(&args.command, ctx);
        }
        self.run_to_end(launch, timeout_ms, ctx).await
    }
}

impl Bash {
    /// Runs a prepared call until it ends, times out or is cancelled, and renders the result.
    async fn run_to_end(&self, launch: Launch, timeout_ms: u64, ctx: &ToolContext) -> ToolOutput {
        let Launch {
            command,
            start,
            tmp,
            report,
            policy,
            mut notes,
        } = launch;
        let timeout = Duration::from_millis(timeout_ms);
        let limit = self.output_limit.min(ctx.budget.content_room());
        let save = match ctx.budget.new_save_path(Self::NAME) {
            Some(Ok(path)) => OutputFile::create(path, ctx.hidden_env.clone()).ok(),
            _ => None,
        };
        let finished = match process::run_in_group(
            command,
            timeout,
            &ctx.cancel,
            limit,
            save,
            ctx.progress.clone(),
        )
        .await
        {
            Ok(finished) => finished,
            Err(e) => return ToolOutput::error(format!("cannot start bash: {e}")),
        };
        drop(tmp);
        notes.extend(confine::disarm_git(policy, ctx));
        if let Some(note) = self.follow_cwd(report.take(), &start, &ctx.guard) {
            notes.push(note);
        }
        notes.extend(ctx.budget.take_dropped_note());
        if matches!(finished.ending, Ending::Exited(code) if code != 0)
            && let Some(note) =
                rein_sandbox::refusal_note(policy, &finished.output, &start, ctx.guard.root())
        {
            notes.push(note);
        }
        render(finished, (timeout_ms, policy), &notes)
    }

    /// Adopts the directory the shell reported ending in when the guard finds it inside the
    /// workspace and not a file; otherwise keeps `start` and returns a note saying so.
    fn follow_cwd(
        &self,
        reported: Option<String>,
        start: &Path,
        guard: &WorkspaceGuard,
    ) -> Option<String> {
        // The trap did not run (killed, `exec`, the command's own EXIT trap).
        let reported = reported?;
        let end = Path::new(&reported)
            .is_absolute()
            .then(|| guard.resolve_read(&reported).ok())
            .flatten()
            // A folder removed meanwhile is remembered: the next call says it is gone.
            .filter(|end| guard.contains(end) && !end.is_file());
        if let Some(end) = end {
            self.remember(end, guard);
            return None;
        }
        self.remember(start.to_path_buf(), guard);
        Some(format!(
            "[note: the command ended in {}, outside the workspace; the working directory \
             stays {}]",
            reported.chars().take(200).collect::<String>(),
            guard.display(start)
        ))
    }
}

/// The model's view of a finished run: output, then how it ended, then notes; with the output
/// itself as details.
fn render(finished: Finished, run: (u64, Policy), notes: &[String]) -> ToolOutput {
    let (timeout_ms, policy) = run;
    let run = CommandRun {
        stdout: finished.output.clone(),
        stderr: String::new(),
        interrupted: matches!(finished.ending, Ending::TimedOut | Ending::Cancelled),
        exit_code: match finished.ending {
            Ending::Exited(code) => Some(code),
            _ => None,
        },
        sandbox: policy,
    };
    let mut text = finished.output;
    let status = match finished.ending {
        Ending::Exited(0) => None,
        Ending::Exited(code) => Some(format!("[exit code {code}]")),
        Ending::Signalled(signal) => Some(format!("[killed by signal {signal}]")),
        Ending::TimedOut => Some(format!(
            "[timed out after {}; {}]",
            seconds(timeout_ms),
            killed(&finished.survivors)
        )),
        Ending::Cancelled => Some(format!(
            "[interrupted by the user; {}]",
            killed(&finished.survivors)
        )),
    };
    let is_error = status.is_some();
    if text.is_empty() && !is_error {
        text.push_str("(no output)");
    }
    for line in status.iter().chain(notes) {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(line);
    }
    ToolOutput {
        text,
        is_error,
        details: None,
        media: Vec::new(),
    }
    .with_details(ToolDetails::Command(run))
}

/// What a kill did: all of it, or honestly which processes are still running.
fn killed(survivors: &[i32]) -> String {
    if survivors.is_empty() {
        return "the command and its child processes were killed".to_string();
    }
    let pids: Vec<String> = survivors.iter().map(i32::to_string).collect();
    format!(
        "the command was killed, but processes it started are still running (pid {})",
        pids.join(", ")
    )
}

/// `120000` → `120 s`, `500` → `0.5 s`.
fn seconds(ms: u64) -> String {
    // f64's Display prints no trailing zeros and is exact for any sane timeout.
    format!("{} s", ms as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kill_that_left_processes_running_says_which() {
        assert_eq!(
            killed(&[]),
            "the command and its child processes were killed"
        );
        assert_eq!(
            killed(&[41, 42]),
            "the command was killed, but processes it started are still running (pid 41, 42)"
        );
    }
}
