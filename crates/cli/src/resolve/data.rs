//! The folders under rein's own where a session keeps what it writes.

use rein_engine::AgentConfig;

use super::Folders;
use super::schedule::{JobsKept, schedule_place};
use crate::config::Config;

/// Where the session keeps what it writes under rein's folders: saved outputs, checkpoints,
/// the model's memory, task boards, durable scheduled jobs; the user's memory file's folder.
pub(super) fn folders(agent: &mut AgentConfig, folders: &Folders, config: &Config) {
    let data = folders.data.as_ref();
    agent.outputs_root = data.map(|dir| dir.join("outputs"));
    agent.checkpoints_root = data.map(|dir| dir.join(rein_engine::undo::CHECKPOINTS_FOLDER));
    agent.memory_root = data.map(|dir| dir.join(rein_engine::auto_memory::MEMORY_FOLDER));
    agent.tasks_root = data.map(|dir| dir.join(rein_engine::undo::TASKS_FOLDER));
    let kept = match config.workspace_trusted {
        true => JobsKept::InWorkspace,
        false => JobsKept::InData,
    };
    agent.schedule_place = data.map(|dir| schedule_place(dir, &agent.workspace, kept));
    agent.user_memory_dir = folders.config.clone();
    agent.claude_memory_dir = folders.claude.clone();
}
