//! rein's side of the namespace holders ([`helper`](crate::helper)): one per policy, started
//! when a call first needs it, restarted if it dies, ended when the sandbox is dropped.
//!
//! One per policy because the commands of one holder share its PID namespace, and a process
//! can trace another of its user there: a `read-only` command could otherwise drive a
//! `workspace-write` one left running and write through it.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};

use crate::Policy;
use crate::helper::{HOLD, Join, READY};

/// Why a namespace holder is not usable.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HolderError {
    /// Its executable could not be run.
    #[error("cannot start {}: {error}", .exe.display())]
    Spawn {
        /// The executable.
        exe: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// It exited, saying why on its standard error.
    #[error("{said}")]
    Said {
        /// What it wrote, trimmed.
        said: String,
    },
    /// It exited without saying it was ready.
    #[error("the namespace holder exited without a word")]
    Silent,
    /// Its namespaces could not be read from `/proc`.
    #[error("cannot read the holder's namespaces: {0}")]
    Namespaces(std::io::Error),
    /// Its standard input was not piped.
    #[error("no standard input")]
    NoStdin,
}

/// The holders of one sandbox.
#[derive(Debug)]
pub(crate) struct Holders {
    exe: PathBuf,
    running: Vec<(Policy, Holder)>,
}

impl Holders {
    /// None yet; each is started from executable `exe`.
    pub(crate) fn new(exe: &Path) -> Self {
        Self {
            exe: exe.to_path_buf(),
            running: Vec::new(),
        }
    }

    /// The namespaces a call under `policy` joins, after starting (or restarting) its holder.
    pub(crate) fn join(&mut self, policy: Policy) -> Result<Join, HolderError> {
        if let Some(at) = self.running.iter().position(|(p, _)| *p == policy) {
            let (_, holder) = &mut self.running[at];
            if holder.alive() {
                return Ok(holder.join);
            }
            self.running.swap_remove(at);
        }
        let holder = Holder::start(&self.exe)?;
        let join = holder.join;
        self.running.push((policy, holder));
        Ok(join)
    }
}

/// A running holder: its first stage as our child, the pipe that keeps it alive, and the
/// namespaces calls join.
#[derive(Debug)]
struct Holder {
    child: Child,
    /// Its standard input: the holder lives until this closes.
    _alive: ChildStdin,
    join: Join,
}

impl Holder {
    /// Starts the holder of executable `exe` and waits until it is ready; the error is what
    /// it said on stderr, else why it is not usable.
    #[allow(clippy::disallowed_methods)] // the launch path of the namespace holder: rein's own binary
    fn start(exe: &Path) -> Result<Self, HolderError> {
        let mut child = Command::new(exe)
            .arg(HOLD)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|error| HolderError::Spawn {
                exe: exe.to_path_buf(),
                error,
            })?;
        match (ready(&mut child), child.stdin.take()) {
            (Ok(join), Some(alive)) => {
                // Nothing more is read from it; a later complaint must not block it.
                drop(child.stderr.take());
                Ok(Self {
                    child,
                    _alive: alive,
                    join,
                })
            }
            (ready, _) => {
                let _ = child.kill();
                let mut said = String::new();
                if let Some(mut err) = child.stderr.take() {
                    let _ = err.read_to_string(&mut said);
                }
                let _ = child.wait();
                let why = ready.err().unwrap_or(HolderError::NoStdin);
                Err(match said.trim() {
                    "" => why,
                    said => HolderError::Said {
                        said: said.to_string(),
                    },
                })
            }
        }
    }

    /// Whether it is still running.
    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

/// The namespaces of a holder that printed `ready PID`.
fn ready(child: &mut Child) -> Result<Join, HolderError> {
    let mut said = String::new();
    if let Some(out) = child.stdout.take() {
        let _ = BufReader::new(out).read_line(&mut said);
    }
    let pid = said
        .trim()
        .strip_prefix(READY)
        .and_then(|rest| rest.trim().parse().ok())
        .ok_or(HolderError::Silent)?;
    Join::of(pid).map_err(HolderError::Namespaces)
}

impl Drop for Holder {
    fn drop(&mut self) {
        // Its init dies with it (and the whole namespace with the init).
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
