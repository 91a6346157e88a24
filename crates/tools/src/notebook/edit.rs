//! `notebook_edit {notebook_path, cell_id?, new_source, cell_type?, edit_mode?}`: one cell
//! replaced, inserted or deleted; every other byte of the file stays as it was.

use std::ops::Range;
use std::path::Path;

use async_trait::async_trait;
use rein_fs::checked::Access;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{cell_id, spans::cell_spans};
use crate::{CallFacts, CallKind, Effect, ToolContext, ToolOutput, TypedTool, WorkspaceGuard};

// The enums' variants carry no doc comments: schemars would turn them into a `oneOf` of
// described constants, four times the bytes of a plain `enum` list in every request.

/// A cell's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum CellType {
    Code,
    Markdown,
}

/// What the edit does: the source replaced, a new cell after `cell_id`, or the cell deleted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum EditMode {
    #[default]
    Replace,
    Insert,
    Delete,
}

/// Arguments of `notebook_edit`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NotebookEditArgs {
    notebook_path: String,
    /// As read_file shows it; insert goes after it (at the top without one).
    cell_id: Option<String>,
    new_source: String,
    /// Needed to insert.
    cell_type: Option<CellType>,
    /// Default replace.
    edit_mode: Option<EditMode>,
}

/// The `notebook_edit` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct NotebookEdit;

#[async_trait]
impl TypedTool for NotebookEdit {
    type Args = NotebookEditArgs;
    const NAME: &'static str = "notebook_edit";
    const CLAUDE_NAME: &'static str = "NotebookEdit";
    const KIND: CallKind = CallKind::Edit;
    const LEAN: crate::Lean = crate::Lean::LeftOut;

    fn description(&self) -> String {
        "Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb). A replaced code \
         cell's outputs are cleared."
            .to_string()
    }

    fn effect(&self, _args: &NotebookEditArgs) -> Effect {
        Effect::Mutating
    }

    fn describe(&self, args: &NotebookEditArgs, guard: &WorkspaceGuard, facts: &mut CallFacts) {
        facts.writes.push(crate::resolve_for_rules(
            &args.notebook_path,
            guard.root(),
            guard,
        ));
        facts.summary = match &args.cell_id {
            Some(id) => format!("{} ({id})", args.notebook_path),
            None => args.notebook_path.clone(),
        };
    }

    async fn run(&self, args: NotebookEditArgs, ctx: &ToolContext) -> ToolOutput {
        let path = match ctx.guard.resolve_write(&args.notebook_path) {
            Ok(path) => path,
            Err(e) => return ToolOutput::error(e.to_string()),
        };
        let shown = ctx.guard.display(&path);
        let _lock = ctx.locks.write(&path).await;
        let guard = ctx.guard.clone();
        let edit = move || edit_file(&guard, &path, &shown, &args);
        match tokio::task::spawn_blocking(edit).await {
            Ok(output) => output,
            Err(e) => ToolOutput::error(format!("notebook_edit failed: {e}")),
        }
    }
}

/// Reads, edits and writes the notebook (only while nobody else changed it meanwhile).
fn edit_file(
    guard: &WorkspaceGuard,
    path: &Path,
    shown: &str,
    args: &NotebookEditArgs,
) -> ToolOutput {
    let read = guard.open_checked(path, Access::Write).and_then(|file| {
        let stamp = file.stamp()?.ok_or(std::io::ErrorKind::NotFound)?;
        let bytes = file.read()?;
        Ok((file, stamp, bytes))
    });
    let (file, stamp, bytes) = match read {
        Ok(read) => read,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return ToolOutput::error(format!("notebook not found: {shown}"));
        }
        Err(e) => return ToolOutput::error(format!("cannot read {shown}: {e}")),
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return ToolOutput::error(format!("{shown} is not UTF-8 text, so not a notebook"));
    };
    let (new_text, said) = match edited(&text, args) {
        Ok(done) => done,
        Err(why) => return ToolOutput::error(format!("{shown}: {why}; nothing was changed")),
    };
    match file.write_atomic_unchanged(new_text.as_bytes(), stamp) {
        Ok(()) => ToolOutput::ok(format!("{said} in {shown}.")),
        Err(e) => ToolOutput::error(format!("cannot write {shown}: {e}")),
    }
}

