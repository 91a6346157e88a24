//! `todo_write`: the model's todo list, in Claude Code's older shape, as a view of the
//! session's task board: each call replaces the tasks the calling agent may change (its own
//! and unowned ones) with the list, matched by subject (the engine reports the board and
//! reminds the model of it).

use async_trait::async_trait;
use rein_protocol::{TodoItem, TodoStatus};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{CallFacts, Effect, ToolContext, ToolOutput, TypedTool, WorkspaceGuard};

/// Most items a list may hold.
const MAX_ITEMS: usize = 100;

/// One item as the model writes it.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TodoArg {
    /// What is to be done, imperative ("Run the tests").
    pub content: String,
    /// pending, in_progress or completed.
    pub status: TodoStatusArg,
    /// The same in the present continuous ("Running the tests").
    #[serde(rename = "activeForm")]
    pub active_form: String,
}

/// Where an item stands.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatusArg {
    /// Not started.
    Pending,
    /// Being worked on (at most one).
    InProgress,
    /// Done.
    Completed,
}

/// Arguments of `todo_write`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TodoWriteArgs {
    /// The whole updated list.
    pub todos: Vec<TodoArg>,
}

/// The `todo_write` tool.
#[derive(Debug, Default)]
pub struct TodoWrite;

#[async_trait]
impl TypedTool for TodoWrite {
    type Args = TodoWriteArgs;
    const NAME: &'static str = "todo_write";
    // Rarely used; not worth its definition in a small window.
    const LEAN: crate::Lean = crate::Lean::LeftOut;
    const CLAUDE_NAME: &'static str = "TodoWrite";

    fn description(&self) -> String {
        "Keeps your todo list for this task: send the whole updated list each time. Use it \
         for work of three or more steps: write the steps first, mark one in_progress before \
         you start it (only one at a time), mark it completed as soon as it is done, and add \
         steps you discover. Skip it for a single simple step."
            .to_string()
    }

    fn effect(&self, _args: &TodoWriteArgs) -> Effect {
        Effect::ReadOnly
    }

    fn describe(&self, args: &TodoWriteArgs, _guard: &WorkspaceGuard, facts: &mut CallFacts) {
        let done = args
            .todos
            .iter()
            .filter(|t| matches!(t.status, TodoStatusArg::Completed))
            .count();
        let current = args
            .todos
            .iter()
            .find(|t| matches!(t.status, TodoStatusArg::InProgress))
            .map_or(String::new(), |t| format!(" · {}", t.content.trim()));
        facts.summary = format!("{done}/{} done{current}", args.todos.len());
        facts.serial = true;
    }

    async fn run(&self, args: TodoWriteArgs, ctx: &ToolContext) -> ToolOutput {
        if args.todos.len() > MAX_ITEMS {
            return ToolOutput::error(format!(
                "{} items: a todo list holds at most {MAX_ITEMS}; merge steps",
                args.todos.len()
            ));
        }
        if let Some(at) = args.todos.iter().position(|t| t.content.trim().is_empty()) {
            return ToolOutput::error(format!("item {} has no content", at + 1));
        }
        let started = args
            .todos
            .iter()
            .filter(|t| matches!(t.status, TodoStatusArg::InProgress))
            .count();
        if started > 1 {
            return ToolOutput::error(format!(
                "{started} items are in_progress: work on one at a time (mark the others \
                 pending or completed); the list was not changed"
            ));
        }
        let todos: Vec<TodoItem> = args
            .todos
            .into_iter()
            .map(|t| TodoItem {
                content: t.content.trim().to_string(),
                status: match t.status {
                    TodoStatusArg::Pending => TodoStatus::Pending,
                    TodoStatusArg::InProgress => TodoStatus::InProgress,
                    TodoStatusArg::Completed => TodoStatus::Completed,
                },
                active_form: t.active_form.trim().to_string(),
            })
            .collect();
        let done = todos
            .iter()
            .filter(|t| t.status == TodoStatus::Completed)
            .count();
        let total = todos.len();
        if let Err(error) = ctx
            .services
            .get::<rein_board::Board>()
            .sync_todos(&todos, &ctx.agent_name)
        {
            return ToolOutput::error(error.to_string());
        }
        ToolOutput::ok(format!(
            "The todo list is updated ({done} of {total} done). Keep it current: mark each \
             item completed as soon as it is done."
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_calls_summary_counts_what_is_done_and_names_the_step_under_way() {
        let dir = tempfile::tempdir().unwrap();
        let guard = WorkspaceGuard::new(dir.path()).unwrap();
        let args = serde_json::json!({"todos": [
            {"content": "Read the code", "status": "completed", "activeForm": "Reading"},
            {"content": "Run the tests", "status": "in_progress", "activeForm": "Running"},
            {"content": "Fix the bug", "status": "pending", "activeForm": "Fixing"}
        ]});
        let facts = crate::ToolRegistry::builtin().facts("todo_write", &args, &guard);
        assert_eq!(facts.summary, "1/3 done · Run the tests");
    }
}
