//! Durable sessions: an append-only JSONL file per session under the user's data folder, keyed
//! by workspace (`<data>/sessions/<workspace key>/<session id>.jsonl`), one
//! [`SessionLine`](rein_protocol::SessionLine) per line, written and flushed at every message
//! boundary so a killed process loses at most the message in flight. Loading skips a torn last
//! line (with a warning) and record types it does not know; the transcript is rebuilt by
//! joining consecutive parts of the same role. A file is loaded only when its header names the
//! session and the workspace it is stored under, and only when it is a regular file of at most
//! [`SESSION_FILE_CAP`] bytes.

mod loaded;
mod repair;
mod retention;

use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};
use rein_protocol::{SessionLine, SessionRecord};
use rein_tools::{ReadRefusal, open_regular};

pub(crate) use loaded::shell_as_typed;
pub use loaded::{AgentSpend, LoadedSession, RosterEntry, SessionSummary, load_from};
pub use repair::{LOST_RESULT, repair};
pub use retention::{DEFAULT_CLEANUP_DAYS, Removed, delete, prune};

/// How a `!command` the user ran opens its transcript line (`<bash-input>git status</bash-input>`).
pub(crate) const BASH_INPUT: &str = "<bash-input>";

/// The folder of rein's data folder that holds every session's checkpoints.
pub const CHECKPOINTS_FOLDER: &str = "checkpoints";

/// The folder under rein's data folder that holds the sessions' task boards.
pub const TASKS_FOLDER: &str = "tasks";

/// Largest session file loaded. Tool outputs over the budget are saved apart, so a session
/// this large is damaged or not rein's; it is refused, and left as it is.
pub const SESSION_FILE_CAP: u64 = 256 * 1024 * 1024;

/// A session file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// No session with this id for this workspace.
    #[error("no session {id} for this workspace (see `rein sessions`)")]
    NotFound {
        /// The id asked for.
        id: String,
    },
    /// The id contains characters a session id never has.
    #[error("invalid session id {id:?}")]
    InvalidId {
        /// The id asked for.
        id: String,
    },
    /// The file exists but its first line is not a session header.
    #[error("{path} is not a rein session file: {reason}")]
    Corrupt {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The file is not a regular file, or is larger than [`SESSION_FILE_CAP`].
    #[error("cannot load the session: {0}")]
    Refused(#[source] ReadRefusal),
    /// The file's header names another session or workspace than the store it sits in (copied
    /// or renamed by hand, or planted): not resumed, and left as it is.
    #[error(
        "{path} records session {recorded_id} of workspace {recorded_cwd}, but it is stored as \
         session {id} of {workspace}: not resumed (the file is left as it is; start a new \
         session, or resume it from its own workspace)"
    )]
    Mismatch {
        /// The file.
        path: String,
        /// The id it is stored under (its file name).
        id: String,
        /// The workspace whose store holds it.
        workspace: String,
        /// The id its header records.
        recorded_id: String,
        /// The workspace its header records.
        recorded_cwd: String,
    },
    /// Another rein process is writing this session (`--continue` twice at once).
    #[error(
        "session {id} is being continued by another rein process; wait for it to end, or pass \
         --fork-session to continue a copy"
    )]
    InUse {
        /// The session.
        id: String,
    },
    /// Reading or writing failed.
    #[error("session file {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: io::Error,
    },
}

/// The sessions of one workspace.
#[derive(Debug, Clone)]
pub struct SessionStore {
    dir: PathBuf,
    workspace: PathBuf,
}

impl SessionStore {
    /// The store for `workspace` under `data_dir` (rein's data folder).
    pub fn new(data_dir: &Path, workspace: &Path) -> Self {
        Self {
            dir: data_dir.join("sessions").join(workspace_key(workspace)),
            workspace: workspace.to_path_buf(),
        }
    }

    /// The folder holding this workspace's session files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of session `id`.
    pub fn path(&self, id: &str) -> Result<PathBuf, SessionError> {
        let valid = !id.is_empty()
            && id.len() <= 128
            && id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !valid {
            return Err(SessionError::InvalidId { id: id.to_string() });
        }
        Ok(self.dir.join(format!("{id}.jsonl")))
    }

