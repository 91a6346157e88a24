//! Which files and folders of the workspace (and of the folders a `Read` deny glob names) a
//! sandboxed command must not see: every entry the guard refuses (the sensitive list's names
//! such as `.env*`, its named paths, the `Read` deny globs), at any depth.
//!
//! Listing the whole tree before every call would cost a `readdir` per folder and a match per
//! entry. The tree is kept instead, per guard (so per session): for each folder, its
//! identity and modification time when it was read, the entries to hide and the sub-folders
//! to walk. A folder's modification time changes whenever an entry is added, removed or
//! renamed in it, so a later call re-reads only folders whose time changed: one `lstat` per
//! folder. A folder changed within [`RACY`] of its reading may change again without its time
//! moving (timestamps are coarse), so it is read again until its time is older, as git does
//! with "racy" index entries.
//!
//! Bounds: `.git` folders are not entered (they hold no files of the project's own, and are
//! large); `node_modules` folders are walked last; at most [`MAX_FOLDERS`] folders are walked
//! per call, the rest being reported as not covered; more than [`MAX_HIDDEN`] entries to hide
//! is an error (each is a mount; a command line that long would fail anyway).

use std::collections::VecDeque;
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use crate::file_stamp::FileStamp;

use rustc_hash::FxHashMap;

/// Most folders walked for one call; deeper or later ones are not covered.
pub const MAX_FOLDERS: usize = 20_000;

/// Most entries hidden for one call: each costs a mount in the command's view.
pub const MAX_HIDDEN: usize = 4_096;

/// How recent a folder's modification time may be for its listing to be trusted later.
const RACY: Duration = Duration::from_secs(2);

/// The folder names never entered.
const NOT_ENTERED: &[&str] = &[".git"];

/// Folder names walked after every other folder: generated, and often huge.
const WALKED_LAST: &[&str] = &["node_modules"];

/// What a walk found for one call.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Hidden {
    /// The files and folders to hide, absolute.
    pub paths: Vec<PathBuf>,
    /// Folders not walked because [`MAX_FOLDERS`] was reached.
    pub not_covered: usize,
}

/// Too many entries to hide for one call.
#[derive(Debug, thiserror::Error)]
#[error(
    "not run: more than {MAX_HIDDEN} files or folders would have to be hidden from the \
     sandboxed command (sensitive names or `Read` deny rules); narrow the deny rules"
)]
pub struct TooManyHidden;

/// The kept tree: each folder read so far, by its absolute path, and the last walk.
#[derive(Default)]
pub struct HiddenTree {
    folders: Mutex<FxHashMap<PathBuf, Folder>>,
    last: Mutex<Option<LastWalk>>,
}

/// A walk's roots, the folders it went through with their stamps, and what it found: while
/// every one of those folders keeps its stamp, the same walk would find the same.
struct LastWalk {
    roots: Vec<PathBuf>,
    /// `None` for a folder that was not there (a root a deny glob names, say).
    folders: Vec<(PathBuf, Option<FileStamp>)>,
    found: Hidden,
}

impl std::fmt::Debug for HiddenTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let folders = self.lock().len();
        f.debug_struct("HiddenTree")
            .field("folders", &folders)
            .finish()
    }
}

/// One folder as it was read.
struct Folder {
    stamp: FileStamp,
    /// Read so recently that a change since may not show in its time.
    racy: bool,
    /// Names of the entries to hide.
    hidden: Vec<OsString>,
    /// Names of the sub-folders to walk (neither hidden nor symlinks).
    subfolders: Vec<OsString>,
}

impl HiddenTree {
    /// Everything under `roots` (absolute folders; a root under another is walked once) for
    /// which `hide` holds. A hidden folder is not entered: hiding it hides what it holds.
    pub fn hidden(
        &self,
        roots: &[PathBuf],
        hide: impl Fn(&Path) -> bool,
    ) -> Result<Hidden, TooManyHidden> {
        if let Some(found) = self.unchanged(roots) {
            return Ok(found);
        }
        self.walk(roots, &hide, MAX_FOLDERS)
    }

    /// The last walk's answer when it was over the same roots and none of its folders changed
    /// since (one `lstat` each, no listing, nothing allocated per folder): the usual call.
    fn unchanged(&self, roots: &[PathBuf]) -> Option<Hidden> {
        let last = self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let last = last.as_ref().filter(|last| last.roots == roots)?;
        last.folders
            .iter()
            .all(|(dir, known)| stamp(dir) == *known)
            .then(|| Hidden {
                paths: last.found.paths.clone(),
                not_covered: last.found.not_covered,
            })
    }

