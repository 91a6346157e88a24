//! What the file system says about paths, asked once while one call is checked.
//!
//! Checking a call resolves the same folders and files many times — a shell line naming
//! `src/a.rs` in five commands, each checked by the classifier and again for the rules — and
//! each look is a system call that costs more than all the rest of the check. A call's facts
//! describe one moment, so one answer per path serves them all; nothing is kept afterwards.

use std::cell::RefCell;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// What `lstat` said about one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// Nothing there (or a component above it is not a folder).
    Missing,
    /// `lstat` failed otherwise (permission denied, loop…): resolve it the slow way.
    Unreadable,
    /// A symbolic link, not followed.
    Symlink,
    /// A folder.
    Dir,
    /// A regular file with `nlink` names.
    File {
        /// How many hard links the file has.
        nlink: u64,
    },
    /// A device, socket or fifo.
    Other,
}

/// `lstat` answers for one call's check.
#[derive(Debug, Default)]
pub struct Lstats {
    /// Keyed by the path's bytes: hashing a `Path` takes it apart into components.
    seen: RefCell<rustc_hash::FxHashMap<OsString, Entry>>,
    /// Paths the guard located, by the text it was given: the classifier and the rules
    /// resolve the same words.
    located: RefCell<rustc_hash::FxHashMap<String, PathBuf>>,
}

impl Lstats {
    /// `lstat(path)`, asked of the kernel the first time only.
    pub fn get(&self, path: &Path) -> Entry {
        let key: &OsStr = path.as_os_str();
        if let Some(entry) = self.seen.borrow().get(key) {
            return *entry;
        }
        let entry = lstat(path);
        self.seen.borrow_mut().insert(key.to_os_string(), entry);
        entry
    }
}

impl Lstats {
    /// Where the guard located `text` before, if it did.
    pub fn located(&self, text: &str) -> Option<PathBuf> {
        self.located.borrow().get(text).cloned()
    }

    /// Records where the guard located `text`.
    pub fn remember_located(&self, text: &str, path: &Path) {
        self.located
            .borrow_mut()
            .insert(text.to_string(), path.to_path_buf());
    }
}

/// `lstat(2)` itself: the standard library asks `statx` for every field (birth time
/// included), which costs more and tells nothing more here.
fn lstat(path: &Path) -> Entry {
    use nix::sys::stat::SFlag;
    match nix::sys::stat::lstat(path) {
        Ok(stat) => {
            let kind = SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT;
            match kind {
                SFlag::S_IFLNK => Entry::Symlink,
                SFlag::S_IFDIR => Entry::Dir,
                SFlag::S_IFREG => Entry::File {
                    // `nlink_t` is 32 bits wide on some targets.
                    #[allow(clippy::useless_conversion)]
                    nlink: u64::from(stat.st_nlink),
                },
                _ => Entry::Other,
            }
        }
        Err(nix::errno::Errno::ENOENT | nix::errno::Errno::ENOTDIR) => Entry::Missing,
        Err(_) => Entry::Unreadable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_path_is_asked_once_and_answers_what_lstat_says() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("one"), "x").unwrap();
        std::fs::write(root.join("two"), "x").unwrap();
        std::fs::hard_link(root.join("two"), root.join("two-again")).unwrap();
        std::os::unix::fs::symlink("nowhere", root.join("link")).unwrap();
        let lstats = Lstats::default();
        let cases = [
            ("one", Entry::File { nlink: 1 }),
            ("two", Entry::File { nlink: 2 }),
            ("link", Entry::Symlink),
            ("missing", Entry::Missing),
            ("one/below", Entry::Missing),
            ("", Entry::Dir),
        ];
        for (name, expected) in cases {
            assert_eq!(lstats.get(&root.join(name)), expected, "{name}");
        }
        // The answer is the one first given, though the file has gone since.
        std::fs::remove_file(root.join("one")).unwrap();
        assert_eq!(lstats.get(&root.join("one")), Entry::File { nlink: 1 });
        assert_eq!(Lstats::default().get(&root.join("one")), Entry::Missing);
    }
}
