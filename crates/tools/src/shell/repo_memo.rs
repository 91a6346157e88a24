//! What the classifier found about a repository's configuration, kept between calls while the
//! files behind the answer are unchanged.
//!
//! Proving a `git` command read-only reads the repository's `config` (and `config.worktree`)
//! and looks for `commondir` and `modules`: about a dozen system calls and a parse, on every
//! call that runs `git`. The answer depends only on those files, so it is kept with a stamp of
//! each — device, inode, size, modification and change times — and reused while two or three
//! `stat` calls give the same stamp. Entries appearing in or leaving the git folder (a new
//! `config.worktree`, `commondir`, `modules`) change the folder's own times.
//!
//! A file's times have the kernel's coarse clock, so a change made in the same tick as the
//! read can leave every field of its stamp as it was. Like git's "racy" index entries, an
//! answer is therefore kept only when every file behind it was last changed at least
//! [`SETTLED`] before the read began; a recently written configuration is read on every call
//! until it has settled.

use nix::sys::stat::FileStat;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use rein_fs::FileStamp;

use rein_fs::path::joined;

/// How long ago the files behind an answer must have last changed for it to be kept.
const SETTLED: Duration = Duration::from_secs(2);

/// How many repositories' answers are kept (a workspace rarely holds more than one).
const CAPACITY: usize = 8;

/// Kept answers, owned by the `bash` tool (one per session's tool set).
#[derive(Debug)]
pub(crate) struct RepoMemo {
    entries: Mutex<Vec<Kept>>,
    settled: Duration,
}

impl Default for RepoMemo {
    fn default() -> Self {
        Self::settling_for(SETTLED)
    }
}

#[derive(Debug)]
struct Kept {
    git_dir: PathBuf,
    stamp: Stamp,
    inert: bool,
}

/// The state of the files an answer for one git folder rests on.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    git_dir: FileStamp,
    config: Option<FileStamp>,
    /// `config.worktree`, when it existed (its appearing changes `git_dir`'s times).
    worktree: Option<FileStamp>,
}

impl RepoMemo {
    /// A memo that keeps answers whose files last changed at least `settled` ago.
    pub(crate) fn settling_for(settled: Duration) -> Self {
        Self {
            entries: Mutex::new(Vec::new()),
            settled,
        }
    }

    /// Whether the configuration of `git_dir` is inert: the kept answer while its stamp holds,
    /// else `compute()`, kept when the files behind it did not change while it ran and had
    /// settled. `seen` is what `lstat(git_dir)` just said (the caller looked to find it).
    pub(crate) fn inert(
        &self,
        git_dir: &Path,
        seen: &FileStat,
        compute: impl FnOnce() -> bool,
    ) -> bool {
        let start = SystemTime::now();
        let seen = FileStamp::from(seen);
        if let Some((kept, inert)) = self.kept(git_dir)
            && stamp_with(git_dir, seen, kept.worktree.is_some()).as_ref() == Some(&kept)
        {
            return inert;
        }
        let before = stamp_with(git_dir, seen, true);
        let inert = compute();
        if let Some(before) = before
            && before
                .files()
                .all(|f| f.settled_before(start, self.settled))
            && stamp(git_dir, true).as_ref() == Some(&before)
        {
            self.keep(git_dir, before, inert);
        }
        inert
    }

