//! Where a path git reads lies: in the writable view (and at which path the view shows it),
//! or outside it, where the sandbox cannot change it anyway.

use std::path::{Path, PathBuf};

use super::Unprotected;
use crate::view::lexically_clean;

/// Where a path lies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Located {
    /// In the writable view, at this path of the view.
    Writable(PathBuf),
    /// Outside it (read-only or not shown).
    Outside,
}

/// The workspace and the writable roots, each as the view shows it (the path it was bound at)
/// and as it really is (canonical).
pub(crate) struct WritableView {
    roots: Vec<(PathBuf, PathBuf)>,
}

impl WritableView {
    pub(crate) fn new(workspace: &Path, writable_roots: &[PathBuf]) -> Self {
        let roots = std::iter::once(workspace)
            .chain(writable_roots.iter().map(PathBuf::as_path))
            .filter_map(|root| Some((lexically_clean(root), root.canonicalize().ok()?)))
            .collect();
        Self { roots }
    }

    /// Where `path` (absolute, existing or not) lies. A path written inside the view that
    /// really leads elsewhere passes through a symlink a command could swap: refused.
    pub(crate) fn locate(&self, path: &Path) -> Result<Located, Unprotected> {
        let path = lexically_clean(path);
        let real = canonical(&path);
        if let Some((shown, actual)) = self.holding(&path, |(shown, _)| shown) {
            let rest = path.strip_prefix(shown).unwrap_or(&path);
            if real != actual.join(rest) {
                return Err(Unprotected::Symlink(path));
            }
            return Ok(Located::Writable(path));
        }
        // Reached from outside through a link the sandbox cannot change: bound where the
        // view shows the real path.
        Ok(match self.holding(&real, |(_, actual)| actual) {
            Some((shown, actual)) => {
                Located::Writable(shown.join(real.strip_prefix(actual).unwrap_or(&real)))
            }
            None => Located::Outside,
        })
    }

    /// The root (as the view shows it) holding `path`, a path of the view.
    pub(crate) fn root_of(&self, path: &Path) -> Option<PathBuf> {
        self.holding(path, |(shown, _)| shown)
            .map(|(shown, _)| shown.clone())
    }

    /// The deepest root whose `side` holds `path`.
    fn holding(
        &self,
        path: &Path,
        side: impl Fn(&(PathBuf, PathBuf)) -> &PathBuf,
    ) -> Option<&(PathBuf, PathBuf)> {
        self.roots
            .iter()
            .filter(|root| path.starts_with(side(root)))
            .max_by_key(|root| side(root).components().count())
    }
}

/// `path` with its deepest existing ancestor made canonical and the rest appended.
fn canonical(path: &Path) -> PathBuf {
    let mut missing = Vec::new();
    let mut head = path;
    loop {
        if let Ok(real) = head.canonicalize() {
            return missing.iter().rev().fold(real, |acc, part| acc.join(part));
        }
        match (head.parent(), head.file_name()) {
            (Some(parent), Some(name)) => {
                missing.push(name.to_os_string());
                head = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}
