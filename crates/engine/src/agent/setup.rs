//! What an agent is built from: its workspace guard, session id, output folder and system
//! prompt.

use std::path::{Path, PathBuf};

use rein_tools::{SensitivePaths, ToolRegistry, WorkspaceGuard};

use super::AgentConfig;
use crate::EngineError;
use crate::prompt::{Environment, SystemPrompt, SystemPromptBuilder};
use rein_policy::Policy;

/// The guard for `workspace` and the folders `added` to it: the sensitive list `sensitive` (compiled once by the caller,
/// who also hands it to the OS sandbox; `None`: the built-in list, `~` as `$HOME`), extended
/// with the path globs of the policy's `Read` deny rules. `rein tool` uses the same guard.
#[allow(clippy::disallowed_methods)] // HOME for `~` in the built-in sensitive list when the caller compiled none
pub fn workspace_guard(
    workspace: &Path,
    added: &[PathBuf],
    sensitive: Option<&SensitivePaths>,
    policy: &Policy,
) -> Result<WorkspaceGuard, EngineError> {
    let problem = |message: String| EngineError::Workspace {
        path: workspace.to_path_buf(),
        message,
    };
    let guard = WorkspaceGuard::new(workspace).map_err(|e| problem(e.to_string()))?;
    if guard.root() == Path::new("/") {
        return Err(problem(
            "the file system root cannot be a workspace: every file on the machine would be \
             in reach; start rein in a project folder"
                .to_string(),
        ));
    }
    let base = match sensitive {
        Some(list) => list.clone(),
        None => {
            let home = std::env::var_os("HOME").map(PathBuf::from);
            SensitivePaths::new(
                rein_tools::DEFAULT_SENSITIVE.iter().copied(),
                home.as_deref(),
            )
            .map_err(|e| problem(e.to_string()))?
        }
    };
    let sensitive = policy
        .guard_list(base)
        .map_err(|e| problem(e.to_string()))?;
    let mut guard = guard.with_sensitive(sensitive);
    // After the sensitive list: a folder it refuses cannot be added.
    for dir in added {
        guard = guard
            .with_added_dir(dir)
            .map_err(|e| problem(e.to_string()))?;
    }
    Ok(guard)
}

pub(super) fn new_session_id() -> String {
    let now = chrono::Local::now();
    let nanos = now.timestamp_subsec_nanos();
    format!(
        "{}-{:04x}{:04x}",
        now.format("%Y%m%dT%H%M%S"),
        nanos & 0xffff,
        std::process::id() & 0xffff
    )
}

/// The folder the session's over-long outputs are saved in, keyed by workspace and session (a
/// session of the same id elsewhere can neither find nor read it), added to `guard`'s read
/// roots.
pub(super) fn with_output_dir(
    guard: WorkspaceGuard,
    config: &AgentConfig,
    session_id: &str,
) -> Result<(WorkspaceGuard, Option<PathBuf>), EngineError> {
    let Some(root) = &config.outputs_root else {
        return Ok((guard, None));
    };
    let dir = root
        .join(crate::session::workspace_key(guard.root()))
        .join(session_id);
    let guard = guard
        .with_read_root(&dir)
        .map_err(|e| EngineError::Workspace {
            path: dir.clone(),
            message: format!("cannot use the output folder: {e}"),
        })?;
    Ok((guard, Some(dir)))
}

/// The session's checkpoints, keyed by workspace and session like its outputs.
pub(super) fn checkpoints(
    root: &std::path::Path,
    config: &AgentConfig,
    session_id: &str,
) -> Option<std::sync::Arc<rein_checkpoint::Checkpoints>> {
    let dir = crate::undo::checkpoints_dir(config.checkpoints_root.as_ref()?, root, session_id);
    Some(std::sync::Arc::new(
        rein_checkpoint::Checkpoints::open(&dir, config.checkpoint_cap).with_workspace(root),
    ))
}

