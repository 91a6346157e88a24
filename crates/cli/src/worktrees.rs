//! `rein worktree list` and `rein worktree prune`: the worktrees rein made in this
//! repository (`.rein/worktrees/`), what each holds, and removing the empty ones.

use rein_engine::worktree;

use crate::Exit;
use crate::stores_args::WorktreeCommand;

/// Runs one `rein worktree` command.
pub fn run(command: WorktreeCommand) -> Result<(), Exit> {
    match command {
        WorktreeCommand::List { cwd } => list(&crate::resolve::workspace(cwd.as_deref())?),
        WorktreeCommand::Prune { cwd } => prune(&crate::resolve::workspace(cwd.as_deref())?),
    }
}

fn list(workspace: &std::path::Path) -> Result<(), Exit> {
    let trees = worktree::list(workspace).map_err(|e| Exit::failed(e.to_string()))?;
    if trees.is_empty() {
        return crate::output::print_all("no worktrees made by rein in this repository\n");
    }
    let mut text = String::new();
    for tree in trees {
        let held = match worktree::changes(&tree) {
            Ok(what) if what.is_empty() => "no changes".to_string(),
            Ok(what) => what.join(", "),
            Err(error) => format!("cannot tell: {error}"),
        };
        text.push_str(&format!(
            "{}  {}  ({held})\n",
            tree.path.display(),
            tree.branch
        ));
    }
    crate::output::print_all(&text)
}

fn prune(workspace: &std::path::Path) -> Result<(), Exit> {
    let pruned = worktree::prune(workspace).map_err(|e| Exit::failed(e.to_string()))?;
    let mut text = String::new();
    for tree in &pruned.removed {
        text.push_str(&format!(
            "removed {} ({})\n",
            tree.path.display(),
            tree.branch
        ));
    }
    for (tree, what) in &pruned.kept {
        text.push_str(&format!(
            "kept {} ({}): {what}\n",
            tree.path.display(),
            tree.branch
        ));
    }
    if text.is_empty() {
        text.push_str("no worktrees made by rein in this repository\n");
    }
    crate::output::print_all(&text)
}
