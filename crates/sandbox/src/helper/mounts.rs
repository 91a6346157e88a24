//! Mount primitives of the helper: binds with their restrictions, tmpfs folders, mount
//! points, and reading `/proc/self/mountinfo` (and other files of a `/proc` held open).

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use nix::fcntl::{OFlag, openat};
use nix::mount::{MsFlags, mount};
use nix::sys::stat::Mode;
use nix::sys::statvfs::{FsFlags, statvfs};

use super::Failure;

/// Whether a mount may be written through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Access {
    /// Read-only.
    ReadOnly,
    /// As writable as its source.
    Writable,
}

/// What a mount point has to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Folder,
    File,
}

/// Binds `src` (with everything mounted below it) at `dest`, creating the mount point, then
/// restricts the new mount as [`restrict`] does.
pub(super) fn bind(src: &Path, dest: &Path, access: Access) -> Result<(), Failure> {
    let what = || format!("cannot bind {} at {}", src.display(), dest.display());
    let meta = std::fs::metadata(src).map_err(Failure::context(what()))?;
    let kind = if meta.is_dir() {
        Kind::Folder
    } else {
        Kind::File
    };
    mount_point(dest, kind).map_err(Failure::context(what()))?;
    rec_bind(src, dest).map_err(Failure::context(what()))?;
    restrict(dest, access)
}

/// Binds `src` (with everything mounted below it) at folder `dest`, creating it, keeping
/// every flag the mounts have.
pub(super) fn bind_as_is(src: &Path, dest: &Path) -> Result<(), Failure> {
    let what = || format!("cannot bind {} at {}", src.display(), dest.display());
    std::fs::create_dir_all(dest).map_err(Failure::context(what()))?;
    rec_bind(src, dest).map_err(Failure::context(what()))
}

/// Binds `src` with everything mounted below it at the existing `dest`.
pub(super) fn rec_bind(src: &Path, dest: &Path) -> nix::Result<()> {
    mount(
        Some(src),
        dest,
        None::<&str>,
        MsFlags::MS_BIND | MsFlags::MS_REC,
        None::<&str>,
    )
}

/// Makes every mount of this (new) mount namespace private: nothing done here reaches the
/// namespace it was copied from.
pub(super) fn make_private() -> Result<(), Failure> {
    mount(
        None::<&str>,
        "/",
        None::<&str>,
        MsFlags::MS_REC | MsFlags::MS_PRIVATE,
        None::<&str>,
    )
    .map_err(Failure::context("cannot make the mounts private"))
}

/// Remounts the mount at `dest` (alone) `nosuid`, `nodev`, and
/// read-only under [`Access::ReadOnly`], keeping the flags it has: in a user namespace the
/// kernel refuses to clear a flag the mount's owner set (`nosuid`, `noexec`, `relatime`…).
pub(super) fn restrict(dest: &Path, access: Access) -> Result<(), Failure> {
    let what = || format!("cannot remount {}", dest.display());
    let mut flags = MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_NOSUID;
    flags |= current_flags(dest).map_err(Failure::context(what()))?;
    flags |= MsFlags::MS_NODEV;
    if access == Access::ReadOnly {
        flags |= MsFlags::MS_RDONLY;
    }
    mount(None::<&str>, dest, None::<&str>, flags, None::<&str>).map_err(Failure::context(what()))
}

/// `ST_RELATIME` (Linux's value, 4096): the libc crate names it for glibc only, and rein's
/// release builds link musl.
const ST_RELATIME: FsFlags = FsFlags::from_bits_retain(4096);

/// The flags of the mount at `path`, as `mount` takes them.
fn current_flags(path: &Path) -> nix::Result<MsFlags> {
    let have = statvfs(path)?.flags();
    let pairs = [
        (FsFlags::ST_RDONLY, MsFlags::MS_RDONLY),
        (FsFlags::ST_NOSUID, MsFlags::MS_NOSUID),
        (FsFlags::ST_NODEV, MsFlags::MS_NODEV),
        (FsFlags::ST_NOEXEC, MsFlags::MS_NOEXEC),
        (FsFlags::ST_SYNCHRONOUS, MsFlags::MS_SYNCHRONOUS),
        (FsFlags::ST_MANDLOCK, MsFlags::MS_MANDLOCK),
        (FsFlags::ST_NOATIME, MsFlags::MS_NOATIME),
        (FsFlags::ST_NODIRATIME, MsFlags::MS_NODIRATIME),
        (ST_RELATIME, MsFlags::MS_RELATIME),
    ];
    let mut flags = MsFlags::empty();
    for (st, ms) in pairs {
        if have.contains(st) {
            flags |= ms;
        }
    }
    // A remount without an atime flag means `relatime`, which a `strictatime` mount refuses.
    if !have.intersects(FsFlags::ST_NOATIME | ST_RELATIME) {
        flags |= MsFlags::MS_STRICTATIME;
    }
    Ok(flags)
}

/// Mounts an empty tmpfs at `dest` (created when missing) with mount `options`.
pub(super) fn tmpfs(dest: &Path, options: &str) -> Result<(), Failure> {
    let what = || format!("cannot mount a tmpfs at {}", dest.display());
    std::fs::create_dir_all(dest).map_err(Failure::context(what()))?;
    mount(
        Some("tmpfs"),
        dest,
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
        Some(options),
    )
    .map_err(Failure::context(what()))
}

/// Makes `dest` a folder or an empty file (with its parents) unless something is there.
fn mount_point(dest: &Path, kind: Kind) -> std::io::Result<()> {
    match kind {
        Kind::Folder => std::fs::create_dir_all(dest),
        Kind::File => {
            if let Some(parent) = dest.parent() {
                std::fs::create_dir_all(parent)?;
            }
            if dest.symlink_metadata().is_ok() {
                return Ok(());
            }
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(dest)
            {
                Err(err) if err.kind() != std::io::ErrorKind::AlreadyExists => Err(err),
                _ => Ok(()),
            }
        }
    }
}

/// The mount points `/proc/self/mountinfo` lists, in its order (the fifth field, with the
/// kernel's octal escapes of space, tab, newline and backslash undone).
pub(super) fn mount_points(mountinfo: &str) -> Vec<PathBuf> {
    mountinfo
        .lines()
        .filter_map(|line| line.split(' ').nth(4))
        .map(unescape)
        .collect()
}

fn unescape(field: &str) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|digits| bytes[i] == b'\\' && digits.iter().all(|d| (b'0'..=b'7').contains(d)))
            .map(|d| (d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
        match octal {
            Some(byte) => {
                out.push(byte);
                i += 4;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    PathBuf::from(std::ffi::OsString::from_vec(out))
}

/// The text of file `path` under folder `dir` (our `/proc`, once the view is the root).
pub(super) fn read_at(dir: &File, path: &str) -> std::io::Result<String> {
    let fd = openat(dir, path, OFlag::O_RDONLY | OFlag::O_CLOEXEC, Mode::empty())?;
    let mut text = String::new();
    File::from(fd).read_to_string(&mut text)?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mount_points_are_the_fifth_field_unescaped() {
        let text = "22 1 0:21 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n\
                    40 22 0:30 / /newroot/my\\040dir rw - tmpfs tmpfs rw\n\
                    41 22 0:31 / /newroot/back\\134slash ro - tmpfs tmpfs rw\n";
        assert_eq!(
            mount_points(text),
            vec![
                PathBuf::from("/"),
                PathBuf::from("/newroot/my dir"),
                PathBuf::from("/newroot/back\\slash"),
            ]
        );
    }
}
