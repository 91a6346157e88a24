//! The files a snapshot holds, listed by rein rather than by git: git's own walk treats a
//! folder holding a `.git` as a nested repository and reads that repository's config (a
//! hostile `include.path` there made the snapshot fail). Here every `.git` entry is skipped
//! and the files of a nested checkout are the snapshot's like any other. Each file comes with
//! its [`FileStamp`], so a later snapshot hands git only the files that changed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use ignore::WalkBuilder;

use rein_fs::FileStamp;

/// How long before a walk a file must have last changed for its stamp to prove it unchanged
/// at the next one.
pub(super) const SETTLED: Duration = Duration::from_secs(2);

/// The regular files and symlinks under `root` that git would not ignore (its `.gitignore`
/// files and the user's global excludes; not `.git/info/exclude`, which is the repository's),
/// relative to `root`, sorted, with their stamps; `excluded` folders and every `.git` entry are
/// left out. Links are listed, never followed.
pub(super) fn files(root: &Path, excluded: &[PathBuf]) -> Vec<(PathBuf, FileStamp)> {
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
    // Folders are read and files stamped on every core: the walk is most of a snapshot's
    // own work.
    let found = std::sync::Mutex::new(Vec::new());
    builder.build_parallel().run(|| {
        Box::new(|entry| {
            if let Ok(entry) = entry
                && entry
                    .file_type()
                    .is_some_and(|t| t.is_file() || t.is_symlink())
                && let Ok(rel) = entry.path().strip_prefix(root)
                && let Ok(meta) = entry.metadata()
            {
                found
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((rel.to_path_buf(), FileStamp::from(&meta)));
            }
            ignore::WalkState::Continue
        })
    });
    let mut files = found.into_inner().unwrap_or_else(|p| p.into_inner());
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}
