//! Paths put together without asking the file system.

use std::path::{Path, PathBuf};

/// `base.join(path)`, allocated once: [`Path::join`] copies `base` at its exact size and
/// then grows the copy for `path`.
pub fn joined(base: &Path, path: impl AsRef<Path>) -> PathBuf {
    let path = path.as_ref();
    let mut out = PathBuf::with_capacity(base.as_os_str().len() + 1 + path.as_os_str().len());
    out.push(base);
    out.push(path);
    out
}
