//! The workspace guard: every path a tool touches is resolved here and refused when it leaves
//! the workspace.
//!
//! Resolution is physical, not lexical: the longest existing ancestor of the requested path is
//! canonicalized (so `..` and symlinks are resolved by the kernel), and only the part that does
//! not exist yet is normalised by hand — it contains no symlinks, because it does not exist.
//! A dangling symlink is followed to where it points, so writing through it cannot escape.

use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

/// How many dangling symlinks one resolution may follow before giving up (like `ELOOP`).
const MAX_LINK_HOPS: usize = 40;

/// Why a path was refused or could not be resolved. Messages are written for the model.
#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    /// The workspace root itself cannot be used.
    #[error("cannot use {} as the workspace: {source}", root.display())]
    Root {
        /// The root as given.
        root: PathBuf,
        /// Why it failed (missing, permission denied…).
        source: io::Error,
    },
    /// The workspace root is not a directory.
    #[error("cannot use {} as the workspace: it is not a directory", root.display())]
    RootNotADirectory {
        /// The canonical root.
        root: PathBuf,
    },
    /// The tool was given an empty path.
    #[error("the path is empty; give a path relative to the workspace {}", root.display())]
    EmptyPath {
        /// The workspace root.
        root: PathBuf,
    },
    /// The path resolves outside the workspace.
    #[error(
        "path {path} is outside the workspace {}; only paths inside the workspace are allowed",
        root.display()
    )]
    Outside {
        /// The path as the tool was given it.
        path: String,
        /// The workspace root.
        root: PathBuf,
    },
    /// The path could not be resolved (permission denied, symlink loop…).
    #[error("cannot resolve path {path}: {source}")]
    Resolve {
        /// The path as the tool was given it.
        path: String,
        /// The underlying error.
        source: io::Error,
    },
}

/// Resolves tool paths against the workspace root and refuses anything outside it.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = std::env::temp_dir();
/// let guard = rein_tools::WorkspaceGuard::new(&dir)?;
/// assert!(guard.resolve("src/main.rs")?.starts_with(guard.root()));
/// assert!(guard.resolve("../../../../etc/passwd").is_err());
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceGuard {
    root: PathBuf,
    /// Folders outside the workspace that may be read (e.g. the session's saved outputs).
    read_roots: Vec<PathBuf>,
}

impl WorkspaceGuard {
    /// A guard for the workspace at `root`, which must be an existing directory; the root is
    /// canonicalized.
    pub fn new(root: &Path) -> Result<Self, GuardError> {
        let canonical = std::fs::canonicalize(root).map_err(|source| GuardError::Root {
            root: root.to_path_buf(),
            source,
        })?;
        if !canonical.is_dir() {
            return Err(GuardError::RootNotADirectory { root: canonical });
        }
        Ok(Self {
            root: canonical,
            read_roots: Vec::new(),
        })
    }

    /// Also allows reading (not writing) under `dir`, which is created if missing.
    pub fn with_read_root(mut self, dir: &Path) -> std::io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        self.read_roots.push(std::fs::canonicalize(dir)?);
        Ok(self)
    }

    /// Resolves a path a tool is about to read (see [`WorkspaceGuard::resolve`]); the extra
    /// read roots are allowed too.
    pub fn resolve_read(&self, path: &str) -> Result<PathBuf, GuardError> {
        match self.resolve(path) {
            Err(GuardError::Outside { path, root }) => {
                let resolved = resolve_physical(&self.root.join(&path)).map_err(|source| {
                    GuardError::Resolve {
                        path: path.clone(),
                        source,
                    }
                })?;
                if self.read_roots.iter().any(|r| resolved.starts_with(r)) {
                    Ok(resolved)
                } else {
                    Err(GuardError::Outside { path, root })
                }
            }
            other => other,
        }
    }

    /// Resolves a path a tool is about to create, change or delete (see
    /// [`WorkspaceGuard::resolve`]).
    pub fn resolve_write(&self, path: &str) -> Result<PathBuf, GuardError> {
        self.resolve(path)
    }

    /// The canonical workspace root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves `path` (relative to the root; absolute paths are allowed when they lie inside)
    /// to a canonical absolute path inside the workspace. The path need not exist.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, GuardError> {
        if path.is_empty() {
            return Err(GuardError::EmptyPath {
                root: self.root.clone(),
            });
        }
        let resolved =
            resolve_physical(&self.root.join(path)).map_err(|source| GuardError::Resolve {
                path: path.to_string(),
                source,
            })?;
        if self.contains(&resolved) {
            Ok(resolved)
        } else {
            Err(GuardError::Outside {
                path: path.to_string(),
                root: self.root.clone(),
            })
        }
    }

    /// Whether an already canonical absolute path lies inside the workspace.
    pub fn contains(&self, canonical: &Path) -> bool {
        canonical.starts_with(&self.root)
    }

    /// `path` as the model should see it: relative to the root when inside (`.` for the root
    /// itself), otherwise as given.
    pub fn display(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }
}

/// Canonicalizes the longest existing ancestor of the absolute `path` and appends the rest,
/// normalised. Follows dangling symlinks.
fn resolve_physical(path: &Path) -> io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_LINK_HOPS {
        let mut existing = path.clone();
        // The components that do not exist, innermost last once reversed.
        let mut rest: Vec<OsString> = Vec::new();
        loop {
            match std::fs::canonicalize(&existing) {
                Ok(base) => return Ok(append_normalised(base, rest.iter().rev())),
                Err(e) if is_missing(&e) => {}
                Err(e) => return Err(e),
            }
            if let Ok(target) = std::fs::read_link(&existing) {
                // A dangling symlink: resolve what it points to, then the rest below it.
                let parent = existing.parent().map(Path::to_path_buf).unwrap_or_default();
                let mut next = parent.join(target);
                for name in rest.iter().rev() {
                    next.push(name);
                }
                path = next;
                break;
            }
            match existing.components().next_back() {
                Some(Component::Normal(name)) => rest.push(name.to_os_string()),
                Some(Component::ParentDir) => rest.push(OsString::from("..")),
                _ => return Err(io::Error::from(io::ErrorKind::NotFound)),
            }
            existing.pop();
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// Appends not-yet-existing components to a canonical base, folding `.` and `..` lexically.
fn append_normalised<'a>(mut base: PathBuf, rest: impl Iterator<Item = &'a OsString>) -> PathBuf {
    for name in rest {
        match Path::new(name).components().next() {
            Some(Component::ParentDir) => {
                base.pop();
            }
            Some(Component::CurDir) | None => {}
            Some(_) => base.push(name),
        }
    }
    base
}

/// Errors that mean "this component does not exist (as a directory)".
fn is_missing(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

#[cfg(test)]
#[path = "guard_tests.rs"]
mod tests;
