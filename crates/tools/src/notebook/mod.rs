//! Jupyter notebooks: `read_file` shows their cells with their outputs (pictures as images),
//! and `notebook_edit` (Claude Code's `NotebookEdit`) replaces, inserts or deletes one cell.

mod edit;
mod render;
mod spans;

pub use edit::{NotebookEdit, NotebookEditArgs};
pub(crate) use render::render;

use serde_json::Value;

/// A cell's id as the model names it: its `id` (nbformat 4.5), else `cell-N` by position
/// (0-based) for older notebooks.
pub(crate) fn cell_id(cell: &Value, index: usize) -> String {
    cell["id"]
        .as_str()
        .map_or_else(|| format!("cell-{index}"), str::to_string)
}

/// A `source` field (a string, or a list of lines) as one string.
pub(crate) fn joined(source: &Value) -> String {
    match source {
        Value::String(text) => text.clone(),
        Value::Array(lines) => lines.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}
