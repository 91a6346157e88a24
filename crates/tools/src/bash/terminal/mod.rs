//! Interactive commands: a command run in a pseudo-terminal (`bash` with `tty: true`,
//! codex's `exec_command`) returns what it showed after a short wait, and, while it still
//! runs, a session number the model types into or polls with `write_stdin`. The sessions of
//! a rein session are numbered from 1; at most [`Terminals::max_open`] run at once; they end
//! with their command, at their time limit, on `kill_shell`, or with the rein session (the
//! table's last handle going kills every one).

mod exec_command;
mod foreground;
mod interact;
mod screen;
mod session;
mod tools;

pub use exec_command::{ExecCommand, ExecCommandArgs};
pub(crate) use foreground::Reader;
pub(crate) use interact::{MAX_YIELD_MS, Style};
pub(crate) use session::{Held, Session};
pub use tools::{CodexWriteStdin, CodexWriteStdinArgs, WriteStdin, WriteStdinArgs};

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::process::Command;

use super::jobs::JobStatus;

/// How long a new session's first output is waited for when the call says nothing.
pub(crate) const START_YIELD_MS: u64 = 2_000;

/// What starting a session asks.
pub(crate) struct Start<'a> {
    pub line: &'a str,
    /// When its processes are killed at the latest.
    pub lifetime: Duration,
    /// The user's approval to run outside the sandbox, with its reason.
    pub unsandboxed: Option<String>,
    /// How long its first output is waited for.
    pub wait: Duration,
    /// Most bytes of output returned.
    pub limit: usize,
    pub style: Style,
}

/// Starts a prepared call as an interactive session and reports what it showed first.
pub(crate) async fn start(
    launch: super::launch::Launch,
    start: Start<'_>,
    terminals: &Terminals,
    ctx: &crate::ToolContext,
) -> crate::ToolOutput {
    let began = tokio::time::Instant::now();
    let (id, session) =
        match launch.start_terminal(start.line, (start.lifetime, start.unsandboxed), terminals) {
            Ok(started) => started,
            Err(refusal) => return refusal,
        };
    interact::settle(&session, (start.wait, interact::START_QUIET), ctx).await;
    let exchange = interact::Exchange {
        id,
        chars: "",
        wait: start.wait,
        limit: start.limit,
        style: start.style,
    };
    interact::report(&session, interact::Report::new(id, began, &exchange), ctx).finish()
}

/// Sessions open at once unless configured otherwise.
pub const DEFAULT_MAX_TERMINALS: usize = 4;

/// The session's interactive commands; clones share one table.
#[derive(Clone)]
pub struct Terminals(Arc<Table>);

struct Table {
    next: AtomicU32,
    max_open: AtomicUsize,
    sessions: Mutex<Vec<Entry>>,
}

struct Entry {
    id: u32,
    command: String,
    session: Arc<Session>,
    /// The session ran outside the OS sandbox (the user approved it, with this reason).
    unsandboxed: Option<String>,
    /// What was typed since the last line ended (a line is checked whole).
    typed: String,
}

impl Default for Terminals {
    fn default() -> Self {
        Self(Arc::new(Table {
            next: AtomicU32::new(0),
            max_open: AtomicUsize::new(DEFAULT_MAX_TERMINALS),
            sessions: Mutex::new(Vec::new()),
        }))
    }
}

impl std::fmt::Debug for Terminals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Terminals")
            .field("sessions", &self.list().len())
            .finish()
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        let sessions = self.sessions.get_mut().unwrap_or_else(|p| p.into_inner());
        for entry in sessions.iter() {
            entry.session.kill();
        }
    }
}

/// A session as `/tasks` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalSummary {
    /// Its number.
    pub id: u32,
    /// The command line that started it.
    pub command: String,
    /// How it stands.
    pub status: JobStatus,
}

