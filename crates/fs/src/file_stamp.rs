//! What tells a file or folder has not changed since it was last looked at: its device, inode,
//! mode, size and modification and change times (`lstat`, nanoseconds where the file system
//! keeps them). The classifier's repository memo, the sandbox's hidden tree and the
//! checkpoints' snapshot walk each keep answers while their stamps hold.
//!
//! A file's times come from the kernel's coarse clock, so a change made in the same tick as a
//! look can leave every field as it was. Like git's "racy" index entries, a stamp is trusted
//! only when its times are settled before the look that took it.

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::{Duration, SystemTime};

use nix::sys::stat::{FileStat, SFlag};

/// A file's or folder's stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    dev: u64,
    ino: u64,
    mode: u32,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl FileStamp {
    /// `lstat`'s answer, or `None` when nothing is there; `Err` when the look failed. A
    /// symbolic link is stamped as itself.
    pub fn of(path: &Path) -> Result<Option<Self>, nix::errno::Errno> {
        match nix::sys::stat::lstat(path) {
            Ok(stat) => Ok(Some(Self::from(&stat))),
            Err(nix::errno::Errno::ENOENT) => Ok(None),
            Err(errno) => Err(errno),
        }
    }

    // `mode_t` is `u32` on Linux, `u16` on macOS (where a file type fits it).
    #[allow(clippy::useless_conversion, clippy::unnecessary_fallible_conversions)]
    fn kind(&self) -> SFlag {
        let mode = nix::libc::mode_t::try_from(self.mode).unwrap_or(0);
        SFlag::from_bits_truncate(mode) & SFlag::S_IFMT
    }

    /// Whether the path was a symbolic link (itself, not what it points to).
    pub fn is_symlink(&self) -> bool {
        self.kind() == SFlag::S_IFLNK
    }

    /// Whether the path was a folder.
    pub fn is_dir(&self) -> bool {
        self.kind() == SFlag::S_IFDIR
    }

    /// Whether both times are at least `settled` before `start`.
    pub fn settled_before(&self, start: SystemTime, settled: Duration) -> bool {
        limit(start, settled).is_some_and(|limit| self.mtime < limit && self.ctime < limit)
    }

    /// Whether the modification time is at least `settled` before `start`: enough for what
    /// only a change of contents (or of a folder's entries) moves.
    pub fn modified_before(&self, start: SystemTime, settled: Duration) -> bool {
        limit(start, settled).is_some_and(|limit| self.mtime < limit)
    }
}

/// `start - settled` as `(seconds, nanoseconds)` since the epoch.
fn limit(start: SystemTime, settled: Duration) -> Option<(i64, i64)> {
    let limit = start
        .checked_sub(settled)?
        .duration_since(SystemTime::UNIX_EPOCH)
        .ok()?;
    Some((
        i64::try_from(limit.as_secs()).unwrap_or(i64::MAX),
        i64::from(limit.subsec_nanos()),
    ))
}

impl From<&FileStat> for FileStamp {
    // The widths of `stat`'s fields differ between targets.
    #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
    fn from(stat: &FileStat) -> Self {
        Self {
            dev: stat.st_dev as u64,
            ino: u64::from(stat.st_ino),
            mode: u32::from(stat.st_mode),
            size: u64::try_from(stat.st_size).unwrap_or(u64::MAX),
            mtime: (i64::from(stat.st_mtime), i64::from(stat.st_mtime_nsec)),
            ctime: (i64::from(stat.st_ctime), i64::from(stat.st_ctime_nsec)),
        }
    }
}

impl From<&std::fs::Metadata> for FileStamp {
    fn from(meta: &std::fs::Metadata) -> Self {
        Self {
            dev: meta.dev(),
            ino: meta.ino(),
            mode: meta.mode(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}
