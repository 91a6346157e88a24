//! What an agent is built from: its workspace guard and its session id.

use std::path::{Path, PathBuf};

use rein_tools::{SensitivePaths, WorkspaceGuard};

use crate::EngineError;
use crate::permissions::Policy;

/// The guard for `workspace`: the built-in sensitive list, extended with `sensitive_paths`
/// and with the path globs of the policy's `Read` deny rules. `rein tool` uses the same guard.
pub fn workspace_guard(
    workspace: &Path,
    sensitive_paths: &[String],
    policy: &Policy,
) -> Result<WorkspaceGuard, EngineError> {
    let problem = |message: String| EngineError::Workspace {
        path: workspace.to_path_buf(),
        message,
    };
    let guard = WorkspaceGuard::new(workspace).map_err(|e| problem(e.to_string()))?;
    if guard.root() == Path::new("/") {
        return Err(problem(
            "the file system root cannot be a workspace: every file on the machine would be \
             in reach; start rein in a project folder"
                .to_string(),
        ));
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let patterns = rein_tools::DEFAULT_SENSITIVE
        .iter()
        .copied()
        .chain(sensitive_paths.iter().map(String::as_str));
    let base = SensitivePaths::new(patterns, home.as_deref()).map_err(problem)?;
    let sensitive = policy.guard_list(base).map_err(problem)?;
    Ok(guard.with_sensitive(sensitive))
}

pub(super) fn new_session_id() -> String {
    let now = chrono::Local::now();
    let nanos = now.timestamp_subsec_nanos();
    format!(
        "{}-{:04x}{:04x}",
        now.format("%Y%m%dT%H%M%S"),
        nanos & 0xffff,
        std::process::id() & 0xffff
    )
}