/// Why a session could not be started or reached (told to the model as is).
#[derive(Debug, thiserror::Error)]
pub enum TerminalError {
    /// No session has this number.
    #[error("there is no interactive session {id}{}", known_tail(known))]
    Unknown {
        /// The number asked for.
        id: u32,
        /// The session's numbers, comma-separated (empty: none was started).
        known: String,
    },
    /// As many sessions as allowed are running.
    #[error(
        "not started: {0} interactive sessions are running, the most allowed at once; end one \
         first (kill_shell, or let it finish)"
    )]
    TooMany(usize),
    /// The terminal could not be made or the command not started.
    #[error("cannot start the command in a terminal: {0}")]
    Start(#[source] std::io::Error),
    /// Keys could not be written to the terminal.
    #[error("cannot type into the session: {0}")]
    Type(#[source] std::io::Error),
}

fn known_tail(known: &str) -> String {
    if known.is_empty() {
        ": none was started in this session".to_string()
    } else {
        format!("; the sessions are: {known}")
    }
}

impl Terminals {
    /// Allows at most `n` sessions running at once (at least one).
    pub fn set_max_open(&self, n: usize) {
        self.0.max_open.store(n.max(1), Ordering::Relaxed);
    }

    /// Sessions allowed to run at once.
    pub fn max_open(&self) -> usize {
        self.0.max_open.load(Ordering::Relaxed)
    }

    /// Starts `command` in a new terminal; returns its number and the session.
    pub(crate) fn start(
        &self,
        command: Command,
        held: Held,
        line: &str,
        lifetime: Duration,
        unsandboxed: Option<String>,
    ) -> Result<(u32, Arc<Session>), TerminalError> {
        let mut table = self.table();
        let running = table.iter().filter(|e| e.session.running()).count();
        if running >= self.max_open() {
            return Err(TerminalError::TooMany(running));
        }
        let session = Session::start(command, held, lifetime).map_err(TerminalError::Start)?;
        let id = self.0.next.fetch_add(1, Ordering::Relaxed) + 1;
        table.push(Entry {
            id,
            command: line.to_string(),
            session: Arc::clone(&session),
            unsandboxed,
            typed: String::new(),
        });
        Ok((id, session))
    }

    /// Session `id`.
    pub(crate) fn get(&self, id: u32) -> Result<Arc<Session>, TerminalError> {
        let table = self.table();
        find(&table, id).map(|e| Arc::clone(&e.session))
    }

    /// Who reads what is typed into session `id` now, what was typed there since the last
    /// line ended, and whether it runs outside the sandbox (with the approved reason).
    pub(crate) fn reader(&self, id: u32) -> Option<(Reader, String, Option<String>)> {
        let (session, typed, unsandboxed) = {
            let table = self.table();
            let entry = find(&table, id).ok()?;
            (
                Arc::clone(&entry.session),
                entry.typed.clone(),
                entry.unsandboxed.clone(),
            )
        };
        let reader = match session.foreground() {
            Some(group) => foreground::reader(group),
            None => Reader::Program,
        };
        Some((reader, typed, unsandboxed))
    }

    /// Records `chars` as typed into session `id`: what follows its last line end is kept.
    pub(crate) fn typed(&self, id: u32, chars: &str) {
        let mut table = self.table();
        if let Some(entry) = table.iter_mut().find(|e| e.id == id) {
            entry.typed = lines_typed(&entry.typed, chars).1;
        }
    }

    /// Ends session `id` (every process of it killed); how it stands after.
    pub async fn kill(&self, id: u32) -> Result<JobStatus, TerminalError> {
        let session = self.get(id)?;
        session.kill();
        for _ in 0..100 {
            if !session.running() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ok(session.status())
    }

    /// The session a task id names: `tty_3` (as `/tasks` lists it), `session 3` or `3`.
    pub fn number(id: &str) -> Option<u32> {
        let id = id.trim();
        let number = id
            .strip_prefix("tty_")
            .or_else(|| id.strip_prefix("session"))
            .unwrap_or(id);
        number.trim().parse().ok()
    }

    /// What session `id`'s screen shows now, for the user (what the model reads next does
    /// not move; the provider keys are the caller's to redact).
    pub fn screen(&self, id: u32) -> Result<String, TerminalError> {
        let session = self.get(id)?;
        let text = session
            .screen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contents();
        Ok(text)
    }

    /// Types `text` into session `id` for the user (who may answer any prompt, a password's
    /// included).
    pub async fn type_keys(&self, id: u32, text: &str) -> Result<(), TerminalError> {
        let session = self.get(id)?;
        session
            .write(text.as_bytes())
            .await
            .map_err(TerminalError::Type)?;
        self.typed(id, text);
        Ok(())
    }

    /// Every session, oldest first.
    pub fn list(&self) -> Vec<TerminalSummary> {
        self.table()
            .iter()
            .map(|e| TerminalSummary {
                id: e.id,
                command: e.command.clone(),
                status: e.session.status(),
            })
            .collect()
    }

    /// Ends every session.
    pub fn kill_all(&self) {
        for entry in self.table().iter() {
            entry.session.kill();
        }
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        self.0.sessions.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The lines `chars` completes after `pending` (what was typed since the last line ended),
/// and what is pending after it, as a line editor keeps them: Enter ends a line, Ctrl-C and
/// Ctrl-U drop it, Backspace takes back a character; other keys stay in the line.
pub(crate) fn lines_typed(pending: &str, chars: &str) -> (Vec<String>, String) {
    let mut lines = Vec::new();
    let mut line = pending.to_string();
    for c in chars.chars() {
        match c {
            '\n' | '\r' => {
                if !line.is_empty() {
                    lines.push(std::mem::take(&mut line));
                }
            }
            '\u{3}' | '\u{15}' => line.clear(),
            '\u{7f}' | '\u{8}' => {
                line.pop();
            }
            c => line.push(c),
        }
    }
    (lines, line)
}

fn find(table: &[Entry], id: u32) -> Result<&Entry, TerminalError> {
    table
        .iter()
        .find(|e| e.id == id)
        .ok_or_else(|| TerminalError::Unknown {
            id,
            known: table
                .iter()
                .map(|e| e.id.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        })
}
