//! What a proven command may read: path operands resolved like the file tools resolve them,
//! and, for recursive content searches, every file below a directory.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::WorkspaceGuard;
use rein_fs::lstats::{Entry, Lstats};

/// How many entries a recursive search may have before rein stops looking and asks.
const MAX_TREE_ENTRIES: usize = 20_000;

/// The workspace and the shell's current directory, against which operands are checked.
pub(super) struct Reads<'a> {
    /// The workspace guard (root, sensitive list, extra read roots).
    pub guard: &'a WorkspaceGuard,
    /// The shell's current directory; relative operands start here.
    pub cwd: &'a Path,
    /// What the file system says, shared with the rest of the call's facts.
    pub lstats: &'a Lstats,
    /// What earlier calls found about repository configurations (the `bash` tool's).
    pub memo: &'a super::repo_memo::RepoMemo,
    /// Whether the repository around `cwd` has an inert configuration, once asked: one line
    /// often runs `git` several times in the same repository.
    pub repo_inert: std::cell::OnceCell<bool>,
    /// Answers of [`Reads::path`] by operand: a line often names the same file in several
    /// commands (`grep … f | …; git log -- f`).
    pub checked: std::cell::RefCell<rustc_hash::FxHashMap<String, bool>>,
}

impl<'a> Reads<'a> {
    /// Nothing checked yet, for a line run in `cwd`.
    pub fn new(
        guard: &'a WorkspaceGuard,
        cwd: &'a Path,
        lstats: &'a Lstats,
        memo: &'a super::repo_memo::RepoMemo,
    ) -> Self {
        Self {
            guard,
            cwd,
            lstats,
            memo,
            repo_inert: std::cell::OnceCell::new(),
            checked: std::cell::RefCell::default(),
        }
    }

    /// Whether a path operand may be created, changed, moved or deleted: the guard resolves
    /// it for writing (inside the workspace, not sensitive, symlinks followed), it is not a
    /// root of the workspace, and it is not a file with several names.
    pub fn writable(&self, path: &str) -> bool {
        let joined = rein_fs::path::joined(self.cwd, path);
        let Some(text) = joined.to_str() else {
            return false;
        };
        self.guard.resolve_write(text).is_ok_and(|resolved| {
            !self.guard.roots().any(|root| root == resolved) && self.single_name(&resolved)
        })
    }
    /// Whether the repository `git` would use from `cwd` is one of the workspace's with a
    /// configuration that runs nothing (read once per line).
    pub fn repository_is_inert(&self) -> bool {
        *self.repo_inert.get_or_init(|| {
            super::repo_config::repository_config_is_inert(
                self.guard,
                self.cwd,
                self.lstats,
                self.memo,
            )
        })
    }

    /// Whether a path operand may be read: `-` (standard input), or a path the guard resolves
    /// for reading that is not a file with several names (a hard link to a secret shares its
    /// inode, not its path).
    pub fn path(&self, path: &str) -> bool {
        if path == "-" {
            return true;
        }
        if let Some(known) = self.checked.borrow().get(path) {
            return *known;
        }
        let readable = self
            .resolve(path)
            .is_some_and(|resolved| self.single_name(&resolved));
        self.checked.borrow_mut().insert(path.to_string(), readable);
        readable
    }

    /// Whether a recursive content search (`grep -r`, `rg`) of `path` reads only readable
    /// files: the operand itself, and when it is a directory every file below it (symbolic
    /// links are not followed by these searches, so they are skipped) is neither sensitive
    /// nor hard-linked, within [`MAX_TREE_ENTRIES`].
    pub fn tree(&self, path: &str) -> bool {
        if path == "-" {
            return true;
        }
        let Some(resolved) = self.resolve(path) else {
            return false;
        };
        if !resolved.is_dir() {
            return self.single_name(&resolved);
        }
        let mut stack = vec![resolved];
        let mut seen = 0;
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                return false;
            };
            for entry in entries {
                seen += 1;
                let Ok(entry) = entry else {
                    return false;
                };
                let Ok(meta) = entry.metadata() else {
                    return false;
                };
                let path = entry.path();
                if seen > MAX_TREE_ENTRIES || self.guard.sensitive(&path).is_some() {
                    return false;
                }
                if meta.is_dir() {
                    stack.push(path);
                } else if meta.is_file() && meta.nlink() > 1 {
                    return false;
                }
            }
        }
        true
    }

    fn resolve(&self, path: &str) -> Option<PathBuf> {
        let joined = rein_fs::path::joined(self.cwd, path);
        self.guard
            .resolve_read_with(joined.to_str()?, self.lstats)
            .ok()
    }

    /// Whether the file at a resolved path (if it exists) has only one name. A resolved path
    /// holds no symlink but a dangling last one, which names nothing.
    fn single_name(&self, resolved: &Path) -> bool {
        match self.lstats.get(resolved) {
            Entry::File { nlink } => nlink <= 1,
            Entry::Unreadable => false,
            Entry::Missing | Entry::Symlink | Entry::Dir | Entry::Other => true,
        }
    }
}
