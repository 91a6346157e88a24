//! What git will run or trust, held still under `workspace-write`: the `.git` entry and every
//! git folder it leads to in the writable view are pinned (bound onto themselves: a mount
//! point cannot be renamed, replaced or removed, `EBUSY`), and what git executes or trusts in
//! them is bound read-only — `hooks`, `config`, `info` (`info/attributes` picks filters),
//! `commondir`, `gitdir`, `config.worktree`, the folders `core.hooksPath` names and the files
//! the config includes — in the main git folder, each submodule's (`modules/…`) and each
//! linked worktree's (`worktrees/…`). Every folder between a protected path and its writable
//! root is pinned too, or renaming a parent (`mv .husky x`) would carry the bind away.
//!
//! A mount needs a path that exists, so a missing one git would honour is made first, empty
//! (as `git init` makes them): `hooks/`, `info/`, `config`, `config.worktree` when the config
//! enables it, the `core.hooksPath` folder, an included file, and an empty `.git/` at a
//! workspace root that is in no git work tree at all (git skips an empty `.git` and looks
//! further up; `git init` inside the sandbox then fails). What a mount cannot hold is refused ([`Unprotected`]): a
//! symlink among those paths (the link itself stays replaceable), and a `commondir` in a main
//! git folder, the one name git honours that cannot be made harmless in advance; one written
//! during a call is moved aside after it ([`Sandbox::disarm_git`](crate::Sandbox::disarm_git)).

mod config;
mod disarm;
mod report;
mod writable;

pub use disarm::disarm;
pub use report::GitReport;
use writable::Located;

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use config::{GitConfig, config_path};

use crate::Settings;

/// How deep submodule names nest under `modules/` (`modules/a/b` for a submodule `a/b`).
const MODULE_DEPTH: usize = 4;
/// How many includes deep the config is followed.
const INCLUDE_DEPTH: usize = 4;

/// One mount that holds git's files still.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A folder bound writable onto itself: it stays writable but cannot be renamed or
    /// removed.
    Pin(PathBuf),
    /// A file or folder bound read-only onto itself.
    ReadOnly(PathBuf),
}

impl Step {
    /// The path the step mounts on.
    pub fn path(&self) -> &Path {
        match self {
            Self::Pin(path) | Self::ReadOnly(path) => path,
        }
    }
}

/// Why git's files cannot be held still here: `workspace-write` refuses to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unprotected {
    /// A path git trusts is a symlink in (or leading into) the writable view: a mount holds
    /// what it points at, never the link, which a command could swap.
    Symlink(PathBuf),
    /// A main git folder has a `commondir`: git would take hooks and config from where it
    /// points (only a linked worktree's folder has one).
    Redirected(PathBuf),
    /// An empty placeholder could not be made.
    Io(PathBuf, String),
}

impl fmt::Display for Unprotected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Symlink(path) => write!(
                f,
                "{} is a symlink git follows inside the writable workspace; a command could \
                 swap the link and plant a hook, and no mount can hold a link (replace it with \
                 the real folder or file, or set core.hooksPath)",
                path.display()
            ),
            Self::Redirected(path) => write!(
                f,
                "{} makes git take its hooks and config from elsewhere, and a main repository \
                 has none (a command may have planted it): remove it",
                path.display()
            ),
            Self::Io(path, why) => write!(f, "cannot create {}: {why}", path.display()),
        }
    }
}

impl std::error::Error for Unprotected {}

/// Whether missing paths may be created so they can be bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placeholders {
    /// Make them, empty (a call about to run).
    Create,
    /// Only say what would be bound (`rein sandbox check`).
    Skip,
}

