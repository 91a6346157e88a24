//! `glob` and `grep` on ripgrep's own crates: the `ignore` walker (honouring `.gitignore`,
//! `.ignore` and git excludes, in parallel), `globset`, `grep-regex` and `grep-searcher`.
//!
//! Both walk from a root the guard resolved, never follow symlinks (a symlinked file is used
//! only when its target is inside the workspace), never enter `.git`, and skip sensitive
//! files, so no search lists or prints what the file tools may not read.

mod glob;
mod grep;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use ignore::{DirEntry, WalkBuilder};

use crate::WorkspaceGuard;

pub use glob::{Glob, GlobArgs, MAX_GLOB_RESULTS};
pub use grep::{Grep, GrepArgs};

/// A walker over `root` with rein's rules; `configure` adds filters (types, overrides).
fn walker(root: &Path) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .ignore(true)
        .parents(true)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| entry.file_name() != ".git");
    builder
}

/// The file an entry stands for, if a tool may use it: a regular file, or a symlink whose
/// target is a file inside the workspace; never a sensitive path.
fn usable_file(entry: &DirEntry, guard: &WorkspaceGuard) -> Option<PathBuf> {
    let file_type = entry.file_type()?;
    let path = entry.path();
    let real = if file_type.is_symlink() {
        let target = std::fs::canonicalize(path).ok()?;
        if !guard.contains(&target) || !target.is_file() {
            return None;
        }
        target
    } else if file_type.is_file() {
        path.to_path_buf()
    } else {
        return None;
    };
    if guard.sensitive(path).is_some()
        || guard.sensitive(&real).is_some()
        || guard.sensitive_paths().hard_linked(&real).is_some()
    {
        return None;
    }
    Some(path.to_path_buf())
}

/// Modification time for newest-first ordering (unknown times sort last).
fn modified(path: &Path) -> SystemTime {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

/// The search root from an optional `path` argument, resolved by the guard.
fn search_root(path: Option<&str>, guard: &WorkspaceGuard) -> Result<PathBuf, String> {
    let given = path.unwrap_or(".");
    let root = guard.resolve_read(given).map_err(|e| e.to_string())?;
    if !root.exists() {
        return Err(format!("path not found: {given}"));
    }
    Ok(root)
}
