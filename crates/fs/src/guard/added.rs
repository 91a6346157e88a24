//! Folders the user adds to the workspace (`--add-dir`): more roots the guard resolves,
//! reads and writes beneath, under the same sensitive-path rules.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{GuardError, WorkspaceGuard};
use crate::sensitive::Spelling;

impl WorkspaceGuard {
    /// Adds the existing folder `dir` to the workspace (`--add-dir`): its files are read and
    /// written like the workspace's, under the same sensitive-path rules. The file system
    /// root and a folder the sensitive list refuses cannot be added.
    pub fn with_added_dir(mut self, dir: &Path) -> Result<Self, GuardError> {
        let canonical = std::fs::canonicalize(dir).map_err(|source| GuardError::Root {
            root: dir.to_path_buf(),
            source,
        })?;
        if !canonical.is_dir() {
            return Err(GuardError::RootNotADirectory { root: canonical });
        }
        let refused = |reason: &str| GuardError::Invalid {
            path: dir.display().to_string(),
            reason: reason.to_string(),
        };
        if canonical == Path::new("/") {
            return Err(refused(
                "the file system root cannot be added to the workspace",
            ));
        }
        if let Some(pattern) = self.sensitive(&canonical) {
            return Err(refused(&format!(
                "it is sensitive (matches {pattern}) and cannot be added to the workspace"
            )));
        }
        if !self.in_workspace(&canonical) {
            self.added.push(canonical);
            self.hidden_tree = Arc::default();
        }
        Ok(self)
    }

    /// The folders added to the workspace (`--add-dir`), canonical.
    pub fn added_dirs(&self) -> &[PathBuf] {
        &self.added
    }

    /// Whether an already canonical absolute path lies in the workspace or a folder added
    /// to it.
    pub fn in_workspace(&self, canonical: &Path) -> bool {
        self.contains(canonical)
            || self
                .added
                .iter()
                .any(|dir| crate::sensitive::starts_with(canonical, Spelling::of(canonical), dir))
    }

    /// The workspace root and the folders added to it.
    pub fn roots(&self) -> impl Iterator<Item = &Path> {
        std::iter::once(self.root.as_path()).chain(self.added.iter().map(PathBuf::as_path))
    }
}
