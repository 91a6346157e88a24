//! Git worktrees rein makes for isolated work: `<repo>/.rein/worktrees/<name>` on a new branch
//! `rein/<name>`, under a folder git ignores (it holds a `.gitignore` of `*`). An agent with
//! `isolation: worktree` works in one; `enter_worktree` moves the session into one. A
//! worktree nobody changed is removed when its work ends; a changed one is kept, with its
//! branch, until `rein worktree prune` or `exit_worktree {action: "remove"}`.

use std::path::{Path, PathBuf};

/// Where rein's worktrees live, relative to the repository's top folder.
pub const WORKTREES_FOLDER: &str = ".rein/worktrees";
/// The prefix of their branches.
pub const BRANCH_PREFIX: &str = "rein/";

/// What a new worktree starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BaseRef {
    /// The repository's `HEAD` commit (Claude Code's `worktree.baseRef = "head"`).
    #[default]
    Head,
    /// `HEAD` plus the uncommitted changes of tracked files (`"fresh"` is Claude Code's word
    /// for the other way round: rein's `working-tree`).
    WorkingTree,
}

impl BaseRef {
    /// `head` or `working-tree`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "head" | "HEAD" | "fresh" => Some(Self::Head),
            "working-tree" | "working_tree" | "worktree" => Some(Self::WorkingTree),
            _ => None,
        }
    }
}

/// One of rein's worktrees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worktree {
    /// Its folder.
    pub path: PathBuf,
    /// Its branch (`rein/<name>`).
    pub branch: String,
    /// The commit it started from.
    pub base: String,
}

/// Why a worktree could not be made, found or removed.
#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    /// The folder is not inside a git repository.
    #[error("{0} is not inside a git repository: worktrees need git (run `git init` first)")]
    NotGit(String),
    /// The repository has no commit yet.
    #[error("the repository has no commit yet: commit something before making a worktree")]
    NoCommit,
    /// The name is not usable.
    #[error(
        "`{0}` is not a valid worktree name: `/`-separated parts of letters, digits, `.`, `_` \
         and `-`, at most 64 characters"
    )]
    BadName(String),
    /// A worktree of that name exists.
    #[error("a worktree named `{0}` exists already (enter it with its path)")]
    Exists(String),
    /// The worktree has work that removing it would lose.
    #[error(
        "{path} has changes that are not merged: {what}; pass discard_changes: true to remove it anyway"
    )]
    Unmerged {
        /// The worktree.
        path: String,
        /// What would be lost.
        what: String,
    },
    /// A folder of rein's own on the way is a link, or cannot be made.
    #[error(transparent)]
    Folder(#[from] rein_tools::own::OwnPathError),
    /// A git command failed.
    #[error("git {args}: {message}")]
    Git {
        /// Its arguments.
        args: String,
        /// What it printed.
        message: String,
    },
}

