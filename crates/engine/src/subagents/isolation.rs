//! Agents in worktrees: a subagent or teammate with `isolation: worktree` gets a git
//! worktree of its own on a new branch and a shell of its own; when its work ends an
//! unchanged worktree is removed, a changed one kept and named in its result.

use rein_tools::ToolRegistry;

use super::Isolation;
use crate::agent::ParentView;
use crate::worktree::{self, BaseRef, Worktree};

/// Why an agent could not be given its worktree.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PlaceError {
    /// Git refused (not a repository, a name taken…).
    #[error(transparent)]
    Worktree(#[from] worktree::WorktreeError),
    /// The worktree is no workspace (the guard refused it).
    #[error(transparent)]
    Workspace(#[from] crate::EngineError),
}

/// The parent as the agent sees it, and its worktree when it has one.
pub(crate) fn place(
    parent: &ParentView,
    isolation: Isolation,
    name: &str,
    base: BaseRef,
) -> Result<(ParentView, Option<Worktree>), PlaceError> {
    if isolation == Isolation::Shared {
        return Ok((parent.clone(), None));
    }
    let root = parent.workspace();
    let name = match worktree::valid_name(name) {
        true => name.to_string(),
        false => worktree::fresh_name("agent"),
    };
    let tree = worktree::create(&root, &name, base)?;
    match parent.in_worktree(&tree.path) {
        Ok(view) => Ok((view, Some(tree))),
        Err(error) => {
            let _ = worktree::remove(&tree, worktree::Force::Yes);
            Err(error.into())
        }
    }
}

/// A shell of its own for an agent that works apart (its `cd` is not the parent's).
pub(crate) fn own_shell(tools: &mut ToolRegistry) {
    if tools.names().iter().any(|n| n == "bash") {
        tools.register(rein_tools::typed(rein_tools::Bash::new()));
    }
}

/// Ends the agent's time in `tree`: removed when unchanged; else its work committed to the
/// worktree's branch and a note naming where it is.
pub(crate) fn leave(tree: &Worktree, agent: &str) -> Option<String> {
    if let Err(error) = worktree::commit_all(tree, &format!("rein: the work of {agent}")) {
        return Some(format!(
            "[its work is in the worktree {} on branch {}, uncommitted: {error}]",
            tree.path.display(),
            tree.branch
        ));
    }
    match worktree::remove_if_unchanged(tree) {
        Ok(true) => None,
        Ok(false) => {
            let what = worktree::changes(tree).unwrap_or_default().join(", ");
            Some(format!(
                "[its work is kept in the worktree {} on branch {} ({what}); merge the branch \
                 or remove it with `rein worktree prune` once it is no longer needed]",
                tree.path.display(),
                tree.branch
            ))
        }
        Err(error) => Some(format!(
            "[its worktree {} could not be checked: {error}]",
            tree.path.display()
        )),
    }
}
