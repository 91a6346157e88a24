//! Durable sessions: an append-only JSONL file per session under the user's data folder, keyed
//! by workspace (`<data>/sessions/<workspace key>/<session id>.jsonl`), one
//! [`SessionLine`] per line, written and flushed at every message boundary so a killed process
//! loses at most the message in flight. Loading skips a torn last line (with a warning) and
//! record types it does not know; the transcript is rebuilt by joining consecutive parts of
//! the same role.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use rein_protocol::{Message, SessionLine, SessionRecord, Usage};

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
}

impl SessionStore {
    /// The store for `workspace` under `data_dir` (rein's data folder).
    pub fn new(data_dir: &Path, workspace: &Path) -> Self {
        Self {
            dir: data_dir.join("sessions").join(workspace_key(workspace)),
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

    /// Starts a new session file with its header.
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
        std::fs::create_dir_all(&self.dir).map_err(io_err)?;
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(&path)
            .map_err(io_err)?;
        let mut writer = SessionWriter { file, path };
        writer.append(&meta)?;
        Ok(writer)
    }

    /// Reopens session `id` to append to it.
    pub fn append_to(&self, id: &str) -> Result<SessionWriter, SessionError> {
        let path = self.path(id)?;
        let file = OpenOptions::new()
            .append(true)
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
        // A torn last line (killed mid-write) must not swallow the next record.
        let mut writer = SessionWriter { file, path };
        writer.end_torn_line()?;
        Ok(writer)
    }

    /// Loads session `id`.
    pub fn load(&self, id: &str) -> Result<LoadedSession, SessionError> {
        let path = self.path(id)?;
        let file = File::open(&path).map_err(|source| {
            if source.kind() == io::ErrorKind::NotFound {
                SessionError::NotFound { id: id.to_string() }
            } else {
                SessionError::Io {
                    path: path.display().to_string(),
                    source,
                }
            }
        })?;
        load_from(
            BufReader::with_capacity(1 << 20, file),
            &path.display().to_string(),
        )
    }

    /// The most recently written session of this workspace.
    pub fn latest(&self) -> Option<String> {
        self.files()
            .into_iter()
            .max_by_key(|(_, modified)| *modified)
            .map(|(id, _)| id)
    }

    /// Summaries of this workspace's sessions, newest first. Unreadable files are skipped.
    pub fn list(&self) -> Vec<SessionSummary> {
        let mut files = self.files();
        files.sort_by_key(|f| std::cmp::Reverse(f.1));
        files
            .into_iter()
            .filter_map(|(id, _)| self.load(&id).ok())
            .map(|s| s.summary())
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
                let modified = e.metadata().and_then(|m| m.modified()).ok()?;
                Some((id, modified))
            })
            .collect()
    }
}

/// Appends records to a session file, one line each, flushed as written.
#[derive(Debug)]
pub struct SessionWriter {
    file: File,
    path: PathBuf,
}

impl SessionWriter {
    /// Writes one record as one line in a single write.
    pub fn append(&mut self, record: &SessionRecord) -> Result<(), SessionError> {
        let mut line = serde_json::to_vec(&SessionLine::from(record.clone())).map_err(|e| {
            SessionError::Io {
                path: self.path.display().to_string(),
                source: io::Error::other(e),
            }
        })?;
        line.push(b'\n');
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
        let torn = std::fs::read(&self.path)
            .map(|bytes| bytes.last().is_some_and(|b| *b != b'\n'))
            .unwrap_or(false);
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

/// A session read back.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSession {
    /// The header record.
    pub meta: SessionRecord,
    /// The transcript, consecutive same-role parts joined.
    pub transcript: Vec<Message>,
    /// Usage summed over the session's requests.
    pub usage: Usage,
    /// Cost summed over the session; `None` when any request's price was unknown.
    pub cost_usd: Option<f64>,
    /// Model requests made.
    pub requests: u32,
    /// Problems skipped while reading (a torn last line…).
    pub warnings: Vec<String>,
}

/// One line of `rein sessions`.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSummary {
    /// Session id.
    pub id: String,
    /// Creation time (RFC 3339).
    pub created_at: String,
    /// The first prompt, on one line.
    pub first_prompt: String,
    /// Model requests made.
    pub requests: u32,
    /// Cost in US dollars, when known.
    pub cost_usd: Option<f64>,
    /// Usage totals.
    pub usage: Usage,
}

impl LoadedSession {
    /// The session's id.
    pub fn id(&self) -> &str {
        match &self.meta {
            SessionRecord::Meta { session_id, .. } => session_id,
            _ => "",
        }
    }

    fn summary(&self) -> SessionSummary {
        let created_at = match &self.meta {
            SessionRecord::Meta { created_at, .. } => created_at.clone(),
            _ => String::new(),
        };
        let first_prompt = self
            .transcript
            .iter()
            .find(|m| m.role == rein_protocol::Role::User)
            .map(|m| m.text().split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default();
        SessionSummary {
            id: self.id().to_string(),
            created_at,
            first_prompt,
            requests: self.requests,
            cost_usd: self.cost_usd,
            usage: self.usage,
        }
    }
}

/// Reads a session from any reader (a file, or bytes in tests).
pub fn load_from(reader: impl BufRead, path: &str) -> Result<LoadedSession, SessionError> {
    let mut meta = None;
    let mut transcript: Vec<Message> = Vec::new();
    let mut usage = Usage::default();
    let mut cost: Option<f64> = Some(0.0);
    let mut requests = 0;
    let mut warnings = Vec::new();
    let mut lines = reader.lines().enumerate().peekable();
    while let Some((index, line)) = lines.next() {
        let line = line.map_err(|source| SessionError::Io {
            path: path.to_string(),
            source,
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let parsed: Result<SessionLine, _> = serde_json::from_str(&line);
        let record = match parsed {
            Ok(parsed) => parsed.record,
            Err(e) if lines.peek().is_none() => {
                warnings.push(format!("skipped a torn last line {} ({e})", index + 1));
                break;
            }
            Err(e) if meta.is_none() => {
                return Err(SessionError::Corrupt {
                    path: path.to_string(),
                    reason: format!("line {}: {e}", index + 1),
                });
            }
            Err(e) => {
                warnings.push(format!("skipped unreadable line {} ({e})", index + 1));
                continue;
            }
        };
        match record {
            SessionRecord::Meta { .. } if meta.is_none() => meta = Some(record),
            SessionRecord::Meta { .. } => {}
            _ if meta.is_none() => {
                return Err(SessionError::Corrupt {
                    path: path.to_string(),
                    reason: "the first record is not a session header".into(),
                });
            }
            SessionRecord::Message { message } => match transcript.last_mut() {
                Some(last) if last.role == message.role => last.content.extend(message.content),
                _ => transcript.push(message),
            },
            SessionRecord::Usage {
                usage: used,
                cost_usd,
                ..
            } => {
                usage.add(&used);
                requests += 1;
                cost = cost.zip(cost_usd).map(|(a, b)| rein_llm::round_cost(a + b));
            }
            SessionRecord::Compaction {
                summary,
                kept_messages,
                ..
            } => transcript = crate::context::compacted(transcript, &summary, kept_messages),
            SessionRecord::Error { .. } | SessionRecord::Unknown => {}
        }
    }
    let meta = meta.ok_or_else(|| SessionError::Corrupt {
        path: path.to_string(),
        reason: "the file is empty".into(),
    })?;
    Ok(LoadedSession {
        meta,
        transcript,
        usage,
        cost_usd: cost,
        requests,
        warnings,
    })
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
