//! The folders and files rein makes, reads or writes for its own state beneath a root: a
//! repository's `.rein/worktrees`, the memory folder under the data folder, the board and
//! schedules of a workspace, an evaluation's copies, caches.
//!
//! The root is the user's choice (the workspace, the data folder) and is taken as it is, links
//! resolved. Everything below it is reached from the root's descriptor following **no**
//! symlink: a repository that ships `.rein/worktrees` as a link to an outside folder, or a
//! memory index planted as a link to a secret, makes the call fail with [`OwnPathError::Link`]
//! naming the link, instead of sending rein's work (or its next prompt) elsewhere. The same
//! walk the file tools use ([`crate::beneath`]).
//!
//! ```
//! use rein_fs::own::{OwnPathError, OwnRoot};
//! let repo = tempfile::tempdir().unwrap();
//! let outside = tempfile::tempdir().unwrap();
//! std::fs::create_dir(repo.path().join(".rein")).unwrap();
//! std::os::unix::fs::symlink(outside.path(), repo.path().join(".rein/worktrees")).unwrap();
//! let root = OwnRoot::new(repo.path()).unwrap();
//! let refused = root.create_dir(".rein/worktrees".as_ref()).unwrap_err();
//! assert!(matches!(refused, OwnPathError::Link { .. }));
//! ```

use std::ffi::OsStr;
use std::io;
use std::path::{Component, Path, PathBuf};

use nix::sys::stat::SFlag;

use crate::beneath::{self, Dir};
use crate::regular_file::{ReadRefusal, check, read_capped};

/// Why a path of rein's own state could not be used.
#[derive(Debug, thiserror::Error)]
pub enum OwnPathError {
    /// A symbolic link stands on the way (or is the path itself).
    #[error(
        "{} is a symbolic link: rein keeps its own state beneath {} and follows no link there \
         (it could lead anywhere); remove the link",
        link.display(),
        root.display()
    )]
    Link {
        /// The link found.
        link: PathBuf,
        /// The root everything had to stay beneath.
        root: PathBuf,
    },
    /// The relative path is not made of plain names (`..`, `/`).
    #[error("{} is not a plain path beneath {}", rel.display(), root.display())]
    NotPlain {
        /// The path as given.
        rel: PathBuf,
        /// The root.
        root: PathBuf,
    },
    /// A file stands where a folder must be, or the file is not a regular one, or too large.
    #[error(transparent)]
    Refused(#[from] ReadRefusal),
    /// The file system refused.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// What failed.
        source: io::Error,
    },
}

/// A root under which rein keeps state of its own.
#[derive(Debug, Clone)]
pub struct OwnRoot {
    root: PathBuf,
}

impl OwnRoot {
    /// The root `path`, its links resolved (the user chose it). It must exist.
    pub fn new(path: &Path) -> Result<Self, OwnPathError> {
        let root = std::fs::canonicalize(path).map_err(|source| OwnPathError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(Self { root })
    }

    /// The root, canonical.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Makes the folder `rel` beneath the root (and the missing folders on the way, like
    /// `mkdir -p`), following no link, and returns its path.
    pub fn create_dir(&self, rel: &Path) -> Result<PathBuf, OwnPathError> {
        let names = self.names(rel)?;
        let mut dir = self.open_root()?;
        let mut at = self.root.clone();
        for name in names {
            at.push(name);
            let next = match self.kind(&dir, name, &at)? {
                Some(Kind::Folder) => dir.dir(Path::new(name)),
                Some(Kind::Other) => return Err(self.not_folder(&at)),
                None => dir.create_dirs(Path::new(name)),
            };
            dir = next.map_err(|e| self.io_or_link(e, &at))?;
        }
        Ok(at)
    }

    /// The path of `rel` beneath the root, when no link stands on the part of it that exists
    /// (the rest may be missing): for a path rein hands to another program (git).
    pub fn check(&self, rel: &Path) -> Result<PathBuf, OwnPathError> {
        let names = self.names(rel)?;
        let mut dir = self.open_root()?;
        let mut at = self.root.clone();
        let last = names.len().saturating_sub(1);
        for (i, name) in names.iter().enumerate() {
            at.push(name);
            match self.kind(&dir, name, &at)? {
                None => return Ok(self.root.join(rel)),
                Some(Kind::Folder) if i < last => {
                    dir = dir
                        .dir(Path::new(name))
                        .map_err(|e| self.io_or_link(e, &at))?;
                }
                Some(Kind::Other) if i < last => return Err(self.not_folder(&at)),
                Some(_) => {}
            }
        }
        Ok(at)
    }

    /// The text of the regular file `rel` beneath the root, read following no link and at
    /// most `cap` bytes; `Ok(None)` when nothing is there.
    pub fn read(&self, rel: &Path, cap: u64) -> Result<Option<String>, OwnPathError> {
        let path = self.check(rel)?;
        let (folder, name) = beneath::split(rel);
        let dir = match self.open_root()?.dir(folder) {
            Ok(dir) => dir,
            Err(e) if missing(&e) => return Ok(None),
            Err(e) => return Err(self.io_or_link(e, &path)),
        };
        let file = match dir.open_read(&name) {
            Ok(file) => file,
            Err(e) if missing(&e) => return Ok(None),
            Err(e) => return Err(self.io_or_link(e, &path)),
        };
        let meta = file.metadata().map_err(|source| OwnPathError::Io {
            path: path.clone(),
            source,
        })?;
        check(&path, &meta, cap)?;
        let bytes = read_capped(file, cap, &path)?;
        String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| ReadRefusal::NotText { path }.into())
    }

    fn names<'a>(&self, rel: &'a Path) -> Result<Vec<&'a OsStr>, OwnPathError> {
        rel.components()
            .map(|component| match component {
                Component::Normal(name) => Ok(name),
                _ => Err(OwnPathError::NotPlain {
                    rel: rel.to_path_buf(),
                    root: self.root.clone(),
                }),
            })
            .collect()
    }

    fn open_root(&self) -> Result<Dir, OwnPathError> {
        Dir::open_canonical(&self.root).map_err(|source| OwnPathError::Io {
            path: self.root.clone(),
            source,
        })
    }

    fn kind(&self, dir: &Dir, name: &OsStr, at: &Path) -> Result<Option<Kind>, OwnPathError> {
        let stat = dir.entry(name).map_err(|source| OwnPathError::Io {
            path: at.to_path_buf(),
            source,
        })?;
        let Some(stat) = stat else {
            return Ok(None);
        };
        Ok(Some(
            match SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT {
                SFlag::S_IFLNK => return Err(self.link(at)),
                SFlag::S_IFDIR => Kind::Folder,
                _ => Kind::Other,
            },
        ))
    }

    fn link(&self, at: &Path) -> OwnPathError {
        OwnPathError::Link {
            link: at.to_path_buf(),
            root: self.root.clone(),
        }
    }

    fn not_folder(&self, at: &Path) -> OwnPathError {
        OwnPathError::Io {
            path: at.to_path_buf(),
            source: io::Error::new(io::ErrorKind::NotADirectory, "not a folder"),
        }
    }

    fn io_or_link(&self, e: io::Error, at: &Path) -> OwnPathError {
        if beneath::is_changed(&e) {
            return self.link(at);
        }
        OwnPathError::Io {
            path: at.to_path_buf(),
            source: e,
        }
    }
}

/// What stands at a name.
enum Kind {
    Folder,
    Other,
}

fn missing(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

#[cfg(test)]
#[path = "own_tests.rs"]
mod tests;
