//! Running a child in its own process group with a deadline and a cancellation token, its
//! stdout and stderr merged in order into one bounded buffer.
//!
//! Both output streams are the write end of one pipe, so the order of writes is kept exactly as
//! the child made them. On timeout or cancellation the whole group gets `SIGKILL` and the
//! leader is reaped; if the call's future is dropped mid-run, the group is killed too.
//! Descendants that outlive a normally exiting shell (`server &`) are left running, but the
//! call does not wait for them to close the pipe for longer than [`DRAIN_GRACE`].

use std::io::{self, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use tokio::process::Command;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::Progress;
use crate::output::HeadTailBuffer;

/// How long to keep reading output after the shell ended, for what is still in the pipe.
const DRAIN_GRACE: Duration = Duration::from_millis(300);

/// At most one live-output report per this interval: a chatty command would otherwise send
/// thousands of events (each up to 4 KiB) that no one can read.
const LIVE_INTERVAL: Duration = Duration::from_millis(100);

/// Live output held back until the next report may go (under the 4 KiB a report carries,
/// with room for a newline).
const LIVE_KEEP: usize = 4000;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The shell exited with this code.
    Exited(i32),
    /// The shell was killed by this signal (not by us).
    Signalled(i32),
    /// The deadline passed; the group was killed.
    TimedOut,
    /// The cancellation token fired; the group was killed.
    Cancelled,
}

/// What a run produced.
#[derive(Debug)]
pub(crate) struct Finished {
    /// How it ended.
    pub ending: Ending,
    /// Processes the call started that were still alive after it was killed.
    pub survivors: Vec<i32>,
    /// Merged stdout and stderr, head and tail kept within the limit.
    pub output: String,
}

/// Most bytes of one run's output saved to disk.
pub(crate) const MAX_SAVED_BYTES: u64 = 64 * 1024 * 1024;

/// The whole output as it streams, teed to a file (up to [`MAX_SAVED_BYTES`]) so a run whose
/// output the buffer had to cut can point the model at the full text.
#[derive(Debug)]
pub(crate) struct OutputFile {
    /// Where the output is saved.
    pub path: PathBuf,
    file: Option<std::fs::File>,
    written: u64,
    /// Why saving stopped early, if it did.
    pub problem: Option<String>,
    /// Whose values the kept file must not hold.
    hidden: crate::HiddenEnv,
    /// A background job's log: kept whole, never discarded or named in a marker.
    log: bool,
}

impl OutputFile {
    /// Creates the file at `path` (private to the user); `hidden`'s values are taken out of it
    /// if it is kept.
    pub(crate) fn create(path: PathBuf, hidden: crate::HiddenEnv) -> io::Result<Self> {
        let file = rein_fs::private::private_options()
            .write(true)
            .create_new(true)
            .open(&path)?;
        Ok(Self {
            path,
            file: Some(file),
            written: 0,
            problem: None,
            hidden,
            log: false,
        })
    }

    /// A background job's log at `path`: everything the job prints (up to
    /// [`MAX_SAVED_BYTES`]), kept after the job ends.
    pub(crate) fn log(path: PathBuf, hidden: crate::HiddenEnv) -> io::Result<Self> {
        let mut file = Self::create(path, hidden)?;
        file.log = true;
        Ok(file)
    }

    fn write(&mut self, bytes: &[u8]) {
        let Some(file) = self.file.as_mut() else {
            return;
        };
        let room = usize::try_from(MAX_SAVED_BYTES - self.written).unwrap_or(usize::MAX);
        let part = &bytes[..bytes.len().min(room)];
        // A page-cache write of at most one pipe chunk: short enough to do inline.
        match file.write_all(part) {
            Ok(()) => self.written += part.len() as u64,
            Err(e) => self.problem = Some(e.to_string()),
        }
        if part.len() < bytes.len() {
            self.problem = Some(format!("only the first {MAX_SAVED_BYTES} bytes are saved"));
        }
        if self.problem.is_some() {
            self.file = None;
        }
    }

