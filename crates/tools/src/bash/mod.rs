//! The `bash` tool: runs a command with `bash -c` in a working directory that persists across
//! calls and never leaves the workspace.
//!
//! The final directory is learned from an `EXIT` trap that writes `$PWD` to a private temp
//! file; a trap keeps the shell's exit status, so the code reported is the command's own.

mod facts;
mod paths;
mod process;

use process::OutputFile;

use std::fs::OpenOptions;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::output::DEFAULT_OUTPUT_LIMIT;
use crate::{
    CallFacts, CallKind, CommandRun, Effect, ToolContext, ToolDetails, ToolOutput, TypedTool,
    WorkspaceGuard,
};
use process::{Ending, Finished};

/// Timeout when the call gives none.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// Largest timeout a call may ask for; larger values are clamped to it.
pub const MAX_TIMEOUT_MS: u64 = 600_000;

/// Environment variable naming the file the exit trap writes the final directory to.
const CWD_FILE_VAR: &str = "__REIN_CWD_FILE";
/// First line of every script: report the final directory, whatever way the shell exits.
const CWD_TRAP: &str = r#"trap 'builtin printf "%s" "$PWD" > "$__REIN_CWD_FILE"' EXIT"#;

/// Arguments of `bash`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct BashArgs {
    /// The command to run with `bash -c`.
    pub command: String,
    /// Timeout in milliseconds (default 120000, at most 600000).
    pub timeout_ms: Option<u64>,
}

/// The `bash` tool. Holds the shell's working directory between calls.
#[derive(Debug, Default)]
pub struct Bash {
    /// The directory the next command starts in; `None` means the workspace root.
    cwd: Mutex<Option<PathBuf>>,
    /// Distinguishes the temp files of calls made by this tool.
    calls: AtomicU64,
    /// Most bytes of output kept.
    output_limit: usize,
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
            calls: AtomicU64::new(0),
            output_limit: limit,
        }
    }

    /// Where the next command starts, and a note when the remembered directory is gone.
    fn start_dir(&self, guard: &WorkspaceGuard) -> (PathBuf, Option<String>) {
        let remembered = self.cwd.lock().unwrap_or_else(|e| e.into_inner()).clone();
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
            _ => crate::shell::is_read_only(&crate::shell::analyse(line), &ctx.guard, start),
        }
    }

    fn remember(&self, dir: PathBuf) {
        *self.cwd.lock().unwrap_or_else(|e| e.into_inner()) = Some(dir);
    }

    /// A fresh private file for the exit trap to write to.
    fn cwd_file(&self) -> std::io::Result<CwdFile> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path = std::env::temp_dir().join(format!(
            "rein-cwd-{}-{}-{nanos}",
            std::process::id(),
            self.calls.fetch_add(1, Ordering::Relaxed)
        ));
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)?;
        Ok(CwdFile(path))
    }
}

#[async_trait]
impl TypedTool for Bash {
    type Args = BashArgs;
    const NAME: &'static str = "bash";
    const CLAUDE_NAME: &'static str = "Bash";
    const KIND: CallKind = CallKind::Shell;