    /// Starts a new session file with its header. The file appears whole: the header is
    /// written to a hidden file first, which is then linked to the session's name (failing if
    /// one exists), so a kill at any moment leaves no empty session for `--continue` to pick.
    pub fn create(&self, meta: SessionRecord) -> Result<SessionWriter, SessionError> {
        let SessionRecord::Meta { session_id, .. } = &meta else {
            return Err(SessionError::Corrupt {
                path: self.dir.display().to_string(),
                reason: "a session starts with a meta record".into(),
            });
        };
        let path = self.path(session_id)?;
        let io_err = |source| SessionError::Io {
            path: path.display().to_string(),
            source,
        };
        rein_tools::private::create_private_dir_all(&self.dir).map_err(io_err)?;
        let header = record_line(&meta, &path)?;
        let partial = self.dir.join(format!(".{session_id}.jsonl.partial"));
        let _ = std::fs::remove_file(&partial);
        let written = rein_tools::private::write_private_new(&partial, &header)
            .and_then(|()| std::fs::hard_link(&partial, &path));
        let _ = std::fs::remove_file(&partial);
        written.map_err(io_err)?;
        let file = OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(io_err)?;
        let file = lock(file, session_id, &path)?;
        Ok(SessionWriter { file, path })
    }

    /// Starts a new session file continuing `parent`'s conversation: the header, then its
    /// messages and its todo list (a fork; the parent's usage stays with the parent).
    pub fn create_fork(
        &self,
        meta: SessionRecord,
        parent: &LoadedSession,
    ) -> Result<SessionWriter, SessionError> {
        let mut writer = self.create(meta)?;
        for message in &parent.transcript {
            writer.append(&SessionRecord::Message {
                message: message.clone(),
            })?;
        }
        if !parent.todos.is_empty() {
            writer.append(&SessionRecord::Todos {
                todos: parent.todos.clone(),
            })?;
        }
        Ok(writer)
    }

    /// Reopens session `id` to append to it.
    pub fn append_to(&self, id: &str) -> Result<SessionWriter, SessionError> {
        let path = self.path(id)?;
        // Non-blocking: a FIFO in its place fails at once instead of waiting for a reader.
        let file = OpenOptions::new()
            .append(true)
            .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
            .open(&path)
            .map_err(|source| {
                if source.kind() == io::ErrorKind::NotFound {
                    SessionError::NotFound { id: id.to_string() }
                } else {
                    SessionError::Io {
                        path: path.display().to_string(),
                        source,
                    }
                }
            })?;
        // One writer per session: two processes appending would interleave their messages.
        let file = lock(file, id, &path)?;
        // A torn last line (killed mid-write) must not swallow the next record.
        let mut writer = SessionWriter { file, path };
        writer.end_torn_line()?;
        Ok(writer)
    }

    /// Loads session `id`, after checking its header names this id and this store's
    /// workspace ([`SessionError::Mismatch`] otherwise).
    pub fn load(&self, id: &str) -> Result<LoadedSession, SessionError> {
        let path = self.path(id)?;
        let file = open_regular(&path, SESSION_FILE_CAP)
            .map_err(SessionError::Refused)?
            .ok_or_else(|| SessionError::NotFound { id: id.to_string() })?;
        let shown = path.display().to_string();
        let loaded = load_from(
            BufReader::with_capacity(1 << 20, file.take(SESSION_FILE_CAP)),
            &shown,
        )?;
        let (recorded_id, recorded_cwd) = match &loaded.meta {
            SessionRecord::Meta {
                session_id, cwd, ..
            } => (session_id.as_str(), cwd.as_str()),
            _ => ("", ""),
        };
        let workspace = self.workspace.display().to_string();
        if recorded_id != id || recorded_cwd != workspace {
            return Err(SessionError::Mismatch {
                path: shown,
                id: id.to_string(),
                workspace,
                recorded_id: recorded_id.to_string(),
                recorded_cwd: recorded_cwd.to_string(),
            });
        }
        Ok(loaded)
    }

    /// The most recently written session of this workspace.
    pub fn latest(&self) -> Option<String> {
        self.files()
            .into_iter()
            .max_by_key(|(_, modified)| *modified)
            .map(|(id, _)| id)
    }