/// The steps that hold git's files still for a `workspace-write` call in `workspace` with
/// `settings` (writable roots, git's own config files), shallowest first (a pinned folder is
/// bound before what is bound in it).
pub fn plan(
    workspace: &Path,
    settings: &Settings,
    placeholders: Placeholders,
) -> Result<Vec<Step>, Unprotected> {
    let mut planner = Planner {
        view: writable::WritableView::new(workspace, &settings.writable_roots),
        user_configs: settings
            .git_configs
            .iter()
            .map(|path| (path.clone(), GitConfig::read(path)))
            .collect(),
        placeholders,
        steps: Vec::new(),
        visited: HashSet::new(),
    };
    // The checkout the workspace is a sub-folder of: held too when it lies in the writable
    // view. The workspace then gets no empty `.git` of its own: even an empty one ends the
    // checkout's `.gitignore` files for the `ignore` crate (rein's searches, its snapshots).
    let checkout = workspace
        .ancestors()
        .skip(1)
        .find(|dir| dir.join(".git").symlink_metadata().is_ok());
    let missing = match checkout {
        Some(_) => Missing::Leave,
        None => Missing::MakeEmpty,
    };
    planner.top(workspace, missing)?;
    if let Some(top) = checkout
        && let Located::Writable(top) = planner.view.locate(top)?
    {
        planner.top(&top, Missing::Leave)?;
    }
    Ok(planner.finish())
}

/// What to do when a worktree top has no `.git`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Missing {
    /// Bind an empty read-only folder there, so no command can make one.
    MakeEmpty,
    Leave,
}

/// What a trusted path must be when it has to be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Folder,
    File,
}

struct Planner {
    view: writable::WritableView,
    /// Git's system and user config files, read once.
    user_configs: Vec<(PathBuf, GitConfig)>,
    placeholders: Placeholders,
    steps: Vec<Step>,
    /// Git folders already planned (a worktree's common folder lists it again).
    visited: HashSet<PathBuf>,
}

impl Planner {
    /// The `.git` entry of worktree `top` (a path in the view) and what it leads to.
    fn top(&mut self, top: &Path, missing: Missing) -> Result<(), Unprotected> {
        let entry = top.join(".git");
        let Ok(meta) = entry.symlink_metadata() else {
            if missing == Missing::MakeEmpty {
                self.trusted(&entry, Kind::Folder)?;
            }
            return Ok(());
        };
        if meta.is_symlink() {
            return Err(Unprotected::Symlink(entry));
        }
        if meta.is_dir() {
            return self.common_dir(&entry, top);
        }
        // A linked worktree's or a submodule's `.git` file: `gitdir: PATH`.
        self.read_only(&entry);
        let Some(target) = gitfile_target(&entry) else {
            return Ok(());
        };
        match self.view.locate(&top.join(target))? {
            Located::Writable(gitdir) => self.linked(&gitdir, top),
            Located::Outside => Ok(()),
        }
    }

    /// A git folder a `.git` file names: a linked worktree's (with a `commondir`) or a
    /// submodule's.
    fn linked(&mut self, gitdir: &Path, top: &Path) -> Result<(), Unprotected> {
        let commondir = gitdir.join("commondir");
        if !is_present(&commondir)? {
            return self.common_dir(gitdir, top);
        }
        self.worktree_dir(gitdir, WorktreeConfig::Off)?;
        let Ok(text) = std::fs::read_to_string(&commondir) else {
            return Ok(());
        };
        match self.view.locate(&gitdir.join(text.trim()))? {
            Located::Writable(common) => self.common_dir(&common, top),
            Located::Outside => Ok(()),
        }
    }

