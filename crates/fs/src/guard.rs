//! The workspace guard: every path a tool touches is resolved here and refused when it leaves
//! the workspace.
//!
//! Resolution is physical, not lexical: the longest existing ancestor of the requested path is
//! canonicalized (so `..` and symlinks are resolved by the kernel), and only the part that does
//! not exist yet is normalised by hand — it contains no symlinks, because it does not exist.
//! A dangling symlink is followed to where it points, so writing through it cannot escape.
//! Tools then open the answer through descriptors, following no symlink ([`crate::checked`]).

mod added;

use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::checked::Access;
use crate::hidden_tree::HiddenTree;
use crate::lstats::{Entry, Lstats};
use crate::sensitive::{SensitivePaths, Spelling, home_dir};

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
    /// The path is a credential or secret file.
    #[error(
        "path {path} is off limits (it matches {pattern}): rein does not read or write \
         credentials, secrets or paths the user has denied"
    )]
    Sensitive {
        /// The path as the tool was given it.
        path: String,
        /// The sensitive-path pattern it matches.
        pattern: String,
    },
    /// The path text itself is unusable.
    #[error("invalid path {path:?}: {reason}")]
    Invalid {
        /// The path as given (cut to 200 characters).
        path: String,
        /// What is wrong with it.
        reason: String,
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

/// Longest path a tool may pass, in bytes (Linux `PATH_MAX`).
const MAX_PATH_BYTES: usize = 4096;
/// Longest single path component, in bytes (`NAME_MAX`).
const MAX_NAME_BYTES: usize = 255;

/// Resolves tool paths against the workspace root and refuses anything outside it or
/// sensitive.
///
/// Every file tool calls [`WorkspaceGuard::resolve_read`] or
/// [`WorkspaceGuard::resolve_write`] before touching a path; walkers (`glob`, `grep`) check
/// each entry with [`WorkspaceGuard::sensitive`].
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = std::env::temp_dir();
/// let guard = rein_fs::WorkspaceGuard::new(&dir)?;
/// assert!(guard.resolve_write("src/main.rs")?.starts_with(guard.root()));
/// assert!(guard.resolve_read("../../../../etc/passwd").is_err());
/// assert!(guard.resolve_read(".env").is_err());
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct WorkspaceGuard {
    root: PathBuf,
    /// Folders the user added to the workspace (`--add-dir`): read and written like it.
    added: Vec<PathBuf>,
    /// Folders outside the workspace that may be read (e.g. the session's saved outputs).
    read_roots: Vec<PathBuf>,
    sensitive: Arc<SensitivePaths>,
    /// What `~` stands for (`$HOME` when the guard was made).
    home: Option<PathBuf>,
    /// The workspace's folders as last read for hiding what this guard refuses from
    /// sandboxed commands, shared by every clone (a new list starts a new tree).
    hidden_tree: Arc<HiddenTree>,
}

impl WorkspaceGuard {
    /// A guard for the workspace at `root`, which must be an existing directory; the root is
    /// canonicalized. Sensitive paths are the default list ([`crate::DEFAULT_SENSITIVE`]).
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
            added: Vec::new(),
            read_roots: Vec::new(),
            sensitive: Arc::new(SensitivePaths::default()),
            home: home_dir(),
            hidden_tree: Arc::default(),
        })
    }

    /// Expands `~` to `home` instead of `$HOME` (give the sensitive list the same home).
    pub fn with_home(mut self, home: &Path) -> Self {
        self.home = Some(home.to_path_buf());
        self
    }

    /// What `~` stands for, if anything.
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// Also allows reading (not writing) under the absolute `dir`, which need not exist yet.
    pub fn with_read_root(mut self, dir: &Path) -> std::io::Result<Self> {
        self.read_roots.push(resolve_physical(dir)?);
        self.hidden_tree = Arc::default();
        Ok(self)
    }

    /// The sensitive-path list in force.
    pub fn sensitive_paths(&self) -> &SensitivePaths {
        &self.sensitive
    }

    /// The folders kept for hiding what this guard refuses from sandboxed commands.
    pub fn hidden_tree(&self) -> &HiddenTree {
        &self.hidden_tree
    }

    /// The sensitive-path list in force, shared.
    pub(crate) fn sensitive_shared(&self) -> Arc<SensitivePaths> {
        Arc::clone(&self.sensitive)
    }

    /// The root a resolved path lies in: the workspace, or (for [`Access::Read`]) an extra read root.
    pub(crate) fn root_holding(&self, resolved: &Path, access: Access) -> Option<&Path> {
        if self.contains(resolved) {
            return Some(&self.root);
        }
        if let Some(dir) = self.added.iter().find(|d| resolved.starts_with(d)) {
            return Some(dir);
        }
        let read_roots = match access {
            Access::Read => self.read_roots.as_slice(),
            Access::Write | Access::Create => &[],
        };
        read_roots
            .iter()
            .find(|r| resolved.starts_with(r))
            .map(PathBuf::as_path)
    }

    /// Replaces the sensitive-path list.
    pub fn with_sensitive(mut self, sensitive: SensitivePaths) -> Self {
        self.sensitive = Arc::new(sensitive);
        // The kept tree holds what the old list refused.
        self.hidden_tree = Arc::default();
        self
    }

    /// The canonical workspace root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves a path a tool is about to read: relative to the root (absolute paths and `~`
    /// are allowed when they lead inside), `..` and symlinks resolved by the kernel, then
    /// refused unless it lies in the workspace or an extra read root and is not sensitive.
    /// The path need not exist.
    pub fn resolve_read(&self, path: &str) -> Result<PathBuf, GuardError> {
        self.resolve_read_with(path, &Lstats::default())
    }

    /// [`WorkspaceGuard::resolve_read`], asking `lstats` about the file system.
    pub fn resolve_read_with(&self, path: &str, lstats: &Lstats) -> Result<PathBuf, GuardError> {
        let resolved = self.locate(path, lstats)?;
        let readable =
            self.in_workspace(&resolved) || self.read_roots.iter().any(|r| resolved.starts_with(r));
        if !readable {
            return Err(self.outside(path));
        }
        self.refuse_sensitive(path, resolved, lstats)
    }

    /// Resolves a path a tool is about to create, change or delete, like
    /// [`WorkspaceGuard::resolve_read`] but only the workspace itself is allowed. A symlink is
    /// followed, so writing through one that points outside is refused.
    pub fn resolve_write(&self, path: &str) -> Result<PathBuf, GuardError> {
        let lstats = Lstats::default();
        let resolved = self.locate(path, &lstats)?;
        if !self.in_workspace(&resolved) {
            return Err(self.outside(path));
        }
        self.refuse_sensitive(path, resolved, &lstats)
    }

    /// Resolves a path like [`WorkspaceGuard::resolve_read`] (`~`, `..`, symlinks) without
    /// judging it: for checks that need to know where a path really leads, wherever that is.
    pub fn locate_anywhere(&self, path: &str) -> Result<PathBuf, GuardError> {
        self.locate(path, &Lstats::default())
    }

    /// [`WorkspaceGuard::locate_anywhere`], asking `lstats` about the file system.
    pub fn locate_anywhere_with(&self, path: &str, lstats: &Lstats) -> Result<PathBuf, GuardError> {
        self.locate(path, lstats)
    }

    /// Whether an already canonical absolute path lies inside the workspace.
    pub fn contains(&self, canonical: &Path) -> bool {
        crate::sensitive::starts_with(canonical, Spelling::of(canonical), &self.root)
    }

    /// The sensitive-path pattern a canonical path matches, if any.
    pub fn sensitive(&self, canonical: &Path) -> Option<&str> {
        let granted = self
            .read_roots
            .iter()
            .find(|r| canonical.starts_with(r))
            .map(PathBuf::as_path);
        self.sensitive
            .matching_within(canonical, &self.root, granted)
    }

    /// [`WorkspaceGuard::sensitive`], or for a file with several names, the pattern of a
    /// sensitive folder holding another of its names (a hard link to a secret): what the
    /// permission policy refuses in every mode, for any tool or shell line that names it.
    pub fn off_limits(&self, canonical: &Path) -> Option<&str> {
        self.sensitive(canonical).or_else(|| {
            let several_names = canonical != self.root
                && matches!(Lstats::default().get(canonical), Entry::File { nlink } if nlink > 1);
            several_names
                .then(|| self.sensitive.hard_linked(canonical))
                .flatten()
        })
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

    /// Checks the text of `path`, expands `~` and resolves it physically.
    fn locate(&self, path: &str, lstats: &Lstats) -> Result<PathBuf, GuardError> {
        if let Some(located) = lstats.located(path) {
            return Ok(located);
        }
        let located = self.locate_afresh(path, lstats)?;
        lstats.remember_located(path, &located);
        Ok(located)
    }

    fn locate_afresh(&self, path: &str, lstats: &Lstats) -> Result<PathBuf, GuardError> {
        let invalid = |reason: &str| GuardError::Invalid {
            path: path
                .chars()
                .take(200)
                .collect::<String>()
                .replace('\0', "\\0"),
            reason: reason.to_string(),
        };
        if path.is_empty() {
            return Err(GuardError::EmptyPath {
                root: self.root.clone(),
            });
        }
        if path.contains('\0') {
            return Err(invalid("it contains a NUL byte"));
        }
        if path.len() > MAX_PATH_BYTES {
            return Err(invalid("it is longer than 4096 bytes"));
        }
        // A path no longer than a name cannot hold a longer name.
        if path.len() > MAX_NAME_BYTES && path.split('/').any(|name| name.len() > MAX_NAME_BYTES) {
            return Err(invalid("a component is longer than 255 bytes"));
        }
        // An absolute path is used as it is (joining would only copy it).
        let joined: std::borrow::Cow<'_, Path> = match (path, path.strip_prefix("~/")) {
            ("~", _) => self.home.clone().map(Into::into),
            (_, Some(rest)) => self.home.as_ref().map(|home| home.join(rest).into()),
            _ if path.starts_with('/') => Some(Path::new(path).into()),
            _ => Some(crate::path::joined(&self.root, path).into()),
        }
        .ok_or_else(|| invalid("~ cannot be expanded: HOME is not set"))?;
        if let Some(resolved) = self.inside_without_links(&joined, lstats) {
            return Ok(resolved);
        }
        resolve_physical(&joined).map_err(|source| GuardError::Resolve {
            path: path.to_string(),
            source,
        })
    }

    /// The physical form of the absolute `joined` when it lies lexically below the (canonical)
    /// root, climbs nowhere and no existing component below the root is a symlink: then the
    /// kernel would open exactly that path, found with one `lstat` per component below the
    /// root (shared through `lstats`) instead of a `realpath` from `/`. `None` when it must be
    /// resolved the slow way.
    fn inside_without_links(&self, joined: &Path, lstats: &Lstats) -> Option<PathBuf> {
        let below = crate::sensitive::strip_prefix(joined, Spelling::of(joined), &self.root)?;
        let mut resolved = PathBuf::with_capacity(joined.as_os_str().len());
        resolved.push(&self.root);
        let mut exists = true;
        for component in below.components() {
            // `link/..` leaves the folder a link points to: only the kernel knows where that is.
            let Component::Normal(name) = component else {
                return None;
            };
            resolved.push(name);
            if exists {
                match lstats.get(&resolved) {
                    Entry::Symlink | Entry::Unreadable => return None,
                    Entry::Missing => exists = false,
                    Entry::Dir | Entry::File { .. } | Entry::Other => {}
                }
            }
        }
        Some(resolved)
    }

    fn refuse_sensitive(
        &self,
        path: &str,
        resolved: PathBuf,
        lstats: &Lstats,
    ) -> Result<PathBuf, GuardError> {
        let found = self.sensitive(&resolved).or_else(|| {
            // Only a file with several names can be a hard link to a secret.
            let several_names = resolved.as_os_str() != self.root.as_os_str()
                && matches!(lstats.get(&resolved), Entry::File { nlink } if nlink > 1);
            several_names
                .then(|| self.sensitive.hard_linked(&resolved))
                .flatten()
        });
        match found {
            Some(pattern) => Err(GuardError::Sensitive {
                path: path.to_string(),
                pattern: pattern.to_string(),
            }),
            None => Ok(resolved),
        }
    }

    fn outside(&self, path: &str) -> GuardError {
        GuardError::Outside {
            path: path.to_string(),
            root: self.root.clone(),
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
