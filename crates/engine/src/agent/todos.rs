//! The todo list in the loop: reported and recorded after each `todo_write`, restored on
//! resume, kept through compaction, and a reminder when open items go untouched.

use rein_protocol::{ContentBlock, Event, SessionRecord, TodoItem, TodoStatus};
use serde_json::Value;

use super::Agent;
use crate::EventSender;
use crate::emitter::Emitter;

/// Model turns without a `todo_write` while items are open before the reminder.
pub(super) const REMIND_AFTER: u32 = 3;

const TODO_TOOL: &str = "todo_write";

impl Agent {
    /// Continues a stored session: its transcript, usage, cost and todo list (see
    /// [`Agent::restore`]).
    pub fn resume_from(&mut self, loaded: crate::session::LoadedSession) {
        self.tool_ctx.todos.set(loaded.todos);
        self.checkpointing.restored = loaded.restored;
        self.restore(loaded.transcript, loaded.usage, loaded.cost_usd);
    }

    /// The todo list as it is now.
    pub fn todos(&self) -> Vec<TodoItem> {
        self.tool_ctx.todos.get()
    }

    /// After a batch: a successful `todo_write` is reported and recorded and restarts the
    /// count; otherwise the turn counts, and the third in a row with open items adds the
    /// reminder to the batch's last result.
    pub(super) fn after_todos(
        &mut self,
        calls: &[(String, String, Value)],
        results: &mut [ContentBlock],
        events: &EventSender,
    ) {
        let wrote = calls.iter().any(|(id, name, _)| {
            name == TODO_TOOL
                && results.iter().any(|b| {
                    matches!(b, ContentBlock::ToolResult { tool_use_id, is_error: false, .. }
                        if tool_use_id == id)
                })
        });
        if wrote {
            self.watch.turns_without_todos = 0;
            let todos = self.tool_ctx.todos.get();
            self.record(SessionRecord::Todos {
                todos: todos.clone(),
            });
            events.emit(Event::Todos { todos });
            return;
        }
        self.watch.turns_without_todos += 1;
        if self.watch.turns_without_todos < REMIND_AFTER || !self.tool_ctx.todos.has_open() {
            return;
        }
        self.watch.turns_without_todos = 0;
        if let Some(ContentBlock::ToolResult { content, .. }) = results.last_mut() {
            content.push_str("\n\n");
            content.push_str(&reminder(&self.tool_ctx.todos.get()));
        }
    }
}

/// The reminder: the open items, and what to do with the list.
fn reminder(todos: &[TodoItem]) -> String {
    format!(
        "<system-reminder>Your todo list has not changed for {REMIND_AFTER} turns. Update it with \
         todo_write as you go (mark finished items completed, the current one in_progress). \
         As it stands:\n{}</system-reminder>",
        render(todos)
    )
}

/// The list as lines (`- [in_progress] Run the tests`), for the model.
pub(super) fn render(todos: &[TodoItem]) -> String {
    todos
        .iter()
        .map(|t| {
            let status = match t.status {
                TodoStatus::Pending => "pending",
                TodoStatus::InProgress => "in_progress",
                TodoStatus::Completed => "completed",
            };
            format!("- [{status}] {}", t.content)
        })
        .collect::<Vec<_>>()
        .join("\n")
}