    /// How many answers are kept.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    fn kept(&self, git_dir: &Path) -> Option<(Stamp, bool)> {
        let entries = self.lock();
        let kept = entries
            .iter()
            .find(|k| k.git_dir.as_os_str() == git_dir.as_os_str())?;
        Some((kept.stamp.clone(), kept.inert))
    }

    fn keep(&self, git_dir: &Path, stamp: Stamp, inert: bool) {
        let mut entries = self.lock();
        entries.retain(|k| k.git_dir != git_dir);
        if entries.len() >= CAPACITY {
            entries.remove(0);
        }
        entries.push(Kept {
            git_dir: git_dir.to_path_buf(),
            stamp,
            inert,
        });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Kept>> {
        // The entries are plain data; a panic elsewhere while the lock was held leaves them
        // whole.
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Stamp {
    fn files(&self) -> impl Iterator<Item = &FileStamp> {
        std::iter::once(&self.git_dir)
            .chain(self.config.as_ref())
            .chain(self.worktree.as_ref())
    }
}

/// The stamp of `git_dir`, its `config` and (when `with_worktree`) its `config.worktree`;
/// `None` when one cannot be stamped or one is a symbolic link.
fn stamp(git_dir: &Path, with_worktree: bool) -> Option<Stamp> {
    stamp_with(git_dir, FileStamp::of(git_dir).ok()??, with_worktree)
}

/// [`stamp`] with the stamp of `git_dir` itself already taken.
fn stamp_with(git_dir: &Path, git: FileStamp, with_worktree: bool) -> Option<Stamp> {
    let config = FileStamp::of(&joined(git_dir, "config")).ok()?;
    let worktree = if with_worktree {
        FileStamp::of(&joined(git_dir, "config.worktree")).ok()?
    } else {
        None
    };
    let stamp = Stamp {
        git_dir: git,
        config,
        worktree,
    };
    let through_link = stamp.files().any(FileStamp::is_symlink);
    (!through_link).then_some(stamp)
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    /// A git folder with an inert `config`, both last modified an hour ago, so that any
    /// change made by the test gives a different stamp.
    fn git_dir() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        std::fs::create_dir(&git).unwrap();
        std::fs::write(git.join("config"), "[core]\n\tbare = false\n").unwrap();
        for path in [git.join("config"), git.clone()] {
            age(&path);
        }
        (dir, git)
    }

    fn age(path: &Path) {
        let hour_ago = SystemTime::now() - Duration::from_secs(3600);
        std::fs::File::open(path)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
    }

    /// The memo's answer for `git`, and whether it had to read the files to give it.
    fn ask(memo: &RepoMemo, git: &Path) -> (bool, bool) {
        let read = Cell::new(false);
        let seen = nix::sys::stat::lstat(git).unwrap();
        let inert = memo.inert(git, &seen, || {
            read.set(true);
            super::super::repo_config::git_dir_is_inert(git, &rein_fs::lstats::Lstats::default())
        });
        (inert, read.get())
    }

    #[test]
    fn an_answer_is_kept_until_a_file_behind_it_changes() {
        let (_dir, git) = git_dir();
        let memo = RepoMemo::settling_for(Duration::ZERO);
        assert_eq!(ask(&memo, &git), (true, true));
        assert_eq!(ask(&memo, &git), (true, false), "kept");
        // The same size, in place: the modification time tells.
        std::fs::write(git.join("config"), "[core]\n\tpager = xx\n").unwrap();
        assert_eq!(ask(&memo, &git), (false, true));
        assert_eq!(ask(&memo, &git), (false, false), "a no is kept too");
        std::fs::write(git.join("config"), "[core]\n\tbare = false\n").unwrap();
        age(&git.join("config"));
        age(&git);
        assert_eq!(ask(&memo, &git), (true, true));
        // A new entry in the git folder changes the folder.
        std::fs::write(git.join("config.worktree"), "[core]\n\tfsmonitor = x\n").unwrap();
        assert_eq!(ask(&memo, &git), (false, true));
        std::fs::remove_file(git.join("config.worktree")).unwrap();
        age(&git);
        assert_eq!(ask(&memo, &git), (true, true));
        std::fs::write(git.join("commondir"), "../elsewhere").unwrap();
        assert_eq!(ask(&memo, &git), (false, true));
        std::fs::remove_file(git.join("commondir")).unwrap();
        age(&git);
        assert_eq!(ask(&memo, &git), (true, true));
        // The folder replaced by another one.
        let other = git.with_file_name("other");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join("config"), "[alias]\n\tx = !x\n").unwrap();
        std::fs::rename(&git, git.with_file_name("old")).unwrap();
        std::fs::rename(&other, &git).unwrap();
        age(&git.join("config"));
        age(&git);
        assert_eq!(ask(&memo, &git), (false, true));
    }

    #[test]
    fn a_configuration_behind_a_link_or_changed_recently_is_read_every_time() {
        let (dir, git) = git_dir();
        // Written just now: its change time cannot be set back, so it has not settled.
        let memo = RepoMemo::default();
        assert_eq!(ask(&memo, &git), (true, true));
        assert_eq!(ask(&memo, &git), (true, true));
        assert_eq!(memo.len(), 0);
        let memo = RepoMemo::settling_for(Duration::ZERO);
        let real = dir.path().join("real-config");
        std::fs::rename(git.join("config"), &real).unwrap();
        std::os::unix::fs::symlink(&real, git.join("config")).unwrap();
        ask(&memo, &git);
        assert_eq!(memo.len(), 0);
    }
}
