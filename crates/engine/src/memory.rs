//! Memory files of sub-folders: when a file tool touches a path, the `AGENTS.md` (else
//! `CLAUDE.md`) of each folder between the workspace root and that path is shown to the model
//! once, with the tool's result; they are re-injected after a compaction so their
//! instructions survive it. (The root's and the user's are in the system prompt.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rein_tools::WorkspaceGuard;
use serde_json::Value;

use crate::prompt::{MemorySource, read_memory_file};

/// The sub-folder memory files met so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct FolderMemory {
    /// Folders checked, with their memory file (name relative to the root, text) if any.
    seen: BTreeMap<PathBuf, Option<(String, String)>>,
}

impl FolderMemory {
    /// Memory files not shown yet for the folders leading to the path of a file tool call, as
    /// text to add to its result. One that cannot be read (not a regular file, too large) is
    /// skipped and said in `warnings`, once.
    pub fn newly_relevant(
        &mut self,
        tool: &str,
        input: &Value,
        guard: &WorkspaceGuard,
        warnings: &mut Vec<String>,
    ) -> Option<String> {
        let root = guard.root();
        if !matches!(tool, "read_file" | "edit_file" | "write_file") {
            return None;
        }
        let path = input.get("path").and_then(Value::as_str)?;
        let relative = Path::new(path)
            .strip_prefix(root)
            .unwrap_or(Path::new(path))
            .to_path_buf();
        if relative.is_absolute()
            || relative
                .components()
                .any(|c| matches!(c, std::path::Component::ParentDir))
        {
            return None;
        }
        let mut shown = Vec::new();
        let mut source = None;
        let mut dir = PathBuf::new();
        let folders: Vec<_> = relative
            .parent()
            .map(|p| p.components().collect())
            .unwrap_or_default();
        for component in folders {
            dir.push(component);
            if self.seen.contains_key(&dir) {
                continue;
            }
            let source = source.get_or_insert_with(|| MemorySource::workspace(guard));
            let found = read_memory_file(&root.join(&dir), source, warnings)
                .map(|(name, text)| (format!("{}/{name}", dir.display()), text));
            if let Some((name, text)) = &found {
                shown.push(render(name, text));
            }
            self.seen.insert(dir.clone(), found);
        }
        (!shown.is_empty()).then(|| shown.join("\n\n"))
    }

    /// Every memory file shown so far, for re-injection after a compaction.
    pub fn all(&self) -> Option<String> {
        let files: Vec<String> = self
            .seen
            .values()
            .flatten()
            .map(|(name, text)| render(name, text))
            .collect();
        (!files.is_empty()).then(|| files.join("\n\n"))
    }
}

fn render(name: &str, text: &str) -> String {
    format!(
        "[Instructions from {name}, for files in its folder]\n{}",
        text.trim_end()
    )
}