/// The session's task board, keyed by workspace and session like its checkpoints; in memory
/// when rein keeps no data, or (said in `notices`) when its folder cannot be used.
pub(super) fn board(
    root: &Path,
    config: &AgentConfig,
    session_id: &str,
    notices: &mut Vec<String>,
) -> rein_board::Board {
    let Some(tasks) = &config.tasks_root else {
        return rein_board::Board::in_memory();
    };
    let dir = tasks
        .join(crate::session::workspace_key(root))
        .join(session_id);
    rein_board::Board::open(&dir).unwrap_or_else(|error| {
        notices.push(format!("the task board is kept in memory only: {error}"));
        rein_board::Board::in_memory()
    })
}

/// The session's schedule: durable jobs kept at the workspace's place (taken when the
/// schedule is served or the model touches them), or every job in memory when rein keeps no
/// data.
pub(super) fn schedule(config: &AgentConfig) -> rein_schedule::Schedule {
    let clock = std::sync::Arc::clone(&config.clock);
    match &config.schedule_place {
        Some(place) => rein_schedule::Schedule::durable(clock, place),
        None => rein_schedule::Schedule::in_memory(clock, "rein keeps no data here"),
    }
}

/// Registers `task` (its subagents get the tools registered so far) and, when the model may
/// load a skill, `skill`; returns the spawner that runs the subagents.
pub(super) fn add_delegating_tools(
    tools: &mut ToolRegistry,
    config: &AgentConfig,
) -> Option<std::sync::Arc<crate::subagents::Spawner>> {
    use crate::subagents::{Spawner, TASK_TOOL, TaskTool};
    use std::sync::Arc;
    let subagents = config.subagents.clone().map(|catalog| {
        let own = tools.subset(|name| name != TASK_TOOL);
        Arc::new(Spawner::new(catalog, own))
    });
    if let Some(spawner) = &subagents {
        tools.register(Arc::new(TaskTool(Arc::clone(spawner))));
        let team = Arc::clone(&spawner.team);
        tools.register(Arc::new(crate::subagents::SendMessageTool(team)));
    }
    if config.commands.skills_for_model().next().is_some() {
        tools.register(Arc::new(crate::commands::SkillTool(
            config.commands.clone(),
        )));
    }
    subagents
}

/// `guard` also letting tools read the folders of the skills the model may load (a user's
/// skill under `~/.claude/skills/` points at its own files); one that cannot be resolved is
/// left out and said.
pub(super) fn with_skill_dirs(
    mut guard: WorkspaceGuard,
    config: &AgentConfig,
    notices: &mut Vec<String>,
) -> WorkspaceGuard {
    for skill in config.commands.skills_for_model() {
        let Some(info) = &skill.skill else { continue };
        if guard.contains(&info.dir) {
            continue;
        }
        let dir = info.dir.clone();
        match guard.clone().with_read_root(&dir) {
            Ok(widened) => guard = widened,
            Err(e) => notices.push(format!(
                "skill `{}`: its folder {} cannot be read: {e}",
                skill.name,
                dir.display()
            )),
        }
    }
    guard
}

/// The system prompt for `root`, and the problems met reading its files (to report).
pub(super) fn system_prompt(
    guard: &WorkspaceGuard,
    tools: &ToolRegistry,
    config: &AgentConfig,
) -> (SystemPrompt, Vec<String>) {
    let mut builder = SystemPromptBuilder::new(Environment::detect(guard.root()), guard);
    if let Some(text) = &config.prompt_text.replace {
        builder = builder.identity(text);
    }
    if let Some(text) = &config.prompt_text.append {
        builder = builder.appended(text);
    }
    if let Some(map) = &config.prompt_text.repo_map {
        builder = builder.repo_map(&map.outline(guard, Vec::new()));
    }
    builder = builder
        .tools(tools.names())
        .profile(config.tools_profile)
        .skills(&config.commands);
    for dir in config
        .user_memory_dir
        .iter()
        .chain(&config.claude_memory_dir)
    {
        builder = builder.user_memory(dir);
    }
    if let Some(root) = &config.memory_root {
        let store = crate::auto_memory::MemoryStore::for_workspace(root, &config.workspace)
            .with_hidden(rein_tools::HiddenEnv::with(
                config.hidden_env.iter().cloned(),
            ));
        if let Some(index) = store.index() {
            builder = builder.auto_memory(&index);
        }
    }
    let warnings = builder.warnings().to_vec();
    (builder.build(), warnings)
}
