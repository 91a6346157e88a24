//! Memory files of sub-folders: when a call touches a path (any tool: its facts' reads and
//! writes), the `AGENTS.md` (else `CLAUDE.md`) of each folder between the workspace root and
//! that path is shown to the model once, with the tool's result; they are re-injected after a compaction so their
//! instructions survive it. (The root's and the user's are in the system prompt.)

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use rein_tools::{CallFacts, WorkspaceGuard};

use crate::prompt::{MemorySource, read_memory_file};

/// The sub-folder memory files met so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct FolderMemory {
    /// Folders checked, with their memory file (name relative to the root, text) if any.
    seen: BTreeMap<PathBuf, Option<(String, String)>>,
}

impl FolderMemory {
    /// Memory files not shown yet for the folders leading to what a call touched (its
    /// facts' paths: a file's folder, a searched folder itself), as text to add to its
    /// result. One that cannot be read (not a regular file, too large) is skipped and said in
    /// `warnings`, once.
    pub fn newly_relevant(
        &mut self,
        facts: &CallFacts,
        guard: &WorkspaceGuard,
        warnings: &mut Vec<String>,
    ) -> Option<String> {
        let mut shown = Vec::new();
        let mut source = None;
        for folder in touched_folders(facts, guard.root()) {
            let mut dir = PathBuf::new();
            for component in folder.components() {
                dir.push(component);
                if self.seen.contains_key(&dir) {
                    continue;
                }
                let source = source.get_or_insert_with(|| MemorySource::workspace(guard));
                let found = read_memory_file(&guard.root().join(&dir), source, warnings)
                    .map(|(name, text)| (format!("{}/{name}", dir.display()), text));
                if let Some((name, text)) = &found {
                    shown.push(render(name, text));
                }
                self.seen.insert(dir.clone(), found);
            }
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

/// The folders, relative to `root`, holding what the call touched: a path that is a folder
/// (a search's) stands for itself, any other (a file, or one not there yet) for its parent.
/// Paths outside the workspace have none.
fn touched_folders(facts: &CallFacts, root: &Path) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = Vec::new();
    for path in facts.paths() {
        let Ok(relative) = path.strip_prefix(root) else {
            continue;
        };
        if relative
            .components()
            .any(|c| !matches!(c, Component::Normal(_)))
        {
            continue;
        }
        let folder = if path.is_dir() {
            relative
        } else {
            relative.parent().unwrap_or(Path::new(""))
        };
        if !folder.as_os_str().is_empty() && !folders.iter().any(|f| f == folder) {
            folders.push(folder.to_path_buf());
        }
    }
    folders
}

fn render(name: &str, text: &str) -> String {
    format!(
        "[Instructions from {name}, for files in its folder]\n{}",
        text.trim_end()
    )
}
