//! The subagents an invocation offers: rein's two, the user's definition files, and — in a
//! trusted workspace — the workspace's; models named by definitions are resolved like
//! `--model` (by the [`ModelSource`] given: the run's `settings::Router`). Also the folders of
//! custom commands and skills.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::Config;
use crate::resolve::Folders;
use rein_engine::subagents::{ModelSource, Subagents, built_in, load};

/// Whether the workspace's own folders (`.claude/`, `.rein/`) are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkspaceFolders {
    /// Read: the workspace is trusted.
    Included,
    /// Not read: the workspace is not trusted.
    Skipped,
}

impl WorkspaceFolders {
    /// As far as `config`'s workspace is trusted.
    pub fn of(config: &Config) -> Self {
        if config.workspace_trusted {
            Self::Included
        } else {
            Self::Skipped
        }
    }
}

/// Whether problems with the files are said on stderr (the first time they are read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Warnings {
    /// Said on stderr.
    Said,
    /// Not said again.
    Quiet,
}

/// Folders named `kind` (`agents`, `commands`, `skills`), least specific first: the user's
/// (Claude Code's, then rein's, of `user`), then the workspace's (Claude Code's, then rein's)
/// when it is trusted.
pub fn folders(
    kind: &str,
    workspace: &Path,
    user: &Folders,
    own_folders: WorkspaceFolders,
    warnings: Warnings,
) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = [&user.claude, &user.config]
        .into_iter()
        .flatten()
        .map(|dir| dir.join(kind))
        .collect();
    let own = [
        workspace.join(".claude").join(kind),
        workspace.join(".rein").join(kind),
    ];
    if own_folders == WorkspaceFolders::Included {
        dirs.extend(own);
    } else if warnings == Warnings::Said && own.iter().any(|d| d.is_dir()) {
        eprintln!(
            "rein: this workspace's {kind} are not loaded: the workspace is not trusted (run \
             `rein trust` in {} or pass --trust-workspace)",
            workspace.display()
        );
    }
    dirs
}

/// The folders the files of [`folders`] must stay inside, with the sensitive list they are
/// checked against: `~/.claude`, the user's `rein` config folder (both of `user`) and, when
/// trusted, the workspace. A linked file or folder leading out of its root is skipped with a
/// warning.
pub fn prompt_files(
    workspace: &Path,
    user: &Folders,
    config: &Config,
    sensitive: &rein_tools::SensitivePaths,
) -> rein_tools::PromptFiles {
    let mut roots: Vec<PathBuf> = [&user.claude, &user.config]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    if config.workspace_trusted {
        roots.push(workspace.to_path_buf());
    }
    rein_tools::PromptFiles::new(roots, sensitive.clone())
}

/// The custom commands and skills of an invocation, warning once about files that could not
/// be used.
pub fn commands(
    workspace: &Path,
    config: &Config,
    user: &Folders,
    sensitive: &rein_tools::SensitivePaths,
    warnings: Warnings,
) -> rein_engine::commands::Catalog {
    let own = WorkspaceFolders::of(config);
    let loaded = rein_engine::commands::load(
        &folders("commands", workspace, user, own, warnings),
        &folders("skills", workspace, user, own, warnings),
        &prompt_files(workspace, user, config, sensitive),
    );
    for warning in loaded
        .warnings
        .iter()
        .filter(|_| warnings == Warnings::Said)
    {
        eprintln!("rein: {warning}");
    }
    loaded.catalog
}

/// The subagents of an invocation, warning once about files and tools that could not be used.
pub fn subagents(
    workspace: &Path,
    config: &Config,
    user: &Folders,
    sensitive: &rein_tools::SensitivePaths,
    models: Arc<dyn ModelSource>,
) -> Subagents {
    let own = WorkspaceFolders::of(config);
    let dirs = folders("agents", workspace, user, own, Warnings::Said);
    let explore = config.explore_model.as_ref().map(|m| m.value.as_str());
    let loaded = load(
        built_in(explore),
        &dirs,
        &prompt_files(workspace, user, config, sensitive),
    );
    for warning in &loaded.warnings {
        eprintln!("rein: {warning}");
    }
    let mut subagents = Subagents::new(loaded.definitions);
    subagents.models = Some(models);
    if let Some(max) = &config.max_teammates {
        subagents.max_teammates = max.value.max(1);
    }
    subagents
}
