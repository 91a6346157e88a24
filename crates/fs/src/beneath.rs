//! Opening files beneath a directory through descriptors, so that what a tool opens is what the
//! guard checked.
//!
//! The guard resolves a path by name. Another process may then swap a folder or file on that
//! path for a symlink leading out (`renameat2` with `RENAME_EXCHANGE`), and a second open by
//! name would follow it. Here every open starts from a directory descriptor and follows no
//! symlink: `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` where the kernel has it
//! (Linux 5.6+), otherwise one `openat(O_NOFOLLOW)` per component. The guard has already
//! resolved the symlinks inside the workspace, so the paths given here contain none; one that
//! appears in the meantime makes the open fail ([`changed`]) instead of escaping. Files are
//! then read, created, renamed and removed relative to the folder's descriptor.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::path::{Component, Path};

use nix::errno::Errno;
use nix::fcntl::{AT_FDCWD, AtFlags, OFlag};
use nix::sys::stat::{FileStat, Mode, SFlag};

/// How a directory descriptor is opened: only for walking (`O_PATH` needs no read permission).
#[cfg(target_os = "linux")]
const DIR_FLAGS: OFlag = OFlag::O_PATH
    .union(OFlag::O_DIRECTORY)
    .union(OFlag::O_CLOEXEC);
#[cfg(not(target_os = "linux"))]
const DIR_FLAGS: OFlag = OFlag::O_RDONLY
    .union(OFlag::O_DIRECTORY)
    .union(OFlag::O_CLOEXEC);

/// How a path below a directory is walked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walk {
    /// `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`; falls back to
    /// [`Walk::Components`] when the kernel (or a seccomp filter) refuses the call.
    Kernel,
    /// `openat(O_NOFOLLOW | O_DIRECTORY)` for one component after another.
    Components,
}

/// The error for a symlink met where the guard saw none: the path changed after it was checked.
pub fn changed() -> io::Error {
    io::Error::other(Changed)
}

/// Whether `error` is [`changed`]'s: a symlink stood on the way.
pub fn is_changed(error: &io::Error) -> bool {
    error.get_ref().is_some_and(|inner| inner.is::<Changed>())
}

/// A symlink met on the way; see [`changed`].
#[derive(Debug)]
struct Changed;

impl std::fmt::Display for Changed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            "the path changed while it was being opened: a symlink now stands where the \
             workspace guard saw a file or folder, and it is not followed (it may lead outside); \
             nothing was read or written",
        )
    }
}

impl std::error::Error for Changed {}

/// An open directory, the starting point of every open below it.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
}

