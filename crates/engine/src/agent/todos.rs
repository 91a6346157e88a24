//! The task board in the loop: reported after each call that changed it (`tasks` and the
//! older `todos` view), kept through compaction and resume (it lives in its own files), and a
//! reminder when open tasks go untouched.

use rein_protocol::{BoardTask, ContentBlock, Event, TaskStatus, TodoItem, TodoStatus};
use serde_json::Value;

use super::Agent;
use crate::EventSender;
use crate::emitter::Emitter;

/// Model turns without a board change while tasks are open before the reminder.
pub(super) const REMIND_AFTER: u32 = 3;

impl Agent {
    /// Continues a stored session: its transcript, usage, cost, and the todo list an older
    /// rein kept in the session file when the board is empty (see [`Agent::restore`]).
    pub fn resume_from(&mut self, loaded: crate::session::LoadedSession) {
        if let Err(error) = self
            .tool_ctx
            .services
            .get::<rein_board::Board>()
            .import_todos(&loaded.todos)
        {
            self.opening
                .notices
                .push(format!("the stored todo list was not restored: {error}"));
        }
        self.checkpointing.restored = loaded.restored;
        if let Some(stored) = &loaded.worktree {
            self.resume_in_worktree(stored);
        }
        if let Some(spawner) = &self.delegation.spawner {
            let restores = (loaded.roster.iter())
                .map(|entry| crate::subagents::Restore {
                    entry: entry.clone(),
                    transcript: (loaded.sidechains.iter())
                        .find(|(id, _, _)| {
                            id.strip_prefix(crate::subagents::TEAMMATE_PREFIX) == Some(&entry.name)
                        })
                        .map(|(_, _, messages)| messages.clone())
                        .unwrap_or_default(),
                })
                .collect();
            spawner.restore_later(restores);
        }
        self.restore(loaded.transcript, loaded.usage, loaded.cost_usd);
    }

    /// The task board as it is now.
    pub fn tasks(&self) -> Vec<BoardTask> {
        self.tool_ctx.services.get::<rein_board::Board>().list()
    }

    /// After a batch: a successful call that changed the board reports it and restarts the
    /// count; otherwise the turn counts, and the third in a row with open tasks adds the
    /// reminder to the batch's last result.
    pub(super) fn after_todos(
        &mut self,
        calls: &[(String, String, Value)],
        results: &mut [ContentBlock],
        events: &EventSender,
    ) {
        let wrote = calls.iter().any(|(id, name, _)| {
            rein_tools::BOARD_WRITERS.contains(&name.as_str()) && succeeded(results, id)
        });
        if wrote {
            self.watch.turns_without_todos = 0;
            report_board(&self.tool_ctx.services.get::<rein_board::Board>(), events);
            return;
        }
        self.watch.turns_without_todos += 1;
        if self.watch.turns_without_todos < REMIND_AFTER
            || !self.tool_ctx.services.get::<rein_board::Board>().has_open()
        {
            return;
        }
        self.watch.turns_without_todos = 0;
        if let Some(ContentBlock::ToolResult { content, .. }) = results.last_mut() {
            content.push_str("\n\n");
            content.push_str(&reminder(
                &self.tool_ctx.services.get::<rein_board::Board>(),
            ));
        }
    }
}

/// Whether call `id`'s result among `results` is a success.
pub(super) fn succeeded(results: &[ContentBlock], id: &str) -> bool {
    results.iter().any(|b| {
        matches!(b, ContentBlock::ToolResult { tool_use_id, is_error: false, .. }
            if tool_use_id == id)
    })
}

/// Sends the board as `tasks`, then as the older `todos` view.
pub(crate) fn report_board(board: &rein_board::Board, events: &EventSender) {
    let tasks = board.list();
    let todos = tasks.iter().map(as_todo).collect();
    events.emit(Event::Tasks { tasks });
    events.emit(Event::Todos { todos });
}

fn as_todo(task: &BoardTask) -> TodoItem {
    TodoItem {
        content: task.subject.clone(),
        status: match task.status {
            TaskStatus::Pending => TodoStatus::Pending,
            TaskStatus::InProgress => TodoStatus::InProgress,
            TaskStatus::Completed => TodoStatus::Completed,
        },
        active_form: task.active_form.clone(),
    }
}

/// The reminder: the board, and what to do with it.
fn reminder(board: &rein_board::Board) -> String {
    format!(
        "<system-reminder>The task board has not changed for {REMIND_AFTER} turns. Keep it \
         current as you go (task_update: mark finished tasks completed, the current one \
         in_progress; or todo_write with the whole list). As it stands:\n{}</system-reminder>",
        rein_tools::render_board(board)
    )
}
