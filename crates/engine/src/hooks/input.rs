//! A tool call as a hook script written for Claude Code reads it: the tool under Claude Code's
//! name, its input under Claude Code's argument names, its result in Claude Code's
//! `tool_response` shape for that tool.
//!
//! rein's tools name their arguments their own way (`read_file {path}`); a Claude Code hook reads
//! `tool_input.file_path` (absolute) and `tool_response.filePath`, so every built-in tool is
//! translated here, in one place. For the tools Claude Code has, `tool_input` holds Claude
//! Code's keys only (`rein_tool_name` beside it says which rein tool ran). `apply_patch` has no
//! Claude Code counterpart: it keeps its name and its input (`{patch}`), and like every tool
//! without a Claude Code shape (MCP tools…) its result is `{output, is_error}`.

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use rein_tools::{Hunk, ToolDetails, ToolOutput};
use serde_json::{Map, Value, json};

/// How a call that ran went, for the `PostToolUse`/`PostToolUseFailure` input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ran {
    /// How long the tool ran (hooks and the user's approval not counted).
    pub duration: Duration,
    /// The user interrupted the turn while it ran.
    pub interrupted: bool,
}

impl Ran {
    /// `duration` in whole milliseconds.
    pub fn duration_ms(&self) -> u64 {
        u64::try_from(self.duration.as_millis()).unwrap_or(u64::MAX)
    }
}

/// An earlier Claude Code name a matcher may still use (`Task` for what is now `Agent`).
pub(super) fn legacy_tool_name(tool: &str) -> Option<&'static str> {
    (tool == "task").then_some("Task")
}

/// The tool input as Claude Code's tool would have received it: `file_path` absolute (relative
/// paths are taken from `workspace`), Edit's `replace_all` always present, Bash's `timeout` in
/// milliseconds, Grep's `-i`/`-C`. Other tools' input is passed as it is.
pub fn hook_tool_input(tool: &str, input: &Value, workspace: &Path) -> Value {
    let Value::Object(args) = input else {
        return input.clone();
    };
    let mut out = Map::new();
    let path = |key: &str| {
        args.get(key)
            .and_then(Value::as_str)
            .map(|p| Value::String(absolute(workspace, p).display().to_string()))
    };
    let copy = |out: &mut Map<String, Value>, from: &str, to: &str| {
        if let Some(value) = args.get(from).filter(|v| !v.is_null()) {
            out.insert(to.to_string(), value.clone());
        }
    };
    match tool {
        "read_file" | "write_file" | "edit_file" => {
            if let Some(path) = path("path") {
                out.insert("file_path".into(), path);
            }
            for key in ["offset", "limit", "content", "old_string", "new_string"] {
                copy(&mut out, key, key);
            }
            if tool == "edit_file" {
                let all = args.get("replace_all").and_then(Value::as_bool);
                out.insert("replace_all".into(), Value::Bool(all.unwrap_or(false)));
            }
        }
        "bash" => {
            copy(&mut out, "command", "command");
            copy(&mut out, "timeout_ms", "timeout");
        }
        "glob" | "grep" => {
            copy(&mut out, "pattern", "pattern");
            if let Some(path) = path("path") {
                out.insert("path".into(), path);
            }
            for key in ["glob", "type", "output_mode", "multiline", "head_limit"] {
                copy(&mut out, key, key);
            }
            copy(&mut out, "context", "-C");
            copy(&mut out, "case_insensitive", "-i");
        }
        _ => return input.clone(),
    }
    Value::Object(out)
}

/// A call's result as Claude Code's `tool_response` for that tool, from the details the tool
/// stated; `{output, is_error}` when it stated none.
pub fn hook_tool_response(output: &ToolOutput) -> Value {
    let Some(details) = output.details.as_deref() else {
        return json!({"output": output.text, "is_error": output.is_error});
    };
    match details {
        ToolDetails::Command(run) => json!({
            "stdout": run.stdout,
            "stderr": run.stderr,
            "interrupted": run.interrupted,
            "isImage": false,
            "noOutputExpected": false,
        }),
        ToolDetails::Read(read) => json!({
            "type": "text",
            "file": {
                "filePath": read.path.display().to_string(),
                "content": read.content,
                "numLines": read.num_lines,
                "startLine": read.start_line,
                "totalLines": read.total_lines,
            },
        }),
        ToolDetails::Edit(edit) => json!({
            "filePath": edit.path.display().to_string(),
            "oldString": edit.old_string,
            "newString": edit.new_string,
            "originalFile": edit.original,
            "structuredPatch": structured_patch(&edit.patch),
            "userModified": false,
            "replaceAll": edit.replace_all,
        }),
        ToolDetails::Write(write) => json!({
            "type": if write.existed { "update" } else { "create" },
            "filePath": write.path.display().to_string(),
            "content": write.content,
            "structuredPatch": structured_patch(&write.patch),
            "originalFile": write.original,
            "userModified": false,
        }),
        // Claude Code has no patch tool: the result as text, as for tools stating nothing.
        ToolDetails::Patch(_) => json!({"output": output.text, "is_error": output.is_error}),
    }
}

fn structured_patch(hunks: &[Hunk]) -> Value {
    hunks
        .iter()
        .map(|h| {
            json!({
                "oldStart": h.old_start,
                "oldLines": h.old_lines,
                "newStart": h.new_start,
                "newLines": h.new_lines,
                "lines": h.lines,
            })
        })
        .collect()
}

/// `path` made absolute against `workspace` (`~` against `HOME`), `.` and `..` resolved in the
/// text, as Claude Code shows paths (symlinks are not followed).
#[allow(clippy::disallowed_methods)] // HOME for Claude Code's hook input paths, as Claude Code reads it
fn absolute(workspace: &Path, path: &str) -> PathBuf {
    let home = || std::env::var_os("HOME").map(PathBuf::from);
    let joined = match (path, path.strip_prefix("~/")) {
        ("~", _) => home().unwrap_or_else(|| workspace.join(path)),
        (_, Some(rest)) => home().map_or_else(|| workspace.join(path), |h| h.join(rest)),
        _ => workspace.join(path),
    };
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
#[path = "input_tests.rs"]
mod tests;
