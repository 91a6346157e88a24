//! The arguments of `rein memory` and `rein worktree`: what rein keeps for a workspace
//! outside its sessions.

use std::path::PathBuf;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum MemoryCommand {
    /// List the memory files of this workspace, with their sizes.
    List {
        /// Workspace directory (default: the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
    },
    /// Print a memory file (default: /memories/MEMORY.md).
    Show {
        /// The file, as the model names it (`/memories/notes.md`) or relative (`notes.md`).
        path: Option<String>,
        /// Workspace directory (default: the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
    },
    /// Delete a memory file, or with --all the whole memory of this workspace.
    Forget {
        /// The file (`/memories/notes.md` or `notes.md`).
        #[arg(required_unless_present = "all")]
        path: Option<String>,
        /// Forget everything this workspace's memory holds.
        #[arg(long, conflicts_with = "path")]
        all: bool,
        /// Workspace directory (default: the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
pub enum WorktreeCommand {
    /// List rein's worktrees of this repository: path, branch and what they hold.
    List {
        /// Workspace directory (default: the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
    },
    /// Remove rein's worktrees that hold no work (and their branches); keep the others.
    Prune {
        /// Workspace directory (default: the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
    },
}
