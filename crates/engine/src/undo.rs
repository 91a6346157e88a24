//! Taking back what file tools changed: the pieces `rein undo` and the TUI's `/rewind` share
//! (where a session's checkpoints are, what a restore says, what the model is told).

use std::path::{Path, PathBuf};

use rein_checkpoint::{Checkpoints, Restore, RestoreAction, RestoreOutcome, UndoPlan};

pub use crate::session::{CHECKPOINTS_FOLDER, TASKS_FOLDER};

/// The folder of session `id`'s checkpoints in workspace `workspace` under `root`
/// (`<data>/checkpoints`).
pub fn checkpoints_dir(root: &Path, workspace: &Path, id: &str) -> PathBuf {
    root.join(crate::session::workspace_key(workspace)).join(id)
}

/// `path` relative to `workspace` when it is inside, for people and the model.
pub fn shown(path: &Path, workspace: &Path) -> String {
    path.strip_prefix(workspace)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The files a restore changed, relative to `workspace`.
pub fn changed_files(outcomes: &[RestoreOutcome], workspace: &Path) -> Vec<String> {
    outcomes
        .iter()
        .filter_map(|o| match o {
            RestoreOutcome::Restored(path) | RestoreOutcome::Deleted(path) => {
                Some(shown(path, workspace))
            }
            RestoreOutcome::ChangedSince(..)
            | RestoreOutcome::Kept(..)
            | RestoreOutcome::Failed(..) => None,
        })
        .collect()
}

/// One line per file of `plan`: what an undo would do (`restore`, `recreate`, `delete`, with
/// the lines it adds and removes) or why it leaves the file alone.
pub fn plan_lines(
    checkpoints: &Checkpoints,
    plan: &UndoPlan,
    workspace: &Path,
    restore: Restore,
) -> Vec<String> {
    plan.files
        .iter()
        .filter_map(|f| {
            let path = shown(&f.path, workspace);
            let verb = match &f.action {
                RestoreAction::Unchanged => return None,
                RestoreAction::Unkept(why) => return Some(format!("cannot restore {path}: {why}")),
                _ if f.changed_since && restore == Restore::KeepChanged => {
                    return Some(format!(
                        "keep     {path}: changed since rein wrote it (--force restores it)"
                    ));
                }
                RestoreAction::Rewrite => "restore ",
                RestoreAction::Recreate => "recreate",
                RestoreAction::Delete => "delete  ",
            };
            let stat = checkpoints
                .diff_stat(f)
                .map_or(String::new(), |(added, removed)| {
                    format!("  +{added} -{removed}")
                });
            let note = if f.changed_since {
                " (changed since rein wrote it)"
            } else {
                ""
            };
            Some(format!("{verb} {path}{stat}{note}"))
        })
        .collect()
}

/// One line per file a restore touched or kept.
pub fn outcome_lines(outcomes: &[RestoreOutcome], workspace: &Path) -> Vec<String> {
    outcomes
        .iter()
        .map(|o| match o {
            RestoreOutcome::Restored(path) => format!("restored {}", shown(path, workspace)),
            RestoreOutcome::Deleted(path) => format!("deleted  {}", shown(path, workspace)),
            RestoreOutcome::ChangedSince(path) => {
                format!(
                    "kept     {}: changed since rein wrote it",
                    shown(path, workspace)
                )
            }
            RestoreOutcome::Kept(path, why) => {
                format!("kept     {}: {why}", shown(path, workspace))
            }
            RestoreOutcome::Failed(path, why) => {
                format!("failed   {}: {why}", shown(path, workspace))
            }
        })
        .collect()
}

/// What a rewind of the code would do, for people.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RewindPreview {
    /// One line per file ([`plan_lines`]).
    pub lines: Vec<String>,
    /// Files changed since rein wrote them (kept unless forced).
    pub changed_since: usize,
    /// What the plan cannot cover.
    pub notes: Vec<String>,
}

impl RewindPreview {
    /// The preview of `plan`.
    pub fn of(checkpoints: &Checkpoints, plan: &UndoPlan, workspace: &Path) -> Self {
        Self {
            lines: plan_lines(checkpoints, plan, workspace, Restore::KeepChanged),
            changed_since: plan
                .files
                .iter()
                .filter(|f| f.changed_since && f.action != RestoreAction::Unchanged)
                .count(),
            notes: plan.notes.clone(),
        }
    }
}

/// What the model is told in its next request after files were restored.
pub fn reminder(restored: &[(Vec<u32>, Vec<String>)]) -> Option<String> {
    let mut files: Vec<&str> = restored
        .iter()
        .flat_map(|(_, files)| files.iter().map(String::as_str))
        .collect();
    files.sort_unstable();
    files.dedup();
    if files.is_empty() {
        return None;
    }
    Some(format!(
        "<system-reminder>The user took back changes made earlier in this session: these \
         files were put back as they were before those changes (a file rein had created was \
         removed): {}. Earlier tool results no longer show their contents: read a file again \
         before you change it.</system-reminder>",
        files.join(", ")
    ))
}
