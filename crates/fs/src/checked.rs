//! Using exactly what the guard checked: a resolved path is opened through descriptors beneath
//! the root that holds it ([`crate::beneath`]), and read, replaced or removed there.
//!
//! The guard answers with a canonical path — no symlink in it, no `..` — so the open follows no
//! symlink at all; one that appears after the check makes the call fail rather than leave the
//! workspace. A file may also have been swapped for a hard link to a secret after the check, so
//! the link count of the file actually opened is checked on its descriptor.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read, Seek};
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::Arc;

use nix::sys::stat::SFlag;

use crate::beneath::{self, Dir};
use crate::{SensitivePaths, WorkspaceGuard};

/// What a tool is about to do with a resolved path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read it: the workspace or an extra read root.
    Read,
    /// Change or remove it: the workspace only; its folder must exist.
    Write,
    /// Create or replace it: the workspace only; missing folders are created.
    Create,
}

/// What a checked path names now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Nothing.
    Missing,
    /// A folder.
    Dir,
    /// A regular file of `len` bytes.
    File {
        /// Its size.
        len: u64,
    },
    /// A symlink, fifo, socket or device.
    Other,
}

/// How long the replaced version must stay unchanged before its late appends are taken as
/// all carried over (a writer preempted between its `open` and its `write` on a busy machine).
const CARRY_OVER_QUIET: std::time::Duration = std::time::Duration::from_millis(1);

/// A version of a file, as [`CheckedFile::stamp`] sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    ino: u64,
    size: i64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

/// A resolved path, reached through descriptors: its folder and its name there (`.` for the
/// root itself).
#[derive(Debug)]
pub struct CheckedFile {
    dir: Dir,
    name: OsString,
    sensitive: Arc<SensitivePaths>,
}

impl WorkspaceGuard {
    /// Opens the folder of `resolved` — a path [`WorkspaceGuard::resolve_read`] or
    /// [`WorkspaceGuard::resolve_write`] returned — beneath the root that holds it, following
    /// no symlink (and creating missing folders for [`Access::Create`]).
    pub fn open_checked(&self, resolved: &Path, access: Access) -> io::Result<CheckedFile> {
        let outside = || {
            io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("{} is outside the workspace", resolved.display()),
            )
        };
        let root = self.root_holding(resolved, access).ok_or_else(outside)?;
        let rel = resolved.strip_prefix(root).map_err(|_| outside())?;
        let (folder, name) = beneath::split(rel);
        let base = Dir::open_canonical(root)?;
        let dir = match access {
            Access::Create => base.create_dirs(folder)?,
            Access::Read | Access::Write => base.dir(folder)?,
        };
        Ok(CheckedFile {
            dir,
            name,
            sensitive: self.sensitive_shared(),
        })
    }
}

impl CheckedFile {
    /// What the path names now, without following a symlink.
    pub fn kind(&self) -> io::Result<Kind> {
        let Some(stat) = self.dir.entry(&self.name)? else {
            return Ok(Kind::Missing);
        };
        let kind = SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT;
        Ok(match kind {
            SFlag::S_IFDIR => Kind::Dir,
            SFlag::S_IFREG => Kind::File {
                len: u64::try_from(stat.st_size).unwrap_or(0),
            },
            _ => Kind::Other,
        })
    }

