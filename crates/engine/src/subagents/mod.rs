//! Subagents: the `task` tool runs a task in a fresh agent — its definition's system prompt and
//! tools, the task as its only message — and gives the parent only the final answer. The
//! subagent shares the parent's workspace guard, permission policy, hooks, approver, output
//! budget and path locks; it has no `task` tool of its own. Its events reach the parent's
//! stream wrapped in `Event::Subagent`; its usage counts toward the session.

mod background;
mod definitions;
mod isolation;
mod spawner;
mod task;
mod team;

pub use background::{Background, BackgroundTask, StopError};
pub use definitions::{
    AgentDefinition, DefinitionError, Isolation, Loaded, ModelChoice, built_in, load, parse,
};
pub(crate) use spawner::Spawner;
pub(crate) use task::TaskTool;
pub use team::{DEFAULT_MAX_TEAMMATES, LEAD, SEND_TOOL};
pub(crate) use team::{PlanToLead, Restore, SendMessageTool, Team};

use std::sync::Arc;
use std::time::Duration;

/// How a teammate's records are marked in the session file (`teammate-<name>`, its side
/// chain's id).
pub const TEAMMATE_PREFIX: &str = "teammate-";

/// The tool's name for the model (hooks and rules see Claude Code's `Agent`; rules may also
/// say `Task`).
pub const TASK_TOOL: &str = "task";

/// A subagent's run is bounded by its turns, not by the dispatch's per-call timeout; this is
/// the backstop.
pub(crate) const TASK_TIMEOUT: Duration = Duration::from_secs(3600);

/// How long a parent that has nothing left to do waits for a background subagent's answer.
pub(crate) const BACKGROUND_WAIT: Duration = Duration::from_secs(1800);

/// Model requests a subagent may make before it must answer.
pub const SUBAGENT_MAX_TURNS: u32 = 30;

pub use rein_llm::models::ModelSource;

/// What an agent offers through its `task` tool.
#[derive(Clone)]
pub struct Subagents {
    /// The definitions the model can name (built-in first, then files).
    pub definitions: Vec<AgentDefinition>,
    /// Clients for the models definitions name; without one every subagent uses the parent's.
    pub models: Option<Arc<dyn ModelSource>>,
    /// Model requests per subagent run.
    pub max_turns: u32,
    /// Most teammates running at once (`max_teammates`).
    pub max_teammates: usize,
}

impl Subagents {
    /// The built-in definitions with `definitions` read from files on top.
    pub fn new(definitions: Vec<AgentDefinition>) -> Self {
        Self {
            definitions,
            models: None,
            max_turns: SUBAGENT_MAX_TURNS,
            max_teammates: DEFAULT_MAX_TEAMMATES,
        }
    }
}

impl std::fmt::Debug for Subagents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subagents")
            .field(
                "definitions",
                &self.definitions.iter().map(|d| &d.name).collect::<Vec<_>>(),
            )
            .field("models", &self.models.is_some())
            .field("max_turns", &self.max_turns)
            .field("max_teammates", &self.max_teammates)
            .finish()
    }
}
