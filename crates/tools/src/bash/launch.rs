//! Getting a `bash` call ready to start: its directory, its private temp folder, the sandbox
//! policy it runs under, the pipe its final directory comes back on, and the command line and
//! environment (a proven read-only line runs with a memory ceiling and git's read-only
//! environment).

use std::path::{Path, PathBuf};

use rein_sandbox::Policy;
use tokio::process::Command;

use super::confine::{self, Attach, Confinement};
use super::{Bash, BashArgs, cwd};
use crate::{ToolContext, ToolOutput};

/// A call ready to start: the command and what must live until it ends.
pub(super) struct Launch {
    /// `bash -c <line>`, wrapped by the sandbox when one applies.
    pub command: Command,
    /// The directory the line starts in.
    pub start: PathBuf,
    /// The call's private temp folder, removed when the call ends.
    pub tmp: tempfile::TempDir,
    /// Where the line's final directory is reported.
    pub report: cwd::CwdReport,
    /// The sandbox policy the line runs under.
    pub policy: Policy,
    /// Notes for the model gathered so far (a vanished directory, a disarmed `commondir`).
    pub notes: Vec<String>,
}

impl Bash {
    /// Builds the call's command, or the error result saying why it cannot start.
    pub(super) fn prepare(&self, args: &BashArgs, ctx: &ToolContext) -> Result<Launch, ToolOutput> {
        let attach = match args.tty {
            Some(true) => Attach::Terminal,
            _ => Attach::Pipes,
        };
        let (start, mut notes) = match self.start_dir(&ctx.guard) {
            (dir, Some(note)) => (dir, vec![note]),
            (dir, None) => (dir, vec![]),
        };
        // A private temp folder, removed with everything in it when the call ends (a killed
        // `sort` leaves its spill files there).
        let tmp = tempfile::Builder::new()
            .prefix("rein-tmp-")
            .tempdir()
            .map_err(|e| ToolOutput::error(format!("cannot start bash: a temp folder: {e}")))?;
        let proven = self.proven_read_only(&args.command, &start, ctx);
        let confinement = match (&args.unsandboxed, proven) {
            (Some(_), _) => Confinement::Unsandboxed,
            (None, true) => Confinement::ProvenReadOnly,
            (None, false) => Confinement::Session,
        };
        let policy = confine::policy(confinement, ctx)
            .map_err(|refusal| ToolOutput::error(refusal.to_string()))?;
        let (report, cwd_fd) = cwd::CwdReport::open()
            .map_err(|e| ToolOutput::error(format!("cannot start bash: a pipe: {e}")))?;
        let mut fds = vec![cwd_fd];
        // A background command of an earlier call may have written one since.
        notes.extend(confine::disarm_git(policy, ctx));
        let mut command = confine::command(policy, ctx, (&start, tmp.path()), attach, &mut fds)
            .map_err(|e| ToolOutput::error(format!("cannot start bash: the sandbox: {e}")))?;
        command_fds::CommandFdExt::fd_mappings(&mut command, fds)
            .map_err(|e| ToolOutput::error(format!("cannot start bash: descriptors: {e}")))?;
        let run = Line {
            text: &args.command,
            start: &start,
            tmp: tmp.path(),
            proven,
            attach,
        };
        self.set_line(&mut command, &run, ctx);
        Ok(Launch {
            command,
            start,
            tmp,
            report,
            policy,
            notes,
        })
    }

    /// Gives `command` the line to run and the environment to run it in.
    fn set_line(&self, command: &mut Command, line: &Line<'_>, ctx: &ToolContext) {
        // A line that runs without asking gets a memory ceiling (`tail` of an endless file).
        let ceiling = if line.proven {
            format!("ulimit -d {} 2>/dev/null\n", self.read_only_memory / 1024)
        } else {
            String::new()
        };
        command
            .arg("-c")
            .arg(format!("{}\n{ceiling}{}", cwd::CWD_TRAP, line.text))
            .current_dir(line.start)
            // Nothing can answer a pager or a prompt.
            .env("PAGER", "cat")
            .env("GIT_PAGER", "cat")
            .env("GIT_TERMINAL_PROMPT", "0");
        if line.attach == Attach::Terminal {
            // What the emulator that renders the screen understands.
            command.env("TERM", "xterm-256color");
        }
        for var in ["TMPDIR", "TMP", "TEMP"] {
            command.env(var, line.tmp);
        }
        ctx.hidden_env.apply(command);
        if line.proven {
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
    }
}

/// The line a call runs and where.
struct Line<'a> {
    text: &'a str,
    start: &'a Path,
    tmp: &'a Path,
    /// Proven read-only: runs with a memory ceiling and git's read-only environment.
    proven: bool,
    attach: Attach,
}

impl Launch {
    /// Starts the call in a pseudo-terminal as a new interactive session; returns its number
    /// and the session, or the error result.
    pub(super) fn start_terminal(
        self,
        line: &str,
        (lifetime, unsandboxed): (std::time::Duration, Option<String>),
        terminals: &super::Terminals,
    ) -> Result<(u32, std::sync::Arc<super::terminal::Session>), ToolOutput> {
        terminals
            .start(
                self.command,
                Box::new((self.tmp, self.report)),
                line,
                lifetime,
                unsandboxed,
            )
            .map_err(|error| ToolOutput::error(error.to_string()))
    }

    /// Starts the call as a background job; the result names it.
    pub(super) fn start_job(self, line: &str, ctx: &ToolContext) -> ToolOutput {
        match ctx.services.get::<crate::Jobs>().start(
            self.command,
            Box::new((self.tmp, self.report)),
            line,
            ctx.hidden_env.clone(),
        ) {
            Ok(id) => ToolOutput::ok(format!(
                "started in the background as {id}; read its output with bash_output \
                 {{\"id\": \"{id}\"}} (add \"block\": true to wait for more), stop it with \
                 kill_shell {{\"id\": \"{id}\"}}"
            )),
            Err(error) => ToolOutput::error(error.to_string()),
        }
    }
}
