//! Running one hook command: JSON on stdin, a timeout, the whole process group killed when it
//! expires, output captured within bounds.

use std::process::Stdio;
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Most bytes of a hook's stdout or stderr kept.
const MAX_CAPTURE: usize = 64 * 1024;

/// How a hook command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    /// Exit code; `None` when killed (timeout) or it could not start.
    pub code: Option<i32>,
    /// Standard output (cut at 64 KiB).
    pub stdout: String,
    /// Standard error (cut at 64 KiB), or why it could not run.
    pub stderr: String,
    /// The timeout expired and the command was killed.
    pub timed_out: bool,
}

/// Runs `command` with `sh -c` in `cwd`, `input` on stdin, `env` added and `hidden` removed,
/// for at most `timeout`. Never fails: a command that cannot start reports it in `stderr`.
#[allow(clippy::disallowed_methods)] // the launch path of hooks: the hidden variables are cleared here
pub async fn run(
    command: &str,
    cwd: &std::path::Path,
    env: &[(&str, String)],
    hidden: &rein_tools::HiddenEnv,
    input: &str,
    timeout: Duration,
) -> Finished {
    let mut cmd = tokio::process::Command::new("sh");
    cmd.arg("-c")
        .arg(command)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    hidden.apply(&mut cmd);
    for (key, value) in env {
        cmd.env(key, value);
    }
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => {
            return Finished {
                code: None,
                stdout: String::new(),
                stderr: format!("cannot start the hook: {e}"),
                timed_out: false,
            };
        }
    };
    let group = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .map(Pid::from_raw);
    let mut stdin = child.stdin.take();
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let input = input.as_bytes().to_vec();
    let work = async {
        let feed = async {
            if let Some(mut pipe) = stdin.take() {
                // A hook that does not read its input closes the pipe early: not an error.
                let _ = pipe.write_all(&input).await;
            }
        };
        let (_, out, err, status) = tokio::join!(
            feed,
            capture(stdout.as_mut()),
            capture(stderr.as_mut()),
            child.wait()
        );
        (status.ok().and_then(|s| s.code()), out, err)
    };
    match tokio::time::timeout(timeout, work).await {
        Ok((code, stdout, stderr)) => Finished {
            code,
            stdout,
            stderr,
            timed_out: false,
        },
        Err(_) => {
            if let Some(group) = group {
                let _ = killpg(group, Signal::SIGKILL);
            }
            Finished {
                code: None,
                stdout: String::new(),
                stderr: format!(
                    "the hook timed out after {} s and was killed",
                    timeout.as_secs_f64()
                ),
                timed_out: true,
            }
        }
    }
}

async fn capture<R: tokio::io::AsyncRead + Unpin>(pipe: Option<&mut R>) -> String {
    let Some(pipe) = pipe else {
        return String::new();
    };
    let mut kept = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        match pipe.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = MAX_CAPTURE.saturating_sub(kept.len());
                kept.extend_from_slice(&chunk[..n.min(room)]);
            }
        }
    }
    String::from_utf8_lossy(&kept).into_owned()
}
