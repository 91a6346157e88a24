//! Claude Code's name for each of rein's tools: the one table the Claude dialect's output
//! (`system/init`'s tool list, `tool_use` blocks, permission denials) reads. A tool's facts
//! carry the same name for hooks and rules (tests check they agree); tools Claude Code lacks
//! get a name in its style.

/// `(rein's name, Claude Code's name)`, every tool rein offers.
pub const CLAUDE_NAMES: &[(&str, &str)] = &[
    ("bash", "Bash"),
    ("bash_output", "BashOutput"),
    ("kill_shell", "KillShell"),
    ("write_stdin", "WriteStdin"),
    ("exec_command", "Bash"),
    ("read_file", "Read"),
    ("view_image", "Read"),
    ("write_file", "Write"),
    ("edit_file", "Edit"),
    ("apply_patch", "apply_patch"),
    ("notebook_edit", "NotebookEdit"),
    ("glob", "Glob"),
    ("grep", "Grep"),
    ("repo_map", "RepoMap"),
    ("todo_write", "TodoWrite"),
    ("task_create", "TaskCreate"),
    ("task_get", "TaskGet"),
    ("task_list", "TaskList"),
    ("task_update", "TaskUpdate"),
    ("diagnostics", "LSP"),
    ("definition", "LSP"),
    ("references", "LSP"),
    ("hover", "LSP"),
    ("task", "Agent"),
    ("skill", "Skill"),
    ("exit_plan_mode", "ExitPlanMode"),
    ("ask_user_question", "AskUserQuestion"),
    ("request_user_input", "AskUserQuestion"),
    ("web_fetch", "WebFetch"),
    ("web_search", "WebSearch"),
    ("memory", "Memory"),
    ("send_message", "SendMessage"),
    ("cron_create", "CronCreate"),
    ("cron_delete", "CronDelete"),
    ("cron_list", "CronList"),
    ("schedule_wakeup", "ScheduleWakeup"),
    ("enter_worktree", "EnterWorktree"),
    ("exit_worktree", "ExitWorktree"),
    ("tool_search", "ToolSearch"),
    ("compact", "Compact"),
    ("list_mcp_resources", "ListMcpResourcesTool"),
    ("read_mcp_resource", "ReadMcpResourceTool"),
];

/// Claude Code's name for rein's tool `name`; `None` for a name rein does not have (an MCP
/// server's `mcp__…` tools keep theirs).
pub fn claude_name(name: &str) -> Option<&'static str> {
    CLAUDE_NAMES
        .iter()
        .find(|(rein, _)| *rein == name)
        .map(|(_, claude)| *claude)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_tools_own_claude_name_is_the_tables() {
        let registry = crate::ToolRegistry::builtin();
        let guard = crate::WorkspaceGuard::new(std::env::temp_dir().as_path()).unwrap();
        for name in crate::ToolRegistry::builtin_names() {
            let facts = registry.facts(name, &serde_json::json!({}), &guard);
            assert_eq!(
                Some(facts.claude_name.as_str()),
                claude_name(name),
                "{name}"
            );
        }
        let names: Vec<&str> = CLAUDE_NAMES.iter().map(|(rein, _)| *rein).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "each tool once");
    }
}
