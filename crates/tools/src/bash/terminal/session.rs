//! One command in a pseudo-terminal: spawned as the leader of a new session with the
//! terminal as its controlling terminal (util-linux's `setsid --ctty`, so `Ctrl-C` reaches the
//! foreground job and `isatty` holds), its output read as it comes into the emulated
//! [`Screen`], keys written to it, and its whole tree killed at the end.

use std::os::fd::{AsFd, OwnedFd};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::fcntl::{FcntlArg, FdFlag, fcntl};
use nix::pty::{Winsize, openpty};
use nix::sys::termios::{LocalFlags, tcgetattr};
use tokio::process::Command;
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::screen::{COLUMNS, ROWS, Screen};
use crate::bash::jobs::JobStatus;
use crate::bash::process::{Ending, GroupKiller, ending_of};
use crate::bash::tree::{CallMark, MARK_VAR};

/// How long the end of a command waits for its last output once it exited.
const DRAIN_GRACE: Duration = Duration::from_millis(100);

/// A running (or ended) command in a pseudo-terminal.
pub(crate) struct Session {
    /// The terminal's master side: keys are written to it, its modes read from it (a thread
    /// of the session reads the output from a copy).
    master: Arc<OwnedFd>,
    pub(super) screen: Mutex<Screen>,
    /// Bumped on every chunk of output and at the end.
    changes: Notify,
    /// Told when the terminal's last writer closed it.
    closed: Notify,
    is_closed: std::sync::atomic::AtomicBool,
    /// Output chunks read so far (to tell new output from none).
    pub(super) chunks: std::sync::atomic::AtomicU64,
    pub(super) status: Mutex<JobStatus>,
    cancel: CancellationToken,
    /// The session leader's pid (its group and session id).
    leader: Option<i32>,
}

/// What is held until the session ends (its temp folder, …).
pub(crate) type Held = Box<dyn Send>;

impl Session {
    /// Starts `command` (stdio attached to a new terminal, in a session of its own) and the
    /// tasks that read its output and wait for its end, which comes at `lifetime` at the
    /// latest.
    pub(crate) fn start(
        mut command: Command,
        held: Held,
        lifetime: Duration,
    ) -> std::io::Result<Arc<Self>> {
        let size = Winsize {
            ws_row: ROWS,
            ws_col: COLUMNS,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        let pty = openpty(Some(&size), None).map_err(std::io::Error::from)?;
        // No other process rein starts may hold this terminal.
        for fd in [&pty.master, &pty.slave] {
            fcntl(fd, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC)).map_err(std::io::Error::from)?;
        }
        let slave: OwnedFd = pty.slave;
        command
            .stdin(Stdio::from(slave.try_clone()?))
            .stdout(Stdio::from(slave.try_clone()?))
            .stderr(Stdio::from(slave))
            .kill_on_drop(false);
        let mark = CallMark::new();
        command.env(MARK_VAR, mark.value());
        let child = command.spawn()?;
        drop(command);
        let leader = child.id().and_then(|id| i32::try_from(id).ok());
        let session = Arc::new(Self {
            master: Arc::new(pty.master),
            screen: Mutex::new(Screen::new()),
            changes: Notify::new(),
            closed: Notify::new(),
            is_closed: Default::default(),
            chunks: Default::default(),
            status: Mutex::new(JobStatus::Running),
            cancel: CancellationToken::new(),
            leader,
        });
        let reader = std::fs::File::from(session.master.try_clone()?);
        let reading = Arc::clone(&session);
        std::thread::Builder::new()
            .name("rein-terminal".into())
            .spawn(move || reading.read_output(reader))?;
        let waiting = Arc::clone(&session);
        tokio::spawn(waiting.wait_for_end((child, mark), lifetime, held));
        Ok(session)
    }

