//! What `rein sandbox check` says about git in a workspace: what is held still, what cannot
//! be, and whether `workspace-write` runs there.

use std::fmt;
use std::path::{Path, PathBuf};

use super::{Placeholders, Step, Unprotected};

/// Git's protection in one workspace under `workspace-write`.
#[derive(Debug, Clone)]
pub struct GitReport {
    workspace: PathBuf,
    plan: Result<Vec<Step>, Unprotected>,
}

impl GitReport {
    /// The protection `workspace` would get with `settings` (nothing is created).
    pub fn new(workspace: &Path, settings: &crate::Settings) -> Self {
        Self {
            workspace: workspace.to_path_buf(),
            plan: super::plan(workspace, settings, Placeholders::Skip),
        }
    }

    /// Why `workspace-write` refuses to run here, if it does.
    pub fn refusal(&self) -> Option<&Unprotected> {
        self.plan.as_ref().err()
    }
}

impl fmt::Display for GitReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let steps = match &self.plan {
            Ok(steps) => steps,
            Err(why) => {
                return writeln!(f, "  git: workspace-write refuses to run here: {why}");
            }
        };
        let shown = |path: &Path| match path.strip_prefix(&self.workspace) {
            Ok(rest) => rest.display().to_string(),
            Err(_) => path.display().to_string(),
        };
        let list = |pick: fn(&Step) -> bool| {
            let paths: Vec<String> = steps
                .iter()
                .filter(|s| pick(s))
                .map(|s| shown(s.path()))
                .collect();
            if paths.is_empty() {
                "(none)".to_string()
            } else {
                paths.join(", ")
            }
        };
        writeln!(
            f,
            "  git, pinned (cannot be renamed, replaced or removed): {}",
            list(|s| matches!(s, Step::Pin(_)))
        )?;
        writeln!(
            f,
            "  git, read-only (made empty first when missing): {}",
            list(|s| matches!(s, Step::ReadOnly(_)))
        )?;
        writeln!(
            f,
            "  git, not enforceable by mounts: a `commondir` written into a main .git (moved \
             aside after each call; a background command's is caught at the next call); a \
             repository nested in the workspace that .gitmodules does not name; a repository a \
             command creates in a sub-folder, which the parent's `git status` enters once a \
             command adds it to the index as a submodule"
        )
    }
}
