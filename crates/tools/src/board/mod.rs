//! The task board's tools, in Claude Code's shapes under rein's names: `task_create`,
//! `task_get`, `task_list`, `task_update` (hooks and rules see `TaskCreate`…). The board is
//! the session's ([`ToolContext::board`](crate::ToolContext)), shared by its agents; `by` is the
//! calling agent's name.

mod create;
mod read;
mod update;

pub use create::{TaskCreate, TaskCreateArgs};
pub use read::{TaskGet, TaskGetArgs, TaskList, TaskListArgs};
pub use update::{TaskUpdate, TaskUpdateArgs};

use rein_board::{Board, Snapshot};
use rein_protocol::BoardTask;

/// An object schema with `properties` (name, description, type) and the `required` names, as
/// `without_nulls(schema_for::<Args>())` would derive it (a test holds each tool to that):
/// written out, because deriving four schemas was a tenth of a short run's start.
fn object(properties: &[(&str, &str, serde_json::Value)], required: &[&str]) -> serde_json::Value {
    let properties: serde_json::Map<String, serde_json::Value> = properties
        .iter()
        .map(|(name, description, shape)| {
            let mut shape = shape.clone();
            if let Some(map) = shape.as_object_mut() {
                map.insert("description".into(), (*description).into());
            }
            (name.to_string(), shape)
        })
        .collect();
    serde_json::json!({
        "additionalProperties": false,
        "properties": properties,
        "required": required,
        "type": "object"
    })
}

fn string() -> serde_json::Value {
    serde_json::json!({"type": "string"})
}

pub use rein_tool::LEAD;

/// Names of the tools that change the board (the engine reports the board after them).
pub const BOARD_WRITERS: [&str; 3] = ["task_create", "task_update", "todo_write"];

/// One line per task, then what is ready: `#2 [in_progress] Build it (owner: alice)
/// [blocked by #1]`.
pub fn render(board: &Board) -> String {
    let board = board.snapshot();
    let mut lines: Vec<String> = board.tasks().map(|t| line(&board, t)).collect();
    if lines.is_empty() {
        return "The task board is empty.".to_string();
    }
    let ready: Vec<String> = board.ready().map(|t| format!("#{}", t.id)).collect();
    if !ready.is_empty() {
        lines.push(format!(
            "Ready to start (unowned, unblocked): {}",
            ready.join(", ")
        ));
    }
    lines.join("\n")
}

fn line(board: &Snapshot, task: &BoardTask) -> String {
    let mut line = format!("#{} [{}] {}", task.id, task.status, task.subject);
    if let Some(owner) = &task.owner {
        line.push_str(&format!(" (owner: {owner})"));
    }
    let open = board.open_blockers(task);
    if !open.is_empty() {
        let ids: Vec<String> = open.iter().map(|id| format!("#{id}")).collect();
        line.push_str(&format!(" [blocked by {}]", ids.join(", ")));
    }
    line
}

/// The text for one task in full, for `task_get`.
fn full(board: &Board, task: &BoardTask) -> String {
    let mut text = line(&board.snapshot(), task);
    if !task.description.is_empty() {
        text.push_str(&format!("\n\n{}", task.description));
    }
    let ids = |list: &[String]| list.iter().map(|id| format!("#{id}")).collect::<Vec<_>>();
    if !task.blocked_by.is_empty() {
        text.push_str(&format!(
            "\nblocked by: {}",
            ids(&task.blocked_by).join(", ")
        ));
    }
    if !task.blocks.is_empty() {
        text.push_str(&format!("\nblocks: {}", ids(&task.blocks).join(", ")));
    }
    if !task.metadata.is_empty() {
        let metadata = serde_json::Value::Object(task.metadata.clone());
        text.push_str(&format!("\nmetadata: {metadata}"));
    }
    text
}

#[cfg(test)]
mod tests {
    use crate::TypedTool;

    /// Each written-out schema is what the argument type derives.
    #[test]
    fn the_written_schemas_are_the_derived_ones() {
        fn derived<T: TypedTool>() -> serde_json::Value {
            crate::without_nulls(crate::schema_for::<T::Args>())
        }
        assert_eq!(super::TaskCreate.schema(), derived::<super::TaskCreate>());
        assert_eq!(super::TaskUpdate.schema(), derived::<super::TaskUpdate>());
        assert_eq!(super::TaskGet.schema(), derived::<super::TaskGet>());
        assert_eq!(super::TaskList.schema(), derived::<super::TaskList>());
    }
}