impl Dir {
    /// Opens the absolute, canonical directory `path` from `/` without following any symlink.
    pub fn open_canonical(path: &Path) -> io::Result<Self> {
        let rel = path
            .strip_prefix("/")
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "not an absolute path"))?;
        let slash = nix::fcntl::open("/", DIR_FLAGS, Mode::empty())?;
        Self { fd: slash }.dir(rel)
    }

    /// Opens the directory `path` by name, following symlinks: for rein's own files, which no
    /// guard checks.
    pub fn open_following(path: &Path) -> io::Result<Self> {
        let fd = nix::fcntl::openat(AT_FDCWD, path, DIR_FLAGS, Mode::empty())?;
        Ok(Self { fd })
    }

    /// The directory `rel` (plain names only; empty for this one) below this one, reached
    /// without following a symlink.
    pub fn dir(&self, rel: &Path) -> io::Result<Self> {
        self.dir_by(rel, Walk::Kernel)
    }

    /// [`Dir::dir`], walking as `walk` says.
    pub fn dir_by(&self, rel: &Path, walk: Walk) -> io::Result<Self> {
        let names = plain_names(rel)?;
        if names.is_empty() {
            return self.reopen();
        }
        match walk {
            Walk::Kernel => match self.open_beneath(rel) {
                Some(opened) => opened.map(|fd| Self { fd }),
                None => self.dir_by(rel, Walk::Components),
            },
            Walk::Components => {
                let mut dir = self.reopen()?;
                for name in names {
                    dir = dir.child(name)?;
                }
                Ok(dir)
            }
        }
    }

    /// The directory `rel` below this one, creating the folders that are missing (like
    /// `mkdir -p`), without following a symlink.
    pub fn create_dirs(&self, rel: &Path) -> io::Result<Self> {
        let mut dir = self.reopen()?;
        for name in plain_names(rel)? {
            dir = match dir.child(name) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    match nix::sys::stat::mkdirat(&dir.fd, name, Mode::from_bits_truncate(0o777)) {
                        Ok(()) | Err(Errno::EEXIST) => {}
                        Err(e) => return Err(e.into()),
                    }
                    dir.child(name)?
                }
                other => other?,
            };
        }
        Ok(dir)
    }

    /// Opens `name` in this folder for reading, following no symlink. `.` opens the folder
    /// itself. A fifo or device is opened without blocking; the caller checks the kind.
    pub fn open_read(&self, name: &OsStr) -> io::Result<File> {
        let flags = OFlag::O_RDONLY
            | OFlag::O_NOFOLLOW
            | OFlag::O_NONBLOCK
            | OFlag::O_NOCTTY
            | OFlag::O_CLOEXEC;
        match nix::fcntl::openat(&self.fd, name, flags, Mode::empty()) {
            Ok(fd) => Ok(File::from(fd)),
            Err(Errno::ELOOP) => Err(changed()),
            Err(e) => Err(e.into()),
        }
    }

    /// Creates `name` in this folder for writing, with mode `0o600`; fails when it exists.
    pub fn create_new(&self, name: &OsStr) -> io::Result<File> {
        let flags =
            OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let fd = nix::fcntl::openat(&self.fd, name, flags, Mode::from_bits_truncate(0o600))?;
        Ok(File::from(fd))
    }

    /// What `name` in this folder is (`lstat`), `None` when nothing is there.
    pub fn entry(&self, name: &OsStr) -> io::Result<Option<FileStat>> {
        match nix::sys::stat::fstatat(&self.fd, name, AtFlags::AT_SYMLINK_NOFOLLOW) {
            Ok(stat) => Ok(Some(stat)),
            Err(Errno::ENOENT) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Renames `from` to `to`, both in this folder (replacing `to`, never writing through it).
    pub fn rename(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
        nix::fcntl::renameat(&self.fd, from, &self.fd, to)?;
        Ok(())
    }

    /// Removes the file (or symlink) `name` from this folder.
    pub fn remove_file(&self, name: &OsStr) -> io::Result<()> {
        nix::unistd::unlinkat(&self.fd, name, nix::unistd::UnlinkatFlags::NoRemoveDir)?;
        Ok(())
    }

    /// The subfolder `name`, not followed if it is a symlink.
    fn child(&self, name: &OsStr) -> io::Result<Self> {
        match nix::fcntl::openat(&self.fd, name, DIR_FLAGS | OFlag::O_NOFOLLOW, Mode::empty()) {
            Ok(fd) => Ok(Self { fd }),
            // `O_NOFOLLOW | O_DIRECTORY` on a symlink says ELOOP or, with `O_PATH`, ENOTDIR.
            Err(Errno::ELOOP) => Err(changed()),
            Err(Errno::ENOTDIR) if self.is_symlink(name) => Err(changed()),
            Err(e) => Err(e.into()),
        }
    }

    fn is_symlink(&self, name: &OsStr) -> bool {
        matches!(self.entry(name), Ok(Some(stat))
            if SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT == SFlag::S_IFLNK)
    }

    fn reopen(&self) -> io::Result<Self> {
        Ok(Self {
            fd: self.fd.try_clone()?,
        })
    }

    /// `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`; `None` when the kernel lacks it.
    #[cfg(target_os = "linux")]
    fn open_beneath(&self, rel: &Path) -> Option<io::Result<OwnedFd>> {
        use nix::fcntl::{OpenHow, ResolveFlag};
        let how = OpenHow::new().flags(DIR_FLAGS).resolve(
            ResolveFlag::RESOLVE_BENEATH
                | ResolveFlag::RESOLVE_NO_SYMLINKS
                | ResolveFlag::RESOLVE_NO_MAGICLINKS,
        );
        match nix::fcntl::openat2(&self.fd, rel, how) {
            Ok(fd) => Some(Ok(fd)),
            // No such system call, or a seccomp filter that refuses it: walk by hand.
            Err(Errno::ENOSYS | Errno::EPERM) => None,
            // A symlink on the way (ELOOP) or a step out of the folder (EXDEV).
            Err(Errno::ELOOP | Errno::EXDEV) => Some(Err(changed())),
            Err(e) => Some(Err(e.into())),
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn open_beneath(&self, _rel: &Path) -> Option<io::Result<OwnedFd>> {
        None
    }
}

/// The components of `rel`, which must all be plain names (no `/`, `.` or `..`).
fn plain_names(rel: &Path) -> io::Result<Vec<&OsStr>> {
    rel.components()
        .map(|component| match component {
            Component::Normal(name) => Ok(name),
            _ => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a plain relative path", rel.display()),
            )),
        })
        .collect()
}

/// The folder part and the name of `rel`; the name is `.` for the folder itself.
pub fn split(rel: &Path) -> (&Path, OsString) {
    match (rel.parent(), rel.file_name()) {
        (Some(parent), Some(name)) => (parent, name.to_os_string()),
        _ => (Path::new(""), OsString::from(".")),
    }
}

#[cfg(test)]
#[path = "beneath_tests.rs"]
mod tests;