    /// The omission marker pointing at the saved file.
    fn marker(&self, omitted: usize) -> String {
        let problem = self
            .problem
            .as_deref()
            .map(|p| format!(" ({p})"))
            .unwrap_or_default();
        format!(
            "\n[... {omitted} bytes omitted; the full output is saved in {}{problem}: read it \
             with read_file (offset/limit) or grep ...]\n",
            self.path.display()
        )
    }

    /// Rewrites the kept file without the hidden variables' values (a key split across two
    /// pipe reads is whole in the file). Not valid UTF-8, or unreadable: left as written.
    fn scrub(&mut self) {
        self.file = None;
        let Ok(text) = std::fs::read_to_string(&self.path) else {
            return;
        };
        if let std::borrow::Cow::Owned(clean) = self.hidden.redact(&text) {
            let _ = crate::write_atomic_private(&self.path, clean.as_bytes());
        }
    }

    /// Deletes the file (its output fitted in the result).
    fn discard(self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Output for a front end as it comes, coalesced to at most one report per [`LIVE_INTERVAL`].
struct Live {
    progress: Progress,
    /// The tail of what arrived since the last report.
    pending: Vec<u8>,
    /// Whether `pending` lost its start (it is reported on a line of its own).
    cut: bool,
    /// When the next report may go.
    next: Instant,
}

impl Live {
    fn new(progress: Progress) -> Self {
        Self {
            progress,
            pending: Vec::new(),
            cut: false,
            next: Instant::now(),
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        self.pending.extend_from_slice(bytes);
        if self.pending.len() > LIVE_KEEP {
            // A live view shows the last lines: keep whole ones where there are any.
            let cut = self.pending.len() - LIVE_KEEP;
            let start = self.pending[cut..]
                .iter()
                .position(|&b| b == b'\n')
                .map(|i| cut + i + 1)
                .filter(|&start| start < self.pending.len())
                .unwrap_or(cut);
            self.pending.drain(..start);
            self.cut = true;
        }
        if Instant::now() >= self.next {
            self.flush();
        }
    }

    /// When held-back output is due, if there is any.
    fn due(&self) -> Option<Instant> {
        (!self.pending.is_empty()).then_some(self.next)
    }

    fn flush(&mut self) {
        if !self.pending.is_empty() {
            if std::mem::take(&mut self.cut) {
                // Not the rest of the line the last report ended in.
                self.pending.insert(0, b'\n');
            }
            self.progress.report(&self.pending);
            self.pending.clear();
            self.next = Instant::now() + LIVE_INTERVAL;
        }
    }
}

/// The sinks output goes to while a run streams.
struct Sinks {
    limit: usize,
    live: Option<Live>,
    buffer: HeadTailBuffer,
    file: Option<OutputFile>,
}

impl Sinks {
    fn push(&mut self, bytes: &[u8]) {
        self.buffer.push(bytes);
        if let Some(live) = self.live.as_mut() {
            live.push(bytes);
        }
        if let Some(file) = self.file.as_mut() {
            file.write(bytes);
        }
    }

    /// When held-back live output is due.
    fn live_due(&self) -> Option<Instant> {
        self.live.as_ref().and_then(Live::due)
    }

    /// Reports held-back live output now.
    fn flush_live(&mut self) {
        if let Some(live) = self.live.as_mut() {
            live.flush();
        }
    }

    /// The kept text; the saved file is named in the marker when the buffer had to cut, and
    /// deleted when it did not.
    fn finish(self) -> String {
        let cut = self.buffer.total() > self.limit;
        match self.file {
            // Read while it grows, by offset: redacted as it is read, not rewritten.
            Some(file) if file.log => self.buffer.finish(),
            Some(mut file) if cut => {
                file.scrub();
                self.buffer.finish_with(|omitted| file.marker(omitted))
            }
            Some(file) => {
                file.discard();
                self.buffer.finish()
            }
            None => self.buffer.finish(),
        }
    }
}

/// Spawns `command` (stdin null, stdout and stderr merged, own process group) and waits for it
/// within `timeout`, honouring `cancel`. Only spawn failures are errors.
pub(crate) async fn run_in_group(
    mut command: Command,
    timeout: Duration,
    cancel: &CancellationToken,
    output_limit: usize,
    save: Option<OutputFile>,
    progress: Option<Progress>,
) -> io::Result<Finished> {
    let (sender, mut reader) = pipe::pipe()?;
    let write_end = sender.into_blocking_fd()?;
    command
        .stdin(Stdio::null())
        .stdout(Stdio::from(write_end.try_clone()?))
        .stderr(Stdio::from(write_end))
        .process_group(0);
    let mark = super::tree::CallMark::new();
    command.env(super::tree::MARK_VAR, mark.value());
    let mut child = command.spawn()?;
    // The command holds our copies of the write end; EOF comes only once they are closed.
    drop(command);
    let mut group = GroupKiller::new(child.id(), mark);

    let mut output = Sinks {
        limit: output_limit,
        live: progress.map(Live::new),
        buffer: HeadTailBuffer::new(output_limit),
        file: save,
    };
    let mut chunk = vec![0u8; 16 * 1024];
    let mut open = true;
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    let ending = loop {
        let live_due = output.live_due();
        tokio::select! {
            biased;
            () = cancel.cancelled() => break Ending::Cancelled,
            () = &mut deadline => break Ending::TimedOut,
            read = reader.read(&mut chunk), if open => match read {
                Ok(0) | Err(_) => open = false,
                Ok(n) => output.push(&chunk[..n]),
            },
            status = child.wait() => break ending_of(status?),
            () = tokio::time::sleep_until(live_due.unwrap_or_else(Instant::now)),
                if live_due.is_some() => output.flush_live(),
        }
    };
    let survivors = match ending {
        Ending::TimedOut | Ending::Cancelled => {
            let survivors = group.kill();
            child.wait().await?;
            survivors
        }
        // The shell is gone; what it left running in the background is not ours to kill.
        Ending::Exited(_) | Ending::Signalled(_) => {
            group.disarm();
            Vec::new()
        }
    };
    if open {
        drain(&mut reader, &mut output, &mut chunk).await;
    }
    output.flush_live();
    Ok(Finished {
        ending,
        survivors,
        output: output.finish(),
    })
}

/// Reads what is left in the pipe until EOF or [`DRAIN_GRACE`] passes.
async fn drain(reader: &mut pipe::Receiver, output: &mut Sinks, chunk: &mut [u8]) {
    let until = Instant::now() + DRAIN_GRACE;
    while let Ok(Ok(n)) = tokio::time::timeout_at(until, reader.read(chunk)).await {
        if n == 0 {
            break;
        }
        output.push(&chunk[..n]);
    }
}

pub(super) fn ending_of(status: ExitStatus) -> Ending {
    match (status.code(), status.signal()) {
        (Some(code), _) => Ending::Exited(code),
        (None, Some(signal)) => Ending::Signalled(signal),
        (None, None) => Ending::Exited(-1),
    }
}

/// Sends `SIGKILL` to a process group when told to or when dropped armed, so a call abandoned
/// mid-run leaves no processes behind.
pub(super) struct GroupKiller {
    pgid: Option<Pid>,
    /// The call's mark, for what left the group (`setsid`).
    mark: super::tree::CallMark,
}

impl GroupKiller {
    pub(super) fn new(leader: Option<u32>, mark: super::tree::CallMark) -> Self {
        let pgid = leader
            .and_then(|id| i32::try_from(id).ok())
            .map(Pid::from_raw);
        Self { pgid, mark }
    }

    /// Kills the group and every process carrying the call's mark or in its sandbox's mount
    /// namespace; returns those still alive.
    pub(super) fn kill(&mut self) -> Vec<i32> {
        let Some(pgid) = self.pgid.take() else {
            return Vec::new();
        };
        // Read while the leader (a sandbox helper, maybe) still lives.
        let namespace = super::tree::call_namespace(pgid.as_raw());
        // ESRCH (the group is already gone) is fine.
        let _ = killpg(pgid, Signal::SIGKILL);
        self.mark.kill_marked(namespace.as_deref())
    }

    /// Called once the leader is reaped normally: its pid (and so the group id) may be reused.
    pub(super) fn disarm(&mut self) {
        self.pgid = None;
    }
}

impl Drop for GroupKiller {
    fn drop(&mut self) {
        let _ = self.kill();
    }
}
