//! Session records: one JSON object per line of a session file (`docs/sessions.md`).
//!
//! Records only ever get new optional fields within a schema version; a reader skips record
//! types it does not know, so newer files still load in older readers as far as they can.

use serde::{Deserialize, Serialize};

use crate::{Message, Usage};

/// Version of the session record schema.
pub const SESSION_SCHEMA_VERSION: u32 = 1;

/// One line of a session file: a record with its schema version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionLine {
    /// Schema version ([`SESSION_SCHEMA_VERSION`]).
    pub v: u32,
    /// The record.
    #[serde(flatten)]
    pub record: SessionRecord,
}

impl From<SessionRecord> for SessionLine {
    fn from(record: SessionRecord) -> Self {
        Self {
            v: SESSION_SCHEMA_VERSION,
            record,
        }
    }
}

/// What a session file records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SessionRecord {
    /// First line of a file: the session's identity.
    Meta {
        /// Session identifier (also the file name).
        session_id: String,
        /// When the session was created (RFC 3339).
        created_at: String,
        /// Workspace root.
        cwd: String,
        /// Model at creation.
        model: String,
        /// Provider name at creation.
        provider: String,
        /// The session this one was forked from, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        forked_from: Option<String>,
    },
    /// A message appended to the transcript. Consecutive records of the same role belong to
    /// one message (a user message may be written in parts: tool results, then a prompt).
    Message {
        /// The message (or part of it).
        message: Message,
    },
    /// Usage of one model request.
    Usage {
        /// Model that served the request.
        model: String,
        /// Reported usage.
        usage: Usage,
        /// Cost in US dollars when the model is priced.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost_usd: Option<f64>,
    },
    /// The transcript was compacted: everything before the last `kept_messages` messages
    /// became `summary`.
    Compaction {
        /// What started it: `auto`, `reactive` or `manual`.
        trigger: String,
        /// The summary that replaces the earlier messages.
        summary: String,
        /// Messages kept verbatim at the end of the transcript.
        kept_messages: usize,
    },
    /// An error that ended a run.
    Error {
        /// What went wrong.
        message: String,
    },
    /// The todo list after a `todo_write` call (the last one is restored on resume, and
    /// survives compaction).
    Todos {
        /// The items.
        todos: Vec<crate::TodoItem>,
    },
    /// Files were put back as they were before some user turns (`rein undo`, `/rewind`); a
    /// session resumed after it tells the model.
    Restored {
        /// The turns undone.
        turns: Vec<u32>,
        /// The files restored, recreated or removed, relative to the workspace.
        files: Vec<String>,
    },
    /// A record of a subagent's own transcript (its side chain), kept beside the parent's:
    /// resuming restores the parent's transcript only.
    Sidechain {
        /// The parent's `task` call that ran the subagent.
        agent_id: String,
        /// The subagent's definition.
        agent: String,
        /// The subagent's record (a message, usage, an error).
        record: Box<SessionRecord>,
    },
    /// A teammate started or stopped: the teammates started and not stopped are the roster a
    /// resumed session starts again (idle, with their side chains as their context).
    Teammate {
        /// Its name.
        name: String,
        /// Its definition.
        agent: String,
        /// `started` or `stopped`.
        state: String,
        /// Its own permission mode (`plan`), when it has one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<String>,
        /// The worktree it works in, when isolated.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        worktree: Option<String>,
    },
    /// The session moved into a worktree (`path`; `made`: by `enter_worktree`) or back to its
    /// workspace (no `path`); a resumed session continues where the last one left it.
    Worktree {
        /// The worktree's folder.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        path: Option<String>,
        /// Whether this session made it (and so may remove it).
        #[serde(default)]
        made: bool,
    },
    /// A record type this reader does not know (written by a newer rein); skipped.
    #[serde(other)]
    Unknown,
}
