//! Where a workspace's durable scheduled jobs are kept, as trust decides.

use std::path::Path;

use crate::config::trust::JOBS_IN_WORKSPACE;

/// Whose folder keeps a workspace's durable jobs: its own (trusted) or rein's data folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum JobsKept {
    /// `.rein/scheduled_tasks.json` in the workspace.
    InWorkspace,
    /// A file in rein's data folder keyed by the workspace.
    InData,
}

/// Where the workspace's durable scheduled jobs are kept: its `.rein/scheduled_tasks.json`
/// when it is trusted (a workspace file that makes rein run prompts is covered by trust, like
/// hooks), else a file in rein's data folder keyed by the workspace, where the lock of the
/// process running them always is.
pub(super) fn schedule_place(
    data: &Path,
    workspace: &Path,
    kept: JobsKept,
) -> rein_schedule::DurablePlace {
    let canonical = std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf());
    let own = data
        .join(rein_tools::schedule::SCHEDULES_FOLDER)
        .join(rein_engine::session::workspace_key(&canonical));
    let (file, root, wrap) = match kept {
        JobsKept::InWorkspace => {
            // rein's own change of a file trust covers keeps the trust it had.
            let workspace = canonical.clone();
            let wrap: rein_schedule::SaveWrapper = std::sync::Arc::new(move |write| {
                // A workspace without files of its own counts as trusted until it has some.
                let was_trusted = crate::edit_files::trusted(&workspace)
                    || !crate::config::trust::has_workspace_config(&workspace);
                write()?;
                if was_trusted {
                    crate::edit_files::retrust(&workspace)
                        .map_err(|e| std::io::Error::other(e.message))?;
                }
                Ok(())
            });
            (
                canonical.join(JOBS_IN_WORKSPACE),
                canonical.clone(),
                Some(wrap),
            )
        }
        JobsKept::InData => (own.join(rein_tools::schedule::JOBS_FILE), own.clone(), None),
    };
    rein_schedule::DurablePlace {
        file,
        root,
        lock: own.join("owner.lock"),
        wrap,
    }
}
