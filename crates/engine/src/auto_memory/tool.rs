//! The `memory` tool: Anthropic's memory-tool commands, carried out on the workspace's
//! memory folder. Provider keys in what is written are redacted first.

use async_trait::async_trait;
use rein_protocol::ToolSpec;
use rein_tools::{CallFacts, CallKind, Effect, Tool, ToolContext, ToolOutput, WorkspaceGuard};
use serde_json::{Value, json};

use super::{MemoryError, MemoryStore, ROOT};

/// The tool's name (Anthropic's memory tool is called `memory` too).
pub const MEMORY_TOOL: &str = "memory";

/// The `memory` tool over one workspace's memory.
pub struct MemoryTool(pub MemoryStore);

#[async_trait]
impl Tool for MemoryTool {
    fn lean(&self) -> rein_tools::Lean {
        rein_tools::Lean::LeftOut
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: MEMORY_TOOL.into(),
            description: "Your memory of this workspace across sessions: files under \
                          /memories. The head of /memories/MEMORY.md opens every session: keep \
                          it a short index of what you learned (project facts, the user's \
                          preferences), details in other files."
                .into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string", "enum":
                        ["view", "create", "str_replace", "insert", "delete", "rename"]},
                    "path": {"type": "string"},
                    "view_range": {"type": "array", "items": {"type": "integer"}},
                    "file_text": {"type": "string"},
                    "old_str": {"type": "string"},
                    "new_str": {"type": "string"},
                    "insert_line": {"type": "integer", "minimum": 0},
                    "insert_text": {"type": "string"},
                    "old_path": {"type": "string"},
                    "new_path": {"type": "string"}
                },
                "required": ["command"],
                "additionalProperties": false
            })
            .into(),
        }
    }

    /// Every command only touches rein's own memory folder, never a workspace file: no mode
    /// asks about it (rules naming `Memory` still apply).
    fn effect(&self, _args: &Value) -> Effect {
        Effect::ReadOnly
    }

    fn facts(&self, args: &Value, _guard: &WorkspaceGuard) -> CallFacts {
        let mut facts = CallFacts::new(MEMORY_TOOL, "Memory", CallKind::Other, Effect::ReadOnly);
        let text = |k: &str| args.get(k).and_then(Value::as_str).unwrap_or("");
        let path = match text("path") {
            "" => text("old_path"),
            path => path,
        };
        facts.summary = format!("{} {path}", text("command"));
        // Its calls run in the order they were made.
        facts.serial = true;
        facts
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> ToolOutput {
        let text = |k: &str| {
            args.get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let redact = |t: String| ctx.hidden_env.redact(&t).into_owned();
        let store = &self.0.with_hidden(ctx.hidden_env.clone());
        let done = match text("command").as_str() {
            "view" => store.view(&text("path"), range(&args)),
            "create" => store.create(&text("path"), &redact(text("file_text"))),
            "str_replace" => {
                store.str_replace(&text("path"), &text("old_str"), &redact(text("new_str")))
            }
            "insert" => {
                let line = args.get("insert_line").and_then(Value::as_u64).unwrap_or(0);
                store.insert(&text("path"), line as usize, &redact(text("insert_text")))
            }
            "delete" => store.delete(&text("path")),
            "rename" => store.rename(&text("old_path"), &text("new_path")),
            other => Err(MemoryError::Edit(format!("unknown command `{other}`"))),
        };
        match done {
            Ok(text) => ToolOutput::ok(text),
            Err(error) => ToolOutput::error(error.to_string()),
        }
    }
}

fn range(args: &Value) -> Option<(usize, usize)> {
    let list = args.get("view_range")?.as_array()?;
    let at = |i: usize| list.get(i).and_then(Value::as_i64);
    let first = at(0)?.max(1) as usize;
    let last = match at(1)? {
        -1 => usize::MAX,
        n => n.max(1) as usize,
    };
    Some((first, last))
}

impl MemoryStore {
    /// A folder's files (with sizes) or a file's numbered lines.
    pub fn view(&self, path: &str, range: Option<(usize, usize)>) -> Result<String, MemoryError> {
        let file = self.resolve(path)?;
        let path = path.trim();
        if file == self.dir || file.is_dir() {
            let prefix = format!("{}/", path.trim_end_matches('/'));
            let listed: Vec<String> = (self.files().into_iter())
                .filter(|(p, _)| file == self.dir || p.starts_with(&prefix))
                .map(|(p, size)| format!("{size}\t{p}"))
                .collect();
            return Ok(format!(
                "Here're the files and directories in {path}:\n{}",
                if listed.is_empty() {
                    "(empty)".to_string()
                } else {
                    listed.join("\n")
                }
            ));
        }
        let text = self
            .read(&file)
            .map_err(|_| MemoryError::Missing(path.to_string()))?;
        let (first, last) = range.unwrap_or((1, usize::MAX));
        let lines: Vec<String> = (text.lines().enumerate())
            .filter(|(n, _)| *n + 1 >= first && *n < last)
            .map(|(n, line)| format!("{:>6}\t{line}", n + 1))
            .collect();
        Ok(format!(
            "Here's the content of {path} with line numbers:\n{}",
            lines.join("\n")
        ))
    }

    /// A new file (an existing one is refused: edit it instead).
    pub fn create(&self, path: &str, text: &str) -> Result<String, MemoryError> {
        let file = self.resolve(path)?;
        if file == self.dir || file.exists() {
            return Err(MemoryError::Exists(path.trim().to_string()));
        }
        self.write(path, &file, text)?;
        Ok(format!("File created successfully at: {}", path.trim()))
    }

    /// `old` replaced by `new`, where `old` appears exactly once.
    pub fn str_replace(&self, path: &str, old: &str, new: &str) -> Result<String, MemoryError> {
        let file = self.resolve(path)?;
        let text = self
            .read(&file)
            .map_err(|_| MemoryError::Missing(path.trim().to_string()))?;
        match text.matches(old).count() {
            _ if old.is_empty() => Err(MemoryError::Edit("old_str is empty".into())),
            0 => Err(MemoryError::Edit(format!(
                "No replacement was performed, old_str `{old}` did not appear verbatim in {}.",
                path.trim()
            ))),
            1 => {
                self.write(path, &file, &text.replacen(old, new, 1))?;
                Ok("The memory file has been edited.".to_string())
            }
            n => Err(MemoryError::Edit(format!(
                "No replacement was performed: old_str `{old}` appears {n} times in {}; make it \
                 unique.",
                path.trim()
            ))),
        }
    }

    /// `text` inserted after line `line` (0: at the top).
    pub fn insert(&self, path: &str, line: usize, text: &str) -> Result<String, MemoryError> {
        let file = self.resolve(path)?;
        let old = self
            .read(&file)
            .map_err(|_| MemoryError::Missing(path.trim().to_string()))?;
        let mut lines: Vec<&str> = old.lines().collect();
        if line > lines.len() {
            return Err(MemoryError::Edit(format!(
                "Invalid `insert_line` parameter: {line}. It should be within the range of \
                 lines of the file: [0, {}]",
                lines.len()
            )));
        }
        let added: Vec<&str> = text.lines().collect();
        lines.splice(line..line, added);
        self.write(path, &file, &(lines.join("\n") + "\n"))?;
        Ok(format!("The file {} has been edited.", path.trim()))
    }

    /// A file or a folder, gone.
    pub fn delete(&self, path: &str) -> Result<String, MemoryError> {
        let file = self.resolve(path)?;
        let io = |source| MemoryError::Io {
            path: path.trim().to_string(),
            source,
        };
        if file == self.dir {
            return Err(MemoryError::Edit(format!(
                "{ROOT} itself cannot be deleted"
            )));
        }
        match std::fs::symlink_metadata(&file) {
            Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(&file).map_err(io)?,
            Ok(_) => std::fs::remove_file(&file).map_err(io)?,
            Err(_) => return Err(MemoryError::Missing(path.trim().to_string())),
        }
        Ok(format!("Successfully deleted {}", path.trim()))
    }

    /// A file or folder moved to `new`, which must not exist.
    pub fn rename(&self, old: &str, new: &str) -> Result<String, MemoryError> {
        let (from, to) = (self.resolve(old)?, self.resolve(new)?);
        if !from.exists() || from == self.dir {
            return Err(MemoryError::Missing(old.trim().to_string()));
        }
        if to.exists() || to == self.dir {
            return Err(MemoryError::Exists(new.trim().to_string()));
        }
        let io = |source| MemoryError::Io {
            path: new.trim().to_string(),
            source,
        };
        if let Some(parent) = to.parent() {
            rein_tools::private::create_private_dir_all(parent).map_err(io)?;
        }
        std::fs::rename(&from, &to).map_err(io)?;
        Ok(format!(
            "Successfully renamed {} to {}",
            old.trim(),
            new.trim()
        ))
    }
}