fn git(dir: &Path, args: &[&str]) -> Result<String, WorktreeError> {
    let out = rein_checkpoint::user_git(dir)
        .args(args)
        .output()
        .map_err(|e| WorktreeError::Git {
            args: args.join(" "),
            message: e.to_string(),
        })?;
    if !out.status.success() {
        return Err(WorktreeError::Git {
            args: args.join(" "),
            message: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The top folder of the repository holding `dir` (the main one, also from inside a
/// worktree).
pub fn repository(dir: &Path) -> Result<PathBuf, WorktreeError> {
    let common = git(
        dir,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    )
    .map_err(|_| WorktreeError::NotGit(dir.display().to_string()))?;
    let common = PathBuf::from(common);
    match common.file_name().and_then(|n| n.to_str()) {
        Some(".git") => Ok(common.parent().unwrap_or(&common).to_path_buf()),
        _ => git(dir, &["rev-parse", "--show-toplevel"])
            .map(PathBuf::from)
            .map_err(|_| WorktreeError::NotGit(dir.display().to_string())),
    }
}

/// Whether `dir` is inside a git repository (a `.git` in it or a folder above), without
/// running git.
pub fn in_repository(dir: &Path) -> bool {
    dir.ancestors().any(|d| d.join(".git").exists())
}

/// Whether `name` is a usable worktree name.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.split('/').all(|part| {
            !part.is_empty()
                && part != "."
                && part != ".."
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        })
}

/// A name for a worktree nobody named: `<prefix>-<6 hex>`.
pub fn fresh_name(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "{prefix}-{:06x}",
        (nanos ^ std::process::id().rotate_left(12)) & 0xff_ffff
    )
}

/// Makes worktree `name` of the repository holding `dir`, from `base`.
pub fn create(dir: &Path, name: &str, base: BaseRef) -> Result<Worktree, WorktreeError> {
    if !valid_name(name) {
        return Err(WorktreeError::BadName(name.to_string()));
    }
    let repo = repository(dir)?;
    let head =
        git(&repo, &["rev-parse", "--verify", "HEAD"]).map_err(|_| WorktreeError::NoCommit)?;
    let start = match base {
        BaseRef::Head => head,
        // A commit of the work tree's tracked changes, made without touching it.
        BaseRef::WorkingTree => match git(&repo, &["stash", "create", "rein worktree base"])? {
            commit if commit.is_empty() => head,
            commit => commit,
        },
    };
    // The repository may ship `.rein/worktrees` (or a folder on the way) as a link out of
    // it: rein's own folders are made and checked following no link.
    let own = rein_tools::own::OwnRoot::new(&repo)?;
    own.create_dir(Path::new(WORKTREES_FOLDER))?;
    let ignore = own.check(&Path::new(WORKTREES_FOLDER).join(".gitignore"))?;
    if !ignore.exists() {
        let _ = std::fs::write(&ignore, "*\n");
    }
    let path = own.check(&Path::new(WORKTREES_FOLDER).join(name))?;
    if std::fs::symlink_metadata(&path).is_ok() {
        return Err(WorktreeError::Exists(name.to_string()));
    }
    let branch = format!("{BRANCH_PREFIX}{name}");
    let path_text = path.to_string_lossy().into_owned();
    git(
        &repo,
        &[
            "worktree", "add", "--quiet", "-b", &branch, &path_text, &start,
        ],
    )?;
    Ok(Worktree {
        path,
        branch,
        base: start,
    })
}

/// What `worktree` holds that is not in its base: uncommitted files and commits, in words;
/// empty when nothing.
pub fn changes(worktree: &Worktree) -> Result<Vec<String>, WorktreeError> {
    let mut what = Vec::new();
    let status = git(
        &worktree.path,
        &["status", "--porcelain", "--untracked-files=all"],
    )?;
    let files = status.lines().count();
    if files > 0 {
        what.push(format!(
            "{files} uncommitted file{}",
            if files == 1 { "" } else { "s" }
        ));
    }
    let range = format!("{}..HEAD", worktree.base);
    let commits: usize = git(&worktree.path, &["rev-list", "--count", &range])?
        .parse()
        .unwrap_or(0);
    if commits > 0 {
        what.push(format!(
            "{commits} commit{}",
            if commits == 1 { "" } else { "s" }
        ));
    }
    Ok(what)
}

/// Commits everything uncommitted in `worktree` to its branch (as the repository's user, or
/// as `rein` when none is configured); `Ok(false)` when there was nothing to commit.
pub fn commit_all(worktree: &Worktree, message: &str) -> Result<bool, WorktreeError> {
    let dir = &worktree.path;
    if git(dir, &["status", "--porcelain", "--untracked-files=all"])?.is_empty() {
        return Ok(false);
    }
    git(dir, &["add", "-A"])?;
    let known = git(dir, &["config", "user.email"]).is_ok_and(|e| !e.is_empty());
    let mut args = vec!["-c", "commit.gpgsign=false"];
    if !known {
        args.extend(["-c", "user.name=rein", "-c", "user.email=rein@localhost"]);
    }
    args.extend(["commit", "--quiet", "--no-verify", "-m", message]);
    git(dir, &args)?;
    Ok(true)
}

/// Removes `worktree` and its branch; refused when it holds changes unless `force`.
pub fn remove(worktree: &Worktree, force: Force) -> Result<(), WorktreeError> {
    if force == Force::No {
        let what = changes(worktree)?;
        if !what.is_empty() {
            return Err(WorktreeError::Unmerged {
                path: worktree.path.display().to_string(),
                what: what.join(", "),
            });
        }
    }
    let repo = repository(&worktree.path)?;
    let path = worktree.path.to_string_lossy().into_owned();
    git(&repo, &["worktree", "remove", "--force", &path])?;
    let _ = git(&repo, &["branch", "-D", &worktree.branch]);
    Ok(())
}

/// Whether a removal may lose work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Force {
    /// Refuse when the worktree holds changes.
    No,
    /// Remove it whatever it holds.
    Yes,
}

