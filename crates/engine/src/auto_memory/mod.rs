//! Memory across sessions: a private folder per workspace in rein's data folder
//! (`<data>/memory/<workspace key>/`, `0700`/`0600`) that the model keeps with the `memory`
//! tool (the commands of Anthropic's memory tool: `view`, `create`, `str_replace`, `insert`,
//! `delete`, `rename`, over paths under `/memories`), and whose `MEMORY.md` opens the next
//! session's system prompt (its first 200 lines, read once at the start so the prompt's cache
//! prefix stays the same all session).

mod tool;

pub use tool::{MEMORY_TOOL, MemoryTool};

use std::path::{Component, Path, PathBuf};

/// The folder under rein's data folder that holds each workspace's memory.
pub const MEMORY_FOLDER: &str = "memory";
/// The file whose head opens every session's system prompt.
pub const INDEX: &str = "MEMORY.md";
/// Lines of the index the system prompt carries.
pub const INDEX_LINES: usize = 200;
/// The root the model names paths under.
pub const ROOT: &str = "/memories";
/// Largest memory file written or read.
const FILE_CAP: u64 = 256 * 1024;

/// Why a memory command failed; the text goes back to the model.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    /// The path is not under `/memories`, or climbs out of it.
    #[error("The path {0} is not under /memories: memory paths look like /memories/notes.md")]
    Outside(String),
    /// Nothing is there.
    #[error("The path {0} does not exist. Please provide a valid path.")]
    Missing(String),
    /// Something is there already.
    #[error("Error: File {0} already exists")]
    Exists(String),
    /// `old_str` is not in the file exactly once.
    #[error("{0}")]
    Edit(String),
    /// The file system refused.
    #[error("{path}: {source}")]
    Io {
        /// The memory path.
        path: String,
        /// What failed.
        source: std::io::Error,
    },
}

/// One workspace's memory folder.
#[derive(Debug, Clone)]
pub struct MemoryStore {
    dir: PathBuf,
    /// The secrets no stored memory holds: every file is redacted whole as it is written (a
    /// key written in two halves is one key in the file) and the index again as it is loaded.
    hidden: rein_tools::HiddenEnv,
}

impl MemoryStore {
    /// The memory of `workspace` under `root` (`<data>/memory`).
    pub fn for_workspace(root: &Path, workspace: &Path) -> Self {
        Self {
            dir: root.join(crate::session::workspace_key(workspace)),
            hidden: rein_tools::HiddenEnv::default(),
        }
    }

    /// This store, keeping `hidden`'s secrets out of what it stores and loads (the session's
    /// one list).
    pub fn with_hidden(&self, hidden: rein_tools::HiddenEnv) -> Self {
        Self {
            dir: self.dir.clone(),
            hidden,
        }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The index's first [`INDEX_LINES`] lines, for the system prompt; `None` when there is
    /// none (or it cannot be read).
    pub fn index(&self) -> Option<String> {
        let text = self.read(&self.dir.join(INDEX)).ok()?;
        let head: Vec<&str> = text.lines().take(INDEX_LINES).collect();
        let head = self.hidden.redact(&head.join("\n")).into_owned();
        (!head.trim().is_empty()).then_some(head)
    }

    /// Every file, as `(path under /memories, bytes)`, by path.
    pub fn files(&self) -> Vec<(String, u64)> {
        let mut found = Vec::new();
        walk(&self.dir, &self.dir, &mut found);
        found.sort();
        found
    }

    /// The file system path of `path` (`/memories/…`), refused when it leaves the folder.
    fn resolve(&self, path: &str) -> Result<PathBuf, MemoryError> {
        let outside = || MemoryError::Outside(path.to_string());
        let rest = path
            .trim()
            .strip_prefix(ROOT)
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
            .ok_or_else(outside)?;
        let mut resolved = self.dir.clone();
        for component in Path::new(rest.trim_start_matches('/')).components() {
            match component {
                Component::Normal(part) => resolved.push(part),
                Component::CurDir => {}
                _ => return Err(outside()),
            }
        }
        // A link planted in the folder is not followed out of it.
        let mut at = self.dir.clone();
        for part in resolved
            .strip_prefix(&self.dir)
            .unwrap_or(Path::new(""))
            .components()
        {
            at.push(part);
            if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(outside());
            }
        }
        Ok(resolved)
    }

