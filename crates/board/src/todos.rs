//! `todo_write` over the board: an agent's todo list is the board's tasks it may change (its
//! own and unowned ones), replaced whole by each call.

use rein_protocol::{BoardTask, TaskStatus, TodoItem, TodoStatus};

use crate::{State, Touched, graph};

/// Makes the tasks `by` may change match `items`: an item keeps the task with its subject
/// (first unmatched one), new items become tasks, and tasks no item names are deleted. Tasks
/// other agents own are left alone.
pub(crate) fn sync(state: &mut State, items: &[TodoItem], by: &str) -> Touched {
    let mut touched = Touched::default();
    let mine: Vec<u64> = state
        .tasks
        .iter()
        .filter(|(_, t)| t.owner.as_deref().is_none_or(|o| o == by))
        .map(|(k, _)| *k)
        .collect();
    let mut matched = Vec::new();
    for item in items {
        let subject = item.content.trim();
        let status = match item.status {
            TodoStatus::Pending => TaskStatus::Pending,
            TodoStatus::InProgress => TaskStatus::InProgress,
            TodoStatus::Completed => TaskStatus::Completed,
        };
        let found = mine
            .iter()
            .find(|k| !matched.contains(*k) && state.tasks[*k].subject == subject)
            .copied();
        let key = match found {
            Some(key) => key,
            None => {
                let key = state.next_id.max(1);
                state.next_id = key + 1;
                state.tasks.insert(key, new_task(key, subject));
                key
            }
        };
        matched.push(key);
        if let Some(task) = state.tasks.get_mut(&key)
            && (task.status != status
                || task.active_form != item.active_form.trim()
                || found.is_none())
        {
            task.status = status;
            task.active_form = item.active_form.trim().to_string();
            touched.written.push(key);
        }
    }
    for key in mine.into_iter().filter(|k| !matched.contains(k)) {
        let (_, gone) = graph::delete(state, key);
        touched.removed.extend(gone.removed);
        touched.written.extend(gone.written);
    }
    touched.written.retain(|k| state.tasks.contains_key(k));
    touched
}

fn new_task(key: u64, subject: &str) -> BoardTask {
    BoardTask {
        id: key.to_string(),
        subject: subject.to_string(),
        description: String::new(),
        active_form: String::new(),
        status: TaskStatus::Pending,
        owner: None,
        blocks: Vec::new(),
        blocked_by: Vec::new(),
        metadata: Default::default(),
    }
}
