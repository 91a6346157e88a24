//! Reading the files rein puts in the prompt (memory files and their imports, custom commands,
//! skills, agent definitions): each must stay inside the folder it belongs to.
//!
//! A workspace's files come with a cloned repository, and trusting its settings is no consent
//! to send the user's secrets: `.claude/skills/x/SKILL.md` linked to `~/.git-credentials` would
//! otherwise reach the provider with the first request. So every such file is read through
//! [`PromptFiles::read`], which takes it only when
//!
//! - the path, symlinks resolved, stays inside its root — the workspace for the workspace's
//!   files, the user's own config folder (`~/.claude`, `~/.config/rein`) for the user's. A
//!   symlink that stays inside is followed; one anywhere on the way (the file, the skill's
//!   folder, `.claude/agents` itself) that leads out is refused, naming the file;
//! - it is not sensitive (the guard's list: `.env*`, the user's deny rules…), nor a hard link
//!   to a file in a sensitive folder (a hard link cannot be told by its path; its link count
//!   and inode can);
//! - it is a regular file no larger than the cap ([`crate::read_regular`]'s rules).
//!
//! The checked path is then opened beneath the root through descriptors, following no symlink
//! ([`crate::beneath`]), so a link swapped in after the check is not followed either.
//!
//! ```
//! use rein_fs::{PromptFiles, ReadRefusal, SensitivePaths};
//! let root = tempfile::tempdir().unwrap();
//! let outside = tempfile::tempdir().unwrap();
//! std::fs::write(outside.path().join("secret"), "KEY").unwrap();
//! std::os::unix::fs::symlink(outside.path().join("secret"), root.path().join("AGENTS.md"))
//!     .unwrap();
//! let files = PromptFiles::new([root.path().to_path_buf()], SensitivePaths::default());
//! let refused = files.read(&root.path().join("AGENTS.md"), 1024).unwrap_err();
//! assert!(matches!(refused, ReadRefusal::Outside { .. }));
//! ```

use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::beneath::{self, Dir};
use crate::regular_file::{ReadRefusal, check, read_capped};
use crate::{SensitivePaths, WorkspaceGuard};

/// The folders prompt files are read from, each a boundary its files must not leave, and the
/// sensitive list they are checked against.
#[derive(Debug, Clone)]
pub struct PromptFiles {
    /// Each root as given (matched against the paths asked for) and canonical (`None` when it
    /// does not exist: nothing below it does either).
    roots: Vec<(PathBuf, Option<PathBuf>)>,
    sensitive: Arc<SensitivePaths>,
}

impl PromptFiles {
    /// Files below `roots` (a path belongs to the longest root it starts with, as written),
    /// checked against `sensitive`.
    pub fn new(roots: impl IntoIterator<Item = PathBuf>, sensitive: SensitivePaths) -> Self {
        Self::with_shared(roots, Arc::new(sensitive))
    }

    /// The files of the workspace `guard` checks, against its sensitive list.
    pub fn of_workspace(guard: &WorkspaceGuard) -> Self {
        Self::with_shared([guard.root().to_path_buf()], guard.sensitive_shared())
    }

    /// Files below `roots` instead, checked against the same sensitive list.
    pub fn with_roots(&self, roots: impl IntoIterator<Item = PathBuf>) -> Self {
        Self::with_shared(roots, Arc::clone(&self.sensitive))
    }

    fn with_shared(
        roots: impl IntoIterator<Item = PathBuf>,
        sensitive: Arc<SensitivePaths>,
    ) -> Self {
        let roots = roots
            .into_iter()
            .map(|root| {
                let canonical = std::fs::canonicalize(&root).ok().filter(|c| c.is_dir());
                (root, canonical)
            })
            .collect();
        Self { roots, sensitive }
    }

    /// The text of the prompt file `path`, read while at most `cap` bytes have come;
    /// `Ok(None)` when nothing is there. Refused (naming the path) when it leads out of its
    /// root, is sensitive, is not a regular file, is larger than `cap` or is not UTF-8.
    pub fn read(&self, path: &Path, cap: u64) -> Result<Option<String>, ReadRefusal> {
        let refusal = |source: io::Error| ReadRefusal::Io {
            path: path.to_path_buf(),
            source,
        };
        let Some((given, canonical_root)) = self
            .roots
            .iter()
            .filter(|(root, _)| path.starts_with(root))
            .max_by_key(|(root, _)| root.as_os_str().len())
        else {
            return Err(ReadRefusal::Outside {
                path: path.to_path_buf(),
                root: self
                    .roots
                    .first()
                    .map(|(r, _)| r.clone())
                    .unwrap_or_default(),
            });
        };
        let Some(root) = canonical_root else {
            return Ok(None);
        };
        let canonical = match std::fs::canonicalize(path) {
            Ok(canonical) => canonical,
            Err(e) if is_missing(&e) => return Ok(None),
            Err(e) => return Err(refusal(e)),
        };
        let Ok(rel) = canonical.strip_prefix(root) else {
            return Err(ReadRefusal::Outside {
                path: path.to_path_buf(),
                root: given.clone(),
            });
        };
        // Folders that hold the root itself (`~/.claude`) are where rein reads on purpose.
        if let Some(pattern) = self.sensitive.matching_within(&canonical, root, Some(root)) {
            return Err(sensitive(path, "matches", pattern));
        }
        // Look before opening: opening a device can have effects of its own.
        check(path, &std::fs::metadata(&canonical).map_err(refusal)?, cap)?;
        let (folder, name) = beneath::split(rel);
        let file = Dir::open_canonical(root)
            .and_then(|dir| dir.dir(folder))
            .and_then(|dir| dir.open_read(&name))
            .map_err(refusal)?;
        let opened = file.metadata().map_err(refusal)?;
        check(path, &opened, cap)?;
        if let Some(pattern) = self.sensitive.hard_linked_inode_within(
            opened.nlink(),
            (opened.dev(), opened.ino()),
            Some(root),
        ) {
            return Err(sensitive(path, "is a hard link to a file in", pattern));
        }
        let bytes = read_capped(file, cap, path)?;
        String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| ReadRefusal::NotText {
                path: path.to_path_buf(),
            })
    }
}

fn sensitive(path: &Path, how: &'static str, pattern: &str) -> ReadRefusal {
    ReadRefusal::Sensitive {
        path: path.to_path_buf(),
        how,
        pattern: pattern.to_string(),
    }
}

/// Nothing at the path: it is missing, or a folder on the way is a file.
fn is_missing(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

#[cfg(test)]
#[path = "prompt_file_tests.rs"]
mod tests;