    /// [`HiddenTree::hidden`], walking at most `max_folders` folders.
    fn walk(
        &self,
        roots: &[PathBuf],
        hide: &impl Fn(&Path) -> bool,
        max_folders: usize,
    ) -> Result<Hidden, TooManyHidden> {
        let mut old = self.lock();
        let mut kept = FxHashMap::default();
        let mut found = Hidden::default();
        let mut queue = outermost(roots);
        let mut last: VecDeque<PathBuf> = VecDeque::new();
        let mut walked = 0;
        // The folders walked with their stamps; `None` once one cannot be trusted later.
        let mut seen: Option<Vec<(PathBuf, Option<FileStamp>)>> = Some(Vec::new());
        while let Some(dir) = queue.pop_front().or_else(|| last.pop_front()) {
            if walked == max_folders {
                found.not_covered = 1 + queue.len() + last.len();
                break;
            }
            walked += 1;
            let Some(stamp) = stamp(&dir) else {
                if let Some(seen) = &mut seen {
                    seen.push((dir, None));
                }
                continue;
            };
            let folder = match old.remove(&dir) {
                Some(known) if known.stamp == stamp && !known.racy => known,
                _ => read(&dir, stamp, hide),
            };
            match &mut seen {
                Some(_) if folder.racy => seen = None,
                Some(seen) => seen.push((dir.clone(), Some(stamp))),
                None => {}
            }
            for name in &folder.hidden {
                found.paths.push(dir.join(name));
            }
            if found.paths.len() > MAX_HIDDEN {
                // What was read stays known for the next call.
                kept.insert(dir, folder);
                old.extend(kept);
                self.set_last(None);
                return Err(TooManyHidden);
            }
            for name in &folder.subfolders {
                let sub = dir.join(name);
                if WALKED_LAST.iter().any(|n| name.as_bytes() == n.as_bytes()) {
                    last.push_back(sub);
                } else {
                    queue.push_back(sub);
                }
            }
            kept.insert(dir, folder);
        }
        // Folders no longer reached are forgotten.
        *old = kept;
        drop(old);
        self.set_last(seen.map(|folders| LastWalk {
            roots: roots.to_vec(),
            folders,
            found: Hidden {
                paths: found.paths.clone(),
                not_covered: found.not_covered,
            },
        }));
        Ok(found)
    }

    /// Keeps `walk` as the last walk (`None`: there is none to reuse).
    fn set_last(&self, walk: Option<LastWalk>) {
        *self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = walk;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, FxHashMap<PathBuf, Folder>> {
        // A panic in another walk leaves at worst folders to read again.
        self.folders
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The roots not inside another root (a root listed twice is kept once).
fn outermost(roots: &[PathBuf]) -> VecDeque<PathBuf> {
    let mut queue = VecDeque::new();
    for (i, root) in roots.iter().enumerate() {
        let nested = roots[..i].iter().any(|r| root.starts_with(r))
            || roots[i + 1..]
                .iter()
                .any(|r| root.starts_with(r) && r != root);
        if !nested {
            queue.push_back(root.clone());
        }
    }
    queue
}

/// The folder's stamp, or `None` when it is not a folder (any more).
fn stamp(dir: &Path) -> Option<FileStamp> {
    FileStamp::of(dir).ok().flatten().filter(FileStamp::is_dir)
}

/// Lists `dir` (stamped `stamp` just before): which entries to hide, which to walk.
fn read(dir: &Path, stamp: FileStamp, hide: &impl Fn(&Path) -> bool) -> Folder {
    let mut folder = Folder {
        stamp,
        // A time in the future is as untrustworthy as a recent one.
        racy: !stamp.modified_before(SystemTime::now(), RACY),
        hidden: Vec::new(),
        subfolders: Vec::new(),
    };
    // An unreadable folder hides nothing the command could read either.
    let Ok(entries) = std::fs::read_dir(dir) else {
        return folder;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if hide(&dir.join(&name)) {
            folder.hidden.push(name);
            continue;
        }
        // The type from the listing itself; a symlink is not followed.
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && !NOT_ENTERED.iter().any(|n| name.as_bytes() == n.as_bytes()) {
            folder.subfolders.push(name);
        }
    }
    folder
}

#[cfg(test)]
#[path = "hidden_tree_tests.rs"]
mod tests;