    /// Waits for the command's end (or the session's kill, or its lifetime, when its whole
    /// tree is killed), then records how it ended once its last output is in.
    async fn wait_for_end(
        self: Arc<Self>,
        (mut child, mark): (tokio::process::Child, CallMark),
        lifetime: Duration,
        held: Held,
    ) {
        let waiting = self;
        let mut group = GroupKiller::new(child.id(), mark);
        let deadline = tokio::time::sleep(lifetime);
        let ending = tokio::select! {
            status = child.wait() => status.map(ending_of).unwrap_or(Ending::Exited(-1)),
            () = waiting.cancel.cancelled() => Ending::Cancelled,
            () = deadline => Ending::TimedOut,
        };
        let status = match ending {
            Ending::Exited(code) => {
                group.disarm();
                JobStatus::Exited(code)
            }
            Ending::Signalled(signal) => {
                group.disarm();
                JobStatus::Signalled(signal)
            }
            Ending::Cancelled | Ending::TimedOut => {
                let survivors = group.kill();
                let _ = child.wait().await;
                match (ending, survivors.is_empty()) {
                    (Ending::TimedOut, _) => JobStatus::Failed(format!(
                        "ran past its {} s limit and was killed",
                        lifetime.as_secs()
                    )),
                    (_, true) => JobStatus::Killed,
                    (_, false) => JobStatus::Failed(format!(
                        "killed, but processes it started are still running (pid {})",
                        survivors
                            .iter()
                            .map(i32::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                }
            }
        };
        // What the program wrote just before it ended is still on its way: wait until
        // the terminal closes (briefly: a process left in the background may hold it).
        let closed = waiting.closed.notified();
        if !waiting.output_closed() {
            let _ = tokio::time::timeout(DRAIN_GRACE, closed).await;
        }
        *waiting.status.lock().unwrap_or_else(|p| p.into_inner()) = status;
        drop(held);
        waiting.changes.notify_waiters();
    }

    /// Reads the terminal until every process holding it is gone (a blocking read on a
    /// thread of its own: a pseudo-terminal cannot be registered with the runtime safely).
    fn read_output(&self, mut reader: std::fs::File) {
        use std::io::Read;
        let mut chunk = vec![0u8; 16 * 1024];
        // EIO (the last process holding the terminal closed it) or EOF ends it.
        while let Ok(n) = reader.read(&mut chunk) {
            if n == 0 {
                break;
            }
            self.screen
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .feed(&chunk[..n]);
            self.chunks
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.changes.notify_waiters();
        }
        self.is_closed
            .store(true, std::sync::atomic::Ordering::Release);
        self.closed.notify_waiters();
    }

    fn output_closed(&self) -> bool {
        self.is_closed.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Types `bytes` into the terminal (on the blocking pool: a program that reads nothing
    /// fills the terminal's buffer).
    pub(crate) async fn write(&self, bytes: &[u8]) -> std::io::Result<()> {
        let master = Arc::clone(&self.master);
        let bytes = bytes.to_vec();
        tokio::task::spawn_blocking(move || {
            use std::io::Write;
            let mut file = std::fs::File::from(master.try_clone()?);
            file.write_all(&bytes)
        })
        .await
        .map_err(std::io::Error::other)?
    }

    /// Waits until `until`, the end of the command, or output followed by `quiet` (the
    /// program answered and waits again), whichever comes first.
    pub(crate) async fn settle(&self, until: Instant, quiet: Duration) {
        let start = self.chunks.load(std::sync::atomic::Ordering::Relaxed);
        loop {
            if !self.running() {
                return;
            }
            let seen = self.chunks.load(std::sync::atomic::Ordering::Relaxed);
            let wait = if seen != start {
                (Instant::now() + quiet).min(until)
            } else {
                until
            };
            let changed = self.changes.notified();
            tokio::pin!(changed);
            // Registered before the check, so no notice is missed.
            changed.as_mut().enable();
            if self.chunks.load(std::sync::atomic::Ordering::Relaxed) != seen || !self.running() {
                continue;
            }
            match tokio::time::timeout_at(wait, changed).await {
                Ok(()) => continue,
                Err(_) if seen != start || Instant::now() >= until => return,
                Err(_) => continue,
            }
        }
    }

    /// Whether the command still runs.
    pub(crate) fn running(&self) -> bool {
        *self.status.lock().unwrap_or_else(|p| p.into_inner()) == JobStatus::Running
    }

    /// How the command stands.
    pub(crate) fn status(&self) -> JobStatus {
        self.status
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Ends the session: every process of it is killed.
    pub(crate) fn kill(&self) {
        self.cancel.cancel();
    }

    /// Whether the terminal takes a secret now: echo off in line mode (what `getpass` sets
    /// for a password), unlike a full-screen program or a line editor (echo off, raw mode).
    pub(crate) fn reads_secret(&self) -> bool {
        tcgetattr(self.master.as_fd()).is_ok_and(|t| {
            !t.local_flags.contains(LocalFlags::ECHO) && t.local_flags.contains(LocalFlags::ICANON)
        })
    }

    /// The program in the terminal's foreground (what typed keys reach): its pid, from the
    /// terminal's foreground process group.
    pub(crate) fn foreground(&self) -> Option<i32> {
        nix::unistd::tcgetpgrp(self.master.as_fd())
            .ok()
            .map(|pid| pid.as_raw())
            .filter(|pid| *pid > 0)
            .or(self.leader)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}