    /// A main or submodule git folder (hooks and config live here), of worktree `top`.
    fn common_dir(&mut self, gitdir: &Path, top: &Path) -> Result<(), Unprotected> {
        if !self.visited.insert(gitdir.to_path_buf()) {
            return Ok(());
        }
        self.pin(gitdir);
        let commondir = gitdir.join("commondir");
        if is_present(&commondir)? {
            return Err(Unprotected::Redirected(commondir));
        }
        self.trusted(&gitdir.join("hooks"), Kind::Folder)?;
        self.trusted(&gitdir.join("info"), Kind::Folder)?;
        self.trusted(&gitdir.join("config"), Kind::File)?;
        self.optional(&gitdir.join("gitdir"))?;
        let config = GitConfig::read(&gitdir.join("config"));
        let worktree_config = if config.worktree_config {
            WorktreeConfig::On
        } else {
            WorktreeConfig::Off
        };
        self.config_refs(&config, gitdir, top, 0)?;
        // A relative `core.hooksPath` of the user's config names a folder of each worktree.
        for (path, user) in self.user_configs.clone() {
            let dir = path.parent().unwrap_or(Path::new("/")).to_path_buf();
            self.config_refs(&user, &dir, top, 0)?;
        }
        self.worktree_config(gitdir, top, worktree_config)?;
        self.submodule_checkouts(top)?;
        self.modules(&gitdir.join("modules"), 0)?;
        self.worktrees(&gitdir.join("worktrees"), worktree_config)
    }

    /// A linked worktree's own folder (`worktrees/NAME`).
    fn worktree_dir(&mut self, dir: &Path, config: WorktreeConfig) -> Result<(), Unprotected> {
        if !self.visited.insert(dir.to_path_buf()) {
            return Ok(());
        }
        self.pin(dir);
        self.optional(&dir.join("commondir"))?;
        self.optional(&dir.join("gitdir"))?;
        self.worktree_config(dir, dir, config)
    }

    /// `config.worktree`, made when the config enables it, and what it names.
    fn worktree_config(
        &mut self,
        dir: &Path,
        top: &Path,
        enabled: WorktreeConfig,
    ) -> Result<(), Unprotected> {
        let path = dir.join("config.worktree");
        match enabled {
            WorktreeConfig::On => self.trusted(&path, Kind::File)?,
            WorktreeConfig::Off => self.optional(&path)?,
        }
        self.config_refs(&GitConfig::read(&path), dir, top, 0)
    }

    /// The hooks folder and the includes `config` (a file in `dir`) names.
    fn config_refs(
        &mut self,
        config: &GitConfig,
        dir: &Path,
        top: &Path,
        depth: usize,
    ) -> Result<(), Unprotected> {
        if let Some(hooks) = config
            .hooks_path
            .as_deref()
            .and_then(|v| config_path(v, top))
            && let Located::Writable(hooks) = self.view.locate(&hooks)?
        {
            // husky's hooks folder `.husky/_` holds shims that run `.husky/<hook>`.
            let husky = hooks.file_name().is_some_and(|name| name == "_");
            if let Some(parent) = hooks.parent().filter(|_| husky)
                && self.view.root_of(parent).is_some_and(|root| root != parent)
            {
                self.trusted(parent, Kind::Folder)?;
            }
            self.trusted(&hooks, Kind::Folder)?;
        }
        for include in config.includes.iter().filter_map(|v| config_path(v, dir)) {
            if let Located::Writable(include) = self.view.locate(&include)? {
                self.trusted(&include, Kind::File)?;
                if depth < INCLUDE_DEPTH {
                    let base = include.parent().unwrap_or(dir).to_path_buf();
                    self.config_refs(&GitConfig::read(&include), &base, top, depth + 1)?;
                }
            }
        }
        Ok(())
    }

    /// The `.git` entries of the submodule checkouts `.gitmodules` of worktree `top` names:
    /// the parent's `git status` enters each and runs what its git folder says, and a `.git`
    /// file repointed at a folder a command made would take it there.
    fn submodule_checkouts(&mut self, top: &Path) -> Result<(), Unprotected> {
        let modules = GitConfig::read(&top.join(".gitmodules"));
        for path in modules
            .submodule_paths
            .iter()
            .filter_map(|p| config_path(p, top))
        {
            if let Located::Writable(checkout) = self.view.locate(&path)?
                && checkout != top
                && checkout.starts_with(top)
            {
                self.top(&checkout, Missing::Leave)?;
            }
        }
        Ok(())
    }