    fn description(&self) -> String {
        format!(
            "Runs a command with `bash -c` and returns its combined stdout and stderr. \
             The working directory starts at the workspace root and persists across calls \
             (`cd` carries over) but cannot leave the workspace. Stdin is closed, so commands \
             must not wait for input. Default timeout {} s; `timeout_ms` may raise it to at most \
             {MAX_TIMEOUT_MS} (larger values are clamped); on timeout the command and all its \
             child processes are killed. Long output keeps its head and tail. Use read_file \
             rather than cat to read files.",
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
        facts::describe(&args.command, &cwd, guard, facts);
    }

    async fn run(&self, args: BashArgs, ctx: &ToolContext) -> ToolOutput {
        let timeout_ms = args
            .timeout_ms
            .unwrap_or(DEFAULT_TIMEOUT_MS)
            .clamp(1, MAX_TIMEOUT_MS);
        let (start, mut notes) = match self.start_dir(&ctx.guard) {
            (dir, Some(note)) => (dir, vec![note]),
            (dir, None) => (dir, vec![]),
        };
        let cwd_file = match self.cwd_file() {
            Ok(file) => file,
            Err(e) => return ToolOutput::error(format!("cannot start bash: temp file: {e}")),
        };
        let mut command = tokio::process::Command::new("bash");
        command
            .arg("-c")
            .arg(format!("{CWD_TRAP}\n{}", args.command))
            .current_dir(&start)
            .env(CWD_FILE_VAR, &cwd_file.0)
            // Nothing can answer a pager or a prompt.
            .env("PAGER", "cat")
            .env("GIT_PAGER", "cat")
            .env("GIT_TERMINAL_PROMPT", "0");
        ctx.hidden_env.apply(&mut command);
        if self.proven_read_only(&args.command, &start, ctx) {
            // Run as proven: git may not start a hook-like program from the repository's
            // config, no pager or `LESSOPEN` preprocessor runs.
            let env = crate::shell::read_only_env();
            for (key, value) in env.set {
                command.env(key, value);
            }
            for key in env.remove {
                command.env_remove(key);
            }
        }
        let timeout = Duration::from_millis(timeout_ms);
        let limit = self.output_limit.min(ctx.budget.content_room());
        let save = match ctx.budget.new_save_path(Self::NAME) {
            Some(Ok(path)) => OutputFile::create(path).ok(),
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
        if let Some(note) = self.follow_cwd(&cwd_file.0, &start, &ctx.guard) {
            notes.push(note);
        }
        render(finished, timeout_ms, &notes)
    }
}

/// Most of the cwd file read: a path, far below this.
const MAX_CWD_FILE_BYTES: u64 = 64 * 1024;

impl Bash {
    /// Adopts the directory the shell ended in when it is inside the workspace; otherwise keeps
    /// `start` and returns a note saying so.
    fn follow_cwd(&self, file: &Path, start: &Path, guard: &WorkspaceGuard) -> Option<String> {
        // The command could have put anything there: read it as any file rein reads itself.
        let reported = crate::read_regular(file, MAX_CWD_FILE_BYTES).ok()??;
        if reported.is_empty() {
            return None; // The trap did not run (killed, `exec`, own EXIT trap).
        }
        let end = std::fs::canonicalize(&reported).unwrap_or_else(|_| PathBuf::from(&reported));
        if guard.contains(&end) {
            self.remember(end);
            None
        } else {
            self.remember(start.to_path_buf());
            Some(format!(
                "[note: the command ended in {reported}, outside the workspace; \
                 the working directory stays {}]",
                guard.display(start)
            ))
        }
    }
}

/// The model's view of a finished run: output, then how it ended, then notes; with the output
/// itself as details.
fn render(finished: Finished, timeout_ms: u64, notes: &[String]) -> ToolOutput {
    let run = CommandRun {
        stdout: finished.output.clone(),
        stderr: String::new(),
        interrupted: matches!(finished.ending, Ending::TimedOut | Ending::Cancelled),
    };
    let mut text = finished.output;
    let status = match finished.ending {
        Ending::Exited(0) => None,
        Ending::Exited(code) => Some(format!("[exit code {code}]")),
        Ending::Signalled(signal) => Some(format!("[killed by signal {signal}]")),
        Ending::TimedOut => Some(format!(
            "[timed out after {}; the command and its child processes were killed]",
            seconds(timeout_ms)
        )),
        Ending::Cancelled => Some(
            "[interrupted by the user; the command and its child processes were killed]"
                .to_string(),
        ),
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
    }
    .with_details(ToolDetails::Command(run))
}

/// `120000` → `120 s`, `500` → `0.5 s`.
fn seconds(ms: u64) -> String {
    // f64's Display prints no trailing zeros and is exact for any sane timeout.
    format!("{} s", ms as f64 / 1000.0)
}

/// The exit trap's temp file, removed when the call ends (or is abandoned).
struct CwdFile(PathBuf);

impl Drop for CwdFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
