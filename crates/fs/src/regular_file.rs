//! Reading the files rein reads on its own (memory files, config and settings, `.git/HEAD`,
//! the trust store, session files, prompt history, custom commands): only regular files, and
//! never more than a cap.
//!
//! Such a file may come with a cloned repository, so it may be anything: a symlink to
//! `/dev/zero` (an endless read), a FIFO (an open that waits forever for a writer), a
//! directory, or a file of gigabytes. [`open_regular`] checks what the path names before
//! opening it, opens it without blocking (`O_NONBLOCK`, so a FIFO swapped in meanwhile cannot
//! hang the open) and without making a terminal the controlling one (`O_NOCTTY`), and checks
//! the opened file again; [`read_regular`] then reads at most the cap plus one byte, so a file
//! that grows while it is read still costs no more than the cap. What is refused comes back as
//! a [`ReadRefusal`] naming the path, for the caller to show as a warning.
//!
//! ```
//! use rein_fs::{ReadRefusal, read_regular};
//! let dir = std::env::temp_dir();
//! // A directory is not a regular file: refused, with its path in the message.
//! let refused = read_regular(&dir, 1024).unwrap_err();
//! assert!(matches!(refused, ReadRefusal::NotRegular { .. }));
//! // A missing file is no error: there is nothing to read.
//! assert_eq!(read_regular(&dir.join("rein-surely-missing.md"), 1024).unwrap(), None);
//! ```

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use nix::fcntl::OFlag;

/// Why a file rein reads on its own was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadRefusal {
    /// The path names a directory, FIFO, device or socket (a symlink is followed first).
    #[error("{} is {kind}, not a regular file", path.display())]
    NotRegular {
        /// The path as given.
        path: PathBuf,
        /// What it is: `a FIFO`, `a directory`, `a character device`…
        kind: &'static str,
    },
    /// The file holds more than the cap.
    #[error("{} is larger than {} (the most rein reads of it)", path.display(), human_size(*cap))]
    TooLarge {
        /// The path as given.
        path: PathBuf,
        /// The cap in bytes.
        cap: u64,
    },
    /// The file is not UTF-8 text (only from [`read_regular`]).
    #[error("{} is not UTF-8 text", path.display())]
    NotText {
        /// The path as given.
        path: PathBuf,
    },
    /// The path leads out of the folder it must stay in (a symlink on the way points
    /// elsewhere): only from [`crate::PromptFiles`].
    #[error(
        "{} leads outside {} (a symbolic link on the way points out of it); rein reads no \
         prompt file from elsewhere",
        path.display(),
        root.display()
    )]
    Outside {
        /// The path as given.
        path: PathBuf,
        /// The folder it had to stay in.
        root: PathBuf,
    },
    /// The path is a credential or secret file (it matches the sensitive list), or another
    /// name (a hard link) of one: only from [`crate::PromptFiles`].
    #[error(
        "{} is off limits (it {how} {pattern}): rein does not send credentials or secrets",
        path.display()
    )]
    Sensitive {
        /// The path as given.
        path: PathBuf,
        /// `matches`, or `is a hard link to a file in`.
        how: &'static str,
        /// The sensitive-path pattern.
        pattern: String,
    },
    /// Opening or reading failed (permissions, I/O).
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The path as given.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
}

impl ReadRefusal {
    /// The path refused.
    pub fn path(&self) -> &Path {
        match self {
            Self::NotRegular { path, .. }
            | Self::TooLarge { path, .. }
            | Self::NotText { path }
            | Self::Outside { path, .. }
            | Self::Sensitive { path, .. }
            | Self::Io { path, .. } => path,
        }
    }
}

/// The text of the regular file at `path` (symlinks followed), read while at most `cap` bytes
/// have come; `Ok(None)` when nothing is there (the path or a folder on the way is missing).
pub fn read_regular(path: &Path, cap: u64) -> Result<Option<String>, ReadRefusal> {
    let Some(bytes) = read_regular_bytes(path, cap)? else {
        return Ok(None);
    };
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| ReadRefusal::NotText {
            path: path.to_path_buf(),
        })
}

/// The bytes of the regular file at `path`, as [`read_regular`] reads them.
pub fn read_regular_bytes(path: &Path, cap: u64) -> Result<Option<Vec<u8>>, ReadRefusal> {
    let Some(file) = open_regular(path, cap)? else {
        return Ok(None);
    };
    read_capped(file, cap, path).map(Some)
}

/// The regular file at `path`, opened for reading after checking it is one and holds at most
/// `cap` bytes; `Ok(None)` when nothing is there. The caller reads it; wrap it in
/// `Read::take(cap + 1)` when it may still grow.
pub fn open_regular(path: &Path, cap: u64) -> Result<Option<File>, ReadRefusal> {
    let io_error = |source| ReadRefusal::Io {
        path: path.to_path_buf(),
        source,
    };
    // Look before opening: opening a device can have effects of its own.
    let before = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if is_missing(&e) => return Ok(None),
        Err(e) => return Err(io_error(e)),
    };
    check(path, &before, cap)?;
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags((OFlag::O_NONBLOCK | OFlag::O_NOCTTY).bits())
        .open(path)
    {
        Ok(file) => file,
        Err(e) if is_missing(&e) => return Ok(None),
        Err(e) => return Err(io_error(e)),
    };
    // The path may have been swapped since it was looked at: check what was opened.
    let opened = file.metadata().map_err(io_error)?;
    check(path, &opened, cap)?;
    Ok(Some(file))
}

/// Reads at most `cap + 1` bytes of `reader`; more than `cap` is [`ReadRefusal::TooLarge`].
pub fn read_capped(reader: impl Read, cap: u64, path: &Path) -> Result<Vec<u8>, ReadRefusal> {
    let mut bytes = Vec::new();
    reader
        .take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| ReadRefusal::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if bytes.len() as u64 > cap {
        return Err(ReadRefusal::TooLarge {
            path: path.to_path_buf(),
            cap,
        });
    }
    Ok(bytes)
}

pub(crate) fn check(path: &Path, meta: &Metadata, cap: u64) -> Result<(), ReadRefusal> {
    let kind = meta.file_type();
    let not_regular = |kind| ReadRefusal::NotRegular {
        path: path.to_path_buf(),
        kind,
    };
    if kind.is_dir() {
        return Err(not_regular("a directory"));
    }
    if kind.is_fifo() {
        return Err(not_regular("a FIFO"));
    }
    if kind.is_char_device() {
        return Err(not_regular("a character device"));
    }
    if kind.is_block_device() {
        return Err(not_regular("a block device"));
    }
    if kind.is_socket() {
        return Err(not_regular("a socket"));
    }
    if !kind.is_file() {
        return Err(not_regular("an unknown kind of file"));
    }
    check_len(path, meta.len(), cap)
}

/// A file of `len` bytes over `cap` is [`ReadRefusal::TooLarge`].
pub(crate) fn check_len(path: &Path, len: u64, cap: u64) -> Result<(), ReadRefusal> {
    if len > cap {
        return Err(ReadRefusal::TooLarge {
            path: path.to_path_buf(),
            cap,
        });
    }
    Ok(())
}

/// Nothing at the path: it is missing, or a folder on the way is a file.
fn is_missing(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

/// `256 KiB`, `1 MiB`, `100 bytes`.
fn human_size(bytes: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * KIB;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
#[path = "regular_file_tests.rs"]
mod tests;