    /// Opens the file (or folder) for reading; a symlink is not followed, and a file with
    /// another name in a sensitive folder (a hard link) is refused.
    pub fn open_read(&self) -> io::Result<File> {
        let file = self.dir.open_read(&self.name)?;
        let meta = file.metadata()?;
        if meta.is_file()
            && let Some(pattern) = self
                .sensitive
                .hard_linked_inode(meta.nlink(), (meta.dev(), meta.ino()))
        {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "it is off limits: it is another name (a hard link) of a file in {pattern}, \
                     which rein does not read or write"
                ),
            ));
        }
        Ok(file)
    }

    /// The whole file, read through [`CheckedFile::open_read`].
    pub fn read(&self) -> io::Result<Vec<u8>> {
        let mut file = self.open_read()?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    /// What identifies the file's current version: inode, size, change and modification
    /// times (`None` when it does not exist).
    pub fn stamp(&self) -> io::Result<Option<Stamp>> {
        Ok(self.dir.entry(&self.name)?.map(|s| Stamp {
            ino: s.st_ino,
            size: s.st_size,
            mtime: (s.st_mtime, s.st_mtime_nsec),
            ctime: (s.st_ctime, s.st_ctime_nsec),
        }))
    }

    /// [`CheckedFile::write_atomic`], but only while the file is still at version `before`,
    /// checked after the new contents are written and just before they replace it; an
    /// [`io::ErrorKind::WouldBlock`] error (nothing written) when another process changed it.
    pub fn write_atomic_unchanged(&self, bytes: &[u8], before: Stamp) -> io::Result<()> {
        // The version being replaced, held open: what is appended to it between the check and
        // the rename is carried over to the new file.
        let mut old = self.open_read()?;
        let checked_size = u64::try_from(before.size).unwrap_or(0);
        let check = || {
            if self.stamp()? == Some(before) {
                Ok(())
            } else {
                Err(io::Error::new(
                    io::ErrorKind::WouldBlock,
                    "the file changed while it was being edited",
                ))
            }
        };
        let carry_over = |new: &mut File| -> io::Result<()> {
            // A writer that opened the old version just before the rename may still be
            // writing: follow it until it has been quiet for a few scheduling rounds.
            let mut copied = checked_size;
            let mut quiet_since = std::time::Instant::now();
            while quiet_since.elapsed() < CARRY_OVER_QUIET {
                let size = old.metadata()?.len();
                if size > copied {
                    old.seek(io::SeekFrom::Start(copied))?;
                    copied += io::copy(&mut (&old).take(size - copied), new)?;
                    quiet_since = std::time::Instant::now();
                } else {
                    std::thread::sleep(std::time::Duration::from_micros(100));
                }
            }
            Ok(())
        };
        crate::atomic::write_atomic_in_checked(&self.dir, &self.name, bytes, check, carry_over)
    }

    /// Replaces the file's contents atomically (a temp file in the same folder, renamed over
    /// it), keeping an existing file's mode.
    pub fn write_atomic(&self, bytes: &[u8]) -> io::Result<()> {
        crate::atomic::write_atomic_in(&self.dir, &self.name, bytes)
    }

    /// Removes the file (a symlink itself, never what it points to).
    pub fn remove(&self) -> io::Result<()> {
        self.dir.remove_file(&self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A workspace `ws` next to a `secrets` folder the sensitive list names.
    fn setup() -> (tempfile::TempDir, PathBuf, PathBuf, WorkspaceGuard) {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let (ws, secrets) = (base.join("ws"), base.join("secrets"));
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(&secrets).unwrap();
        let pattern = secrets.display().to_string();
        let sensitive = SensitivePaths::new([pattern.as_str()], None).unwrap();
        let guard = WorkspaceGuard::new(&ws).unwrap().with_sensitive(sensitive);
        (dir, ws, secrets, guard)
    }

    #[test]
    fn a_hard_link_to_a_secret_is_refused_on_the_descriptor_opened() {
        let (_dir, ws, secrets, guard) = setup();
        std::fs::write(ws.join("notes.txt"), "notes").unwrap();
        let path = guard.resolve_read("notes.txt").unwrap();
        let checked = guard.open_checked(&path, Access::Read).unwrap();
        // After the check, the name is swapped for a hard link to a secret.
        std::fs::write(secrets.join("key"), "secret").unwrap();
        std::fs::remove_file(ws.join("notes.txt")).unwrap();
        std::fs::hard_link(secrets.join("key"), ws.join("notes.txt")).unwrap();
        let err = checked.read().unwrap_err();
        assert!(
            err.to_string().contains("a hard link) of a file in"),
            "{err}"
        );
    }

    #[test]
    fn the_root_itself_is_a_folder_and_kinds_are_told_apart() {
        let (_dir, ws, _secrets, guard) = setup();
        std::fs::write(ws.join("f.txt"), "four").unwrap();
        let kind = |rel: &str| {
            let path = guard.resolve_write(rel).unwrap();
            guard
                .open_checked(&path, Access::Write)
                .unwrap()
                .kind()
                .unwrap()
        };
        assert_eq!(kind("."), Kind::Dir);
        assert_eq!(kind("f.txt"), Kind::File { len: 4 });
        assert_eq!(kind("nope.txt"), Kind::Missing);
    }

    #[test]
    fn only_creating_makes_missing_folders() {
        let (_dir, ws, _secrets, guard) = setup();
        let path = guard.resolve_write("a/b/c.txt").unwrap();
        let err = guard.open_checked(&path, Access::Write).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        let file = guard.open_checked(&path, Access::Create).unwrap();
        file.write_atomic(b"made").unwrap();
        assert_eq!(
            std::fs::read_to_string(ws.join("a/b/c.txt")).unwrap(),
            "made"
        );
    }

    #[test]
    fn read_roots_are_for_reading_only() {
        let (_dir, _ws, secrets, guard) = setup();
        let outputs = secrets.parent().unwrap().join("outputs");
        std::fs::create_dir_all(&outputs).unwrap();
        std::fs::write(outputs.join("saved.txt"), "saved").unwrap();
        let guard = guard.with_read_root(&outputs).unwrap();
        let saved = outputs.join("saved.txt");
        let bytes = guard
            .open_checked(&saved, Access::Read)
            .unwrap()
            .read()
            .unwrap();
        assert_eq!(bytes, b"saved");
        let err = guard.open_checked(&saved, Access::Write).unwrap_err();
        assert!(err.to_string().contains("outside the workspace"), "{err}");
    }
}