/// Removes `worktree` when nobody changed it; `Ok(true)` when it was removed.
pub fn remove_if_unchanged(worktree: &Worktree) -> Result<bool, WorktreeError> {
    if !changes(worktree)?.is_empty() {
        return Ok(false);
    }
    remove(worktree, Force::Yes).map(|()| true)
}

/// rein's worktrees of the repository holding `dir` (those under [`WORKTREES_FOLDER`]).
pub fn list(dir: &Path) -> Result<Vec<Worktree>, WorktreeError> {
    let repo = repository(dir)?;
    let folder = repo.join(WORKTREES_FOLDER);
    listed(&repo, |path| path.starts_with(&folder))
}

/// The worktree of `dir`'s repository at `path` (it must be one of `git worktree list`).
pub fn find(dir: &Path, path: &Path) -> Result<Worktree, WorktreeError> {
    let resolve = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let wanted = resolve(path);
    let repo = repository(dir)?;
    if let Some(found) = listed(&repo, |found| resolve(found) == wanted)?.pop() {
        return Ok(found);
    }
    Err(WorktreeError::Git {
        args: "worktree list".into(),
        message: format!("{} is not a worktree of this repository", path.display()),
    })
}

/// The worktrees `git worktree list` names in `repo` whose folder `keep` accepts, each with
/// the commit it branched from (where its branch left the repository's `HEAD`).
fn listed(repo: &Path, keep: impl Fn(&Path) -> bool) -> Result<Vec<Worktree>, WorktreeError> {
    let text = git(repo, &["worktree", "list", "--porcelain"])?;
    let mut found = Vec::new();
    for block in text.split("\n\n") {
        let field = |key: &str| {
            block
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .map(str::to_string)
        };
        let (Some(path), Some(head)) = (field("worktree "), field("HEAD ")) else {
            continue;
        };
        let path = PathBuf::from(path);
        if !keep(&path) {
            continue;
        }
        let branch = field("branch refs/heads/").unwrap_or_default();
        let base = git(repo, &["merge-base", "HEAD", &head]).unwrap_or(head);
        found.push(Worktree { path, branch, base });
    }
    Ok(found)
}

/// What [`prune`] did.
#[derive(Debug, Default)]
pub struct Pruned {
    /// The worktrees removed (nothing in them).
    pub removed: Vec<Worktree>,
    /// The worktrees kept, with what they hold (`1 commit, 2 uncommitted files`).
    pub kept: Vec<(Worktree, String)>,
}

/// Removes rein's worktrees that hold no changes (and git's records of deleted ones).
pub fn prune(dir: &Path) -> Result<Pruned, WorktreeError> {
    let repo = repository(dir)?;
    let _ = git(&repo, &["worktree", "prune"]);
    let mut pruned = Pruned::default();
    for worktree in list(dir)? {
        let what = changes(&worktree)?;
        if what.is_empty() {
            remove(&worktree, Force::Yes)?;
            pruned.removed.push(worktree);
        } else {
            pruned.kept.push((worktree, what.join(", ")));
        }
    }
    Ok(pruned)
}

#[cfg(test)]
#[path = "worktree_tests.rs"]
mod tests;