    /// A memory file's text, read as rein reads its own files: a regular UTF-8 file of at
    /// most [`FILE_CAP`] bytes beneath the folder, reached following no link (an index planted
    /// as a link to a secret is refused, not put in the next prompt; a FIFO is not waited on).
    fn read(&self, file: &Path) -> std::io::Result<String> {
        read_own(&self.dir, file)
    }

    fn write(&self, path: &str, file: &Path, text: &str) -> Result<(), MemoryError> {
        let io = |source| MemoryError::Io {
            path: path.to_string(),
            source,
        };
        if text.len() as u64 > FILE_CAP {
            return Err(MemoryError::Edit(format!(
                "{path} would be larger than {} KiB: keep memory files short",
                FILE_CAP / 1024
            )));
        }
        if let Some(parent) = file.parent() {
            rein_tools::private::create_private_dir_all(parent).map_err(io)?;
        }
        let text = self.hidden.redact(text);
        rein_tools::write_atomic_private(file, text.as_bytes()).map_err(io)
    }
}

/// Adds `text` as a list item at the end of the memory index `file` (`#` in the TUI): the
/// folder and file private, provider keys redacted.
pub fn remember_line(file: &Path, text: &str) -> std::io::Result<()> {
    let text = rein_tools::HiddenEnv::with(Vec::new())
        .redact(text.trim())
        .into_owned();
    // A file that cannot be read as text (or is a link) is left as it is, not replaced by the
    // new line.
    let folder = file.parent().unwrap_or(Path::new("."));
    let mut old = match read_own(folder, file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    if !old.is_empty() && !old.ends_with('\n') {
        old.push('\n');
    }
    if let Some(dir) = file.parent() {
        rein_tools::private::create_private_dir_all(dir)?;
    }
    rein_tools::write_atomic_private(file, format!("{old}- {text}\n").as_bytes())
}

/// Makes the memory index `file` (and its folder) exist, private, for an editor to open.
pub fn prepare(file: &Path) -> std::io::Result<()> {
    if let Some(dir) = file.parent() {
        rein_tools::private::create_private_dir_all(dir)?;
    }
    if !file.exists() {
        rein_tools::write_atomic_private(file, b"")?;
    }
    Ok(())
}

/// The text of `file` beneath `folder`, following no link; `NotFound` when nothing is there.
fn read_own(folder: &Path, file: &Path) -> std::io::Result<String> {
    let missing = || std::io::Error::from(std::io::ErrorKind::NotFound);
    let rel = file.strip_prefix(folder).map_err(|_| missing())?;
    let own = match rein_tools::own::OwnRoot::new(folder) {
        Ok(own) => own,
        Err(_) if !folder.exists() => return Err(missing()),
        Err(e) => return Err(std::io::Error::other(e.to_string())),
    };
    match own.read(rel, FILE_CAP) {
        Ok(Some(text)) => Ok(text),
        Ok(None) => Err(missing()),
        Err(refused) => Err(std::io::Error::other(refused.to_string())),
    }
}

/// The files under `dir`, relative to `root`, as `/memories/…` paths with their sizes.
fn walk(root: &Path, dir: &Path, found: &mut Vec<(String, u64)>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let Ok(meta) = entry.path().symlink_metadata() else {
            continue;
        };
        if meta.is_dir() {
            walk(root, &entry.path(), found);
        } else if meta.is_file() {
            let rel = entry.path().strip_prefix(root).map(Path::to_path_buf);
            if let Ok(rel) = rel {
                found.push((format!("{ROOT}/{}", rel.display()), meta.len()));
            }
        }
    }
}

#[cfg(test)]
mod tests;