    /// This workspace's session ids, most recently active first (none loaded).
    pub fn ids_newest_first(&self) -> Vec<String> {
        let mut files = self.files();
        files.sort_by_key(|f| std::cmp::Reverse(f.1));
        files.into_iter().map(|(id, _)| id).collect()
    }

    /// Summaries of this workspace's sessions, most recently active first. Unreadable files
    /// are skipped, and so are runs that never got an answer (0 requests): they hold nothing
    /// to continue.
    pub fn list(&self) -> Vec<SessionSummary> {
        let mut files = self.files();
        files.sort_by_key(|f| std::cmp::Reverse(f.1));
        files
            .into_iter()
            .filter_map(|(id, modified)| Some((self.load(&id).ok()?, modified)))
            .filter(|(loaded, _)| loaded.requests > 0)
            .map(|(loaded, modified)| SessionSummary {
                last_active: Some(modified),
                ..loaded.summary()
            })
            .collect()
    }

    fn files(&self) -> Vec<(String, std::time::SystemTime)> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        entries
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let id = name.strip_suffix(".jsonl")?.to_string();
                let meta = e.metadata().ok()?;
                // An empty file holds no session (left by an older rein killed at its start).
                if meta.len() == 0 {
                    return None;
                }
                Some((id, meta.modified().ok()?))
            })
            .collect()
    }
}

/// Appends records to a session file, one line each, flushed as written. Holds the file's
/// exclusive lock until dropped.
#[derive(Debug)]
pub struct SessionWriter {
    file: Flock<File>,
    path: PathBuf,
}

/// `record` as one line of the session file at `path`.
fn record_line(record: &SessionRecord, path: &Path) -> Result<Vec<u8>, SessionError> {
    let mut line =
        serde_json::to_vec(&SessionLine::from(record.clone())).map_err(|e| SessionError::Io {
            path: path.display().to_string(),
            source: io::Error::other(e),
        })?;
    line.push(b'\n');
    Ok(line)
}

/// `file` with its exclusive lock taken without waiting: [`SessionError::InUse`] when another
/// process holds it.
fn lock(file: File, id: &str, path: &Path) -> Result<Flock<File>, SessionError> {
    Flock::lock(file, FlockArg::LockExclusiveNonblock).map_err(|(_, errno)| {
        if errno == nix::errno::Errno::EWOULDBLOCK {
            SessionError::InUse { id: id.to_string() }
        } else {
            SessionError::Io {
                path: path.display().to_string(),
                source: io::Error::from(errno),
            }
        }
    })
}

impl SessionWriter {
    /// Writes one record as one line in a single write.
    pub fn append(&mut self, record: &SessionRecord) -> Result<(), SessionError> {
        let line = record_line(record, &self.path)?;
        self.file
            .write_all(&line)
            .and_then(|()| self.file.flush())
            .map_err(|source| SessionError::Io {
                path: self.path.display().to_string(),
                source,
            })
    }

    /// The file written to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn end_torn_line(&mut self) -> Result<(), SessionError> {
        let torn = last_byte(&self.path).is_some_and(|b| b != b'\n');
        if torn {
            self.file
                .write_all(b"\n")
                .map_err(|source| SessionError::Io {
                    path: self.path.display().to_string(),
                    source,
                })?;
        }
        Ok(())
    }
}

/// The last byte of the regular file at `path`, read alone.
fn last_byte(path: &Path) -> Option<u8> {
    let mut file = open_regular(path, u64::MAX).ok()??;
    file.seek(SeekFrom::End(-1)).ok()?;
    let mut byte = [0u8; 1];
    file.read_exact(&mut byte).ok()?;
    Some(byte[0])
}

/// A folder name for a workspace: its path made file-name safe, plus a short hash so two
/// paths that sanitise alike never share a folder.
pub fn workspace_key(workspace: &Path) -> String {
    let text = workspace.display().to_string();
    let safe: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let tail: String = safe
        .chars()
        .rev()
        .take(80)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    // FNV-1a: stable across builds and platforms, unlike the std hasher.
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{tail}-{:08x}", hash & 0xffff_ffff)
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
