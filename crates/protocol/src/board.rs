//! The session's task board as data: one task in Claude Code's shape (`TaskCreate`,
//! `TaskUpdate`, the files under `~/.claude/tasks/`), as the board stores it, the tools return
//! it and `tasks` events carry it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One task of the board.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoardTask {
    /// `"1"`, `"2"`, … counting per board.
    pub id: String,
    /// Short imperative title (`Run the tests`).
    pub subject: String,
    /// What is to be done.
    #[serde(default)]
    pub description: String,
    /// The subject in the present continuous, shown while it is in progress.
    #[serde(
        rename = "activeForm",
        default,
        skip_serializing_if = "String::is_empty"
    )]
    pub active_form: String,
    /// Where it stands.
    pub status: TaskStatus,
    /// The agent working on it (`main`, a teammate's name), when one claimed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Tasks that cannot start until this one is completed.
    #[serde(default)]
    pub blocks: Vec<String>,
    /// Tasks that must be completed before this one.
    #[serde(rename = "blockedBy", default)]
    pub blocked_by: Vec<String>,
    /// Free key/values the model keeps with the task.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
}

/// Where a task stands. `deleted` is only ever an instruction: a deleted task leaves the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
}

impl TaskStatus {
    /// The name the tools and events use (`in_progress`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::InProgress => "in_progress",
            Self::Completed => "completed",
        }
    }
}

impl std::fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
