//! The files a snapshot holds, listed by rein rather than by git: git's own walk treats a
//! folder holding a `.git` as a nested repository and reads that repository's config (a
//! hostile `include.path` there made the snapshot fail). Here every `.git` entry is skipped
//! and the files of a nested checkout are the snapshot's like any other.

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;

/// The regular files and symlinks under `root` that git would not ignore (its `.gitignore`
/// files and the user's global excludes; not `.git/info/exclude`, which is the repository's),
/// relative to `root`, sorted; `excluded` folders and every `.git` entry are left out. Links
/// are listed, never followed.
pub(super) fn files(root: &Path, excluded: &[PathBuf]) -> Vec<PathBuf> {
    let excluded = excluded.to_vec();
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(false)
        .ignore(false)
        .parents(true)
        .git_ignore(true)
        .git_global(true)
        .git_exclude(false)
        .require_git(true)
        .follow_links(false)
        .filter_entry(move |entry| {
            entry.file_name() != ".git" && !excluded.iter().any(|e| entry.path() == e)
        });
    let mut files: Vec<PathBuf> = builder
        .build()
        .filter_map(Result::ok)
        .filter(|entry| {
            entry
                .file_type()
                .is_some_and(|t| t.is_file() || t.is_symlink())
        })
        .filter_map(|entry| entry.path().strip_prefix(root).ok().map(Path::to_path_buf))
        .collect();
    files.sort();
    files
}