/// The notebook `text` with the edit made, and what was done; why not otherwise.
fn edited(text: &str, args: &NotebookEditArgs) -> Result<(String, String), String> {
    let notebook: Value =
        serde_json::from_str(text).map_err(|e| format!("not valid JSON ({e})"))?;
    let cells = notebook["cells"]
        .as_array()
        .ok_or("no `cells` array: not a Jupyter notebook")?;
    let (spans, inside) = cell_spans(text).ok_or("its `cells` could not be located")?;
    if spans.len() != cells.len() {
        return Err("its `cells` could not be located".into());
    }
    let found = match &args.cell_id {
        Some(id) => Some(
            (0..cells.len())
                .find(|i| cell_id(&cells[*i], *i) == *id)
                .ok_or_else(|| {
                    format!("no cell has the id {id:?} (read the notebook for its ids)")
                })?,
        ),
        None => None,
    };
    let layout = Layout::of(text, &spans, &inside);
    let mode = args.edit_mode.unwrap_or_default();
    let (new_text, said) = match (mode, found) {
        (EditMode::Replace | EditMode::Delete, None) => {
            return Err("cell_id is needed to replace or delete a cell".into());
        }
        (EditMode::Replace, Some(i)) => {
            let cell = replaced(&cells[i], args);
            let new = layout.cell_text(&cell);
            let said = format!("Replaced cell {}", cell_id(&cells[i], i));
            (splice(text, spans[i].clone(), &new), said)
        }
        (EditMode::Delete, Some(i)) => {
            let range = match (i, spans.len()) {
                (_, 1) => inside.clone(),
                (i, n) if i + 1 < n => spans[i].start..spans[i + 1].start,
                (i, _) => spans[i - 1].end..spans[i].end,
            };
            let said = format!("Deleted cell {}", cell_id(&cells[i], i));
            (splice(text, range, ""), said)
        }
        (EditMode::Insert, after) => {
            let kind = args
                .cell_type
                .ok_or("cell_type (code or markdown) is needed to insert a cell")?;
            let uses_ids = cells.iter().any(|c| c.get("id").is_some()) || cells.is_empty();
            let id = uses_ids.then(new_id);
            let cell = new_cell(kind, &args.new_source, id.as_deref());
            let new = layout.cell_text(&cell);
            let shown_id = id.unwrap_or_else(|| format!("cell-{}", after.map_or(0, |i| i + 1)));
            let said = format!("Inserted {} cell {shown_id}", kind_name(kind));
            let new_text = match (after, spans.first()) {
                (Some(i), _) => splice(
                    text,
                    spans[i].end..spans[i].end,
                    &format!(",\n{}{new}", layout.indent),
                ),
                (None, Some(first)) => splice(
                    text,
                    first.start..first.start,
                    &format!("{new},\n{}", layout.indent),
                ),
                (None, None) => splice(
                    text,
                    inside.clone(),
                    &format!("\n{}{new}\n{}", layout.indent, layout.closing),
                ),
            };
            (new_text, said)
        }
    };
    serde_json::from_str::<Value>(&new_text)
        .map_err(|e| format!("the edit would leave invalid JSON ({e})"))?;
    Ok((new_text, said))
}

/// How the notebook's cells are laid out: the indent of a cell, of a cell's keys, and of the
/// array's closing bracket.
struct Layout {
    indent: String,
    unit: String,
    closing: String,
}

impl Layout {
    fn of(text: &str, spans: &[Range<usize>], inside: &Range<usize>) -> Self {
        let line_indent = |at: usize| -> String {
            let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
            text[line_start..at]
                .chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect()
        };
        let closing = line_indent(inside.end);
        let indent = match spans.first() {
            Some(first) => line_indent(first.start),
            None => format!("{closing} "),
        };
        // A cell's keys sit one unit deeper than the cell (Jupyter writes one space).
        let unit = spans
            .first()
            .and_then(|first| {
                let cell = &text[first.clone()];
                let second = cell.lines().nth(1)?;
                let keys: String = second
                    .chars()
                    .take_while(|c| *c == ' ' || *c == '\t')
                    .collect();
                keys.strip_prefix(indent.as_str()).map(str::to_string)
            })
            .filter(|u| !u.is_empty())
            .unwrap_or_else(|| " ".to_string());
        Self {
            indent,
            unit,
            closing,
        }
    }

    /// `cell` as JSON laid out like the others (its first line unindented: it goes where the
    /// old one started).
    fn cell_text(&self, cell: &Value) -> String {
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(self.unit.as_bytes());
        let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
        let _ = serde::Serialize::serialize(cell, &mut serializer);
        let pretty = String::from_utf8_lossy(&out).into_owned();
        pretty.replace('\n', &format!("\n{}", self.indent))
    }
}

fn splice(text: &str, range: Range<usize>, with: &str) -> String {
    format!("{}{with}{}", &text[..range.start], &text[range.end..])
}

/// `cell` with the new source (and type); a code cell's stale outputs cleared.
fn replaced(cell: &Value, args: &NotebookEditArgs) -> Value {
    let mut cell = cell.as_object().cloned().unwrap_or_default();
    cell.insert("source".into(), source_lines(&args.new_source));
    let kind = match (
        args.cell_type,
        cell.get("cell_type").and_then(Value::as_str),
    ) {
        (Some(kind), _) => kind,
        (None, Some("markdown")) => CellType::Markdown,
        (None, _) => CellType::Code,
    };
    cell.insert("cell_type".into(), json!(kind_name(kind)));
    match kind {
        CellType::Code => {
            cell.insert("outputs".into(), json!([]));
            cell.insert("execution_count".into(), Value::Null);
        }
        CellType::Markdown => {
            cell.remove("outputs");
            cell.remove("execution_count");
        }
    }
    Value::Object(cell)
}

fn new_cell(kind: CellType, source: &str, id: Option<&str>) -> Value {
    let mut cell = Map::new();
    cell.insert("cell_type".into(), json!(kind_name(kind)));
    if let Some(id) = id {
        cell.insert("id".into(), json!(id));
    }
    cell.insert("metadata".into(), json!({}));
    cell.insert("source".into(), source_lines(source));
    if kind == CellType::Code {
        cell.insert("execution_count".into(), Value::Null);
        cell.insert("outputs".into(), json!([]));
    }
    Value::Object(cell)
}

/// A source as Jupyter keeps it: its lines, each with its newline but the last.
fn source_lines(source: &str) -> Value {
    Value::Array(source.split_inclusive('\n').map(|l| json!(l)).collect())
}

fn kind_name(kind: CellType) -> &'static str {
    match kind {
        CellType::Code => "code",
        CellType::Markdown => "markdown",
    }
}

/// A fresh cell id: 8 hex digits, as Jupyter makes them.
fn new_id() -> String {
    format!("{:08x}", fastrand::u32(..))
}
