//! Reaching a recorded file for a restore through descriptors: from the workspace (or `/` for
//! a path outside it) one folder after another without following a symlink, then looking at,
//! writing or removing the file in the folder reached. Recorded paths are canonical (the guard
//! resolved them), so a symlink met on the way appeared after rein wrote the file.

use std::ffi::OsString;
use std::io::{self, Read};
use std::path::Path;

use nix::sys::stat::SFlag;
use sha2::{Digest, Sha256};

use super::{Checkpoints, FileState, Look, hex};
use rein_fs::beneath::{self, Dir};

/// What a restore is about to do with a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Target {
    /// Look at or remove what is there.
    Existing,
    /// Write it, making missing folders.
    Creating,
}

/// A path reached.
#[derive(Debug)]
pub(super) enum Reached {
    /// Its folder is not there (so neither is it).
    Missing,
    /// Its folder, open, and its name there.
    Found(Found),
}

impl Reached {
    /// The folder reached; not found when missing.
    pub(super) fn found(self) -> io::Result<Found> {
        match self {
            Self::Found(found) => Ok(found),
            Self::Missing => Err(io::ErrorKind::NotFound.into()),
        }
    }
}

/// A file's folder, open, and its name there.
#[derive(Debug)]
pub(super) struct Found {
    dir: Dir,
    name: OsString,
}

/// Whether `error` says a symlink now stands on the path.
pub(super) fn crosses_link(error: &io::Error) -> bool {
    beneath::is_changed(error)
}

impl Checkpoints {
    /// The folder of `path`, reached through descriptors (made, for [`Target::Creating`]).
    pub(super) fn reach(&self, path: &Path, target: Target) -> io::Result<Reached> {
        let anchor = self
            .workspace
            .as_deref()
            .filter(|ws| path.starts_with(ws))
            .unwrap_or(Path::new("/"));
        let rel = path
            .strip_prefix(anchor)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "not an absolute path"))?;
        let (folder, name) = beneath::split(rel);
        let base = Dir::open_canonical(anchor)?;
        let dir = match target {
            Target::Creating => base.create_dirs(folder),
            Target::Existing => base.dir(folder),
        };
        match dir {
            Ok(dir) => Ok(Reached::Found(Found { dir, name })),
            Err(e)
                if e.kind() == io::ErrorKind::NotFound
                    || e.raw_os_error() == Some(nix::errno::Errno::ENOTDIR as i32) =>
            {
                // ENOTDIR: a file stands where a folder was, so the path holds nothing.
                Ok(Reached::Missing)
            }
            Err(e) => Err(e),
        }
    }
}

impl Found {
    /// What is there: a regular file's bytes and mode, or the state of anything else.
    pub(super) fn look(&self) -> io::Result<Look> {
        let Some(stat) = self.dir.entry(&self.name)? else {
            return Ok(Look::Other(FileState::Absent));
        };
        let reason = match SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT {
            SFlag::S_IFREG => {
                // `mode_t` is `u32` on Linux, `u16` on macOS.
                #[allow(clippy::useless_conversion)]
                let mode = u32::from(stat.st_mode) & 0o7777;
                return Ok(Look::File(self.read()?, mode));
            }
            SFlag::S_IFDIR => "a folder",
            SFlag::S_IFLNK => "a symbolic link",
            _ => "not a regular file",
        };
        Ok(Look::Other(FileState::Unkept {
            reason: reason.to_string(),
        }))
    }

    /// The file's state, as [`super::observe`] tells it.
    pub(super) fn state(&self) -> io::Result<FileState> {
        Ok(match self.look()? {
            Look::File(bytes, mode) => FileState::File {
                hash: hex(&Sha256::digest(&bytes)),
                mode,
                size: bytes.len() as u64,
            },
            Look::Other(state) => state,
        })
    }

    /// The file's bytes (a symlink is not followed).
    pub(super) fn read(&self) -> io::Result<Vec<u8>> {
        let mut file = self.dir.open_read(&self.name)?;
        if !file.metadata()?.is_file() {
            return Err(io::Error::other("not a regular file"));
        }
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    /// Replaces the file with `bytes` and `mode`, atomically (a symlink there is replaced,
    /// never written through).
    pub(super) fn write(&self, bytes: &[u8], mode: u32) -> io::Result<()> {
        rein_fs::atomic::write_new(&self.dir, &self.name, bytes, mode)
    }

    /// Removes the file (`unlinkat` in its folder).
    pub(super) fn remove(&self) -> io::Result<()> {
        self.dir.remove_file(&self.name)
    }
}
