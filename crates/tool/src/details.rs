//! What a call did, as data beside the text for the model: the command's output and how it
//! ended, the page of a file that was read, the change an edit or a write made.
//!
//! Hooks get these facts in Claude Code's `tool_response` shapes (the engine renders them), so
//! a tool states them once, cheaply, from what it already has in hand.

use std::path::PathBuf;

/// Structured facts about one call's result. Built-in tools fill it in on success; other tools
/// leave [`crate::ToolOutput::details`] empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolDetails {
    /// A shell command ran (`bash`).
    Command(CommandRun),
    /// A page of a text file was read (`read_file`).
    Read(FileRead),
    /// Text in a file was replaced (`edit_file`).
    Edit(FileEdit),
    /// A whole file was written (`write_file`).
    Write(FileWrite),
    /// Files were added, changed or removed by a patch (`apply_patch`).
    Patch(Vec<crate::FileChange>),
}

/// A shell command's output and whether it was stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandRun {
    /// What it wrote to standard output (rein merges standard error in, in order, so this is
    /// both streams, bounded like the result).
    pub stdout: String,
    /// What it wrote to standard error separately (empty while the streams are merged).
    pub stderr: String,
    /// The command was killed: it timed out or the user cancelled.
    pub interrupted: bool,
    /// Its exit code, when it exited.
    pub exit_code: Option<i32>,
    /// The OS sandbox policy it ran under.
    pub sandbox: rein_sandbox::Policy,
}

/// The lines a read returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRead {
    /// The file, absolute.
    pub path: PathBuf,
    /// The lines returned, without line numbers (each cut like the numbered ones).
    pub content: String,
    /// The 1-based number of the first line returned.
    pub start_line: u64,
    /// How many lines were returned.
    pub num_lines: u64,
    /// How many lines the file has.
    pub total_lines: u64,
}

/// A replacement made in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEdit {
    /// The file, absolute.
    pub path: PathBuf,
    /// The text that was asked to be replaced.
    pub old_string: String,
    /// The text put in its place.
    pub new_string: String,
    /// The file's contents before the edit.
    pub original: String,
    /// The change as hunks of a unified diff.
    pub patch: Vec<Hunk>,
    /// Whether every occurrence was replaced.
    pub replace_all: bool,
}

/// A file written whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileWrite {
    /// The file, absolute.
    pub path: PathBuf,
    /// The contents written.
    pub content: String,
    /// The contents it replaced; `None` when the file was created (or was too large or not
    /// text, so it was not read).
    pub original: Option<String>,
    /// Whether the file existed before.
    pub existed: bool,
    /// The change as hunks of a unified diff (empty when the file was created).
    pub patch: Vec<Hunk>,
}

/// One hunk of a unified diff, numbered like `@@ -old_start,old_lines +new_start,new_lines @@`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// 1-based first line in the old text.
    pub old_start: usize,
    /// Lines of the old text the hunk covers.
    pub old_lines: usize,
    /// 1-based first line in the new text.
    pub new_start: usize,
    /// Lines of the new text the hunk covers.
    pub new_lines: usize,
    /// The hunk's lines, each prefixed with `-`, `+` or a space, without newlines.
    pub lines: Vec<String>,
}