    /// Submodule git folders under `modules/` (a folder with `HEAD`), at any name depth.
    fn modules(&mut self, dir: &Path, depth: usize) -> Result<(), Unprotected> {
        for entry in folders(dir)? {
            if is_present(&entry.join("HEAD"))? {
                // A relative `core.hooksPath` of a submodule is taken from its git folder.
                self.common_dir(&entry, &entry)?;
            } else if depth < MODULE_DEPTH {
                self.modules(&entry, depth + 1)?;
            }
        }
        Ok(())
    }

    /// Linked worktrees' folders under `worktrees/`.
    fn worktrees(&mut self, dir: &Path, config: WorktreeConfig) -> Result<(), Unprotected> {
        for entry in folders(dir)? {
            self.worktree_dir(&entry, config)?;
        }
        Ok(())
    }

    /// A path git trusts: bound read-only, made empty first when missing.
    fn trusted(&mut self, path: &Path, kind: Kind) -> Result<(), Unprotected> {
        if !is_present(path)? && self.placeholders == Placeholders::Create {
            let made = match kind {
                Kind::Folder => std::fs::create_dir_all(path),
                Kind::File => path
                    .parent()
                    .map_or(Ok(()), std::fs::create_dir_all)
                    .and_then(|()| std::fs::write(path, "")),
            };
            made.map_err(|e| Unprotected::Io(path.to_path_buf(), e.to_string()))?;
        }
        self.read_only(path);
        Ok(())
    }

    /// A path git trusts when it exists: bound read-only then.
    fn optional(&mut self, path: &Path) -> Result<(), Unprotected> {
        if is_present(path)? {
            self.read_only(path);
        }
        Ok(())
    }

    fn read_only(&mut self, path: &Path) {
        self.pin_parents(path);
        self.steps.push(Step::ReadOnly(path.to_path_buf()));
    }

    fn pin(&mut self, dir: &Path) {
        self.pin_parents(dir);
        self.steps.push(Step::Pin(dir.to_path_buf()));
    }

    /// Pins every folder between `path`'s writable root and `path`.
    fn pin_parents(&mut self, path: &Path) {
        let Some(root) = self.view.root_of(path) else {
            return;
        };
        let parents = path
            .ancestors()
            .skip(1)
            .take_while(|dir| *dir != root && dir.starts_with(&root));
        let parents: Vec<PathBuf> = parents.map(Path::to_path_buf).collect();
        self.steps.extend(parents.into_iter().map(Step::Pin));
    }

    /// The steps without repeats (read-only wins over pinned), shallowest first.
    fn finish(self) -> Vec<Step> {
        let mut steps: BTreeMap<PathBuf, Step> = BTreeMap::new();
        for step in self.steps {
            let path = step.path().to_path_buf();
            match steps.get(&path) {
                Some(Step::ReadOnly(_)) => {}
                _ => {
                    steps.insert(path, step);
                }
            }
        }
        let mut steps: Vec<Step> = steps.into_values().collect();
        steps.sort_by_key(|step| step.path().components().count());
        steps
    }
}

/// Whether a worktree's `config.worktree` is read (`extensions.worktreeConfig`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WorktreeConfig {
    On,
    Off,
}

/// Whether `path` exists; a symlink is refused.
fn is_present(path: &Path) -> Result<bool, Unprotected> {
    match path.symlink_metadata() {
        Ok(meta) if meta.is_symlink() => Err(Unprotected::Symlink(path.to_path_buf())),
        Ok(_) => Ok(true),
        Err(_) => Ok(false),
    }
}

/// The folders in `dir` (none when it is missing), sorted; a symlink is refused.
fn folders(dir: &Path) -> Result<Vec<PathBuf>, Unprotected> {
    if !is_present(dir)? {
        return Ok(Vec::new());
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if is_present(&path)? && path.is_dir() {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

/// The `gitdir: PATH` of a `.git` file.
fn gitfile_target(file: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(file).ok()?;
    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    (!target.is_empty()).then(|| PathBuf::from(target))
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
