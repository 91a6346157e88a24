//! Where a task's repository may come from. A task file is data — datasets are downloaded —
//! so its `repo` is not trusted:
//!
//! - a URL must use a transport that only fetches (`https`, `http`, `git`, `ssh`, or git's
//!   `user@host:path`; `file://` under the folder rules below): `ext::` and `fd::` run
//!   commands, and anything else is refused before a run starts (git itself is also told to
//!   allow only those, [`GIT_ALLOW_PROTOCOL`]);
//! - a local folder must lie at or beneath the task file's folder, or beneath a folder the user
//!   names with `--repo-root`, and is never `/`, the home folder or a folder holding it (a copy
//!   of the home folder would carry `~/.ssh` where the sensitive rules, anchored at `~`, no
//!   longer match).

use std::path::{Path, PathBuf};

/// The transports git may use for an evaluation (`GIT_ALLOW_PROTOCOL`): `file` for the local
/// clones rein makes of its own cache and of allowed folders.
pub const GIT_ALLOW_PROTOCOL: &str = "file:git:http:https:ssh";

/// URL schemes a task's `repo` may name (a `file://` one only where a folder may be).
const SCHEMES: [&str; 5] = ["https://", "http://", "git://", "ssh://", "file://"];

/// Whether `repo` names a remote repository rather than a folder.
pub fn is_url(repo: &str) -> bool {
    repo.contains("://") || repo.contains("::") || scp_like(repo)
}

/// What is wrong with `repo` as a task's repository, without looking at the disk.
pub fn repo_problem(repo: &str) -> Option<String> {
    let repo = repo.trim();
    if repo.starts_with('-') {
        return Some(format!(
            "`repo` {repo:?} starts with `-` (git would read an option)"
        ));
    }
    if repo.contains("::") {
        return Some(format!(
            "`repo` {repo:?} names a git transport that runs commands (`ext::`, `fd::`, \
             `<transport>::`); only https, http, git and ssh URLs or a folder are taken"
        ));
    }
    if repo.contains("://") && !SCHEMES.iter().any(|s| repo.starts_with(s)) {
        return Some(format!(
            "`repo` {repo:?}: only https://, http://, git://, ssh:// and file:// URLs (or a \
             folder beside the task file) are taken"
        ));
    }
    if scp_like(repo) && repo.split(':').next().is_some_and(|h| h.contains("@-")) {
        return Some(format!("`repo` {repo:?}: a host cannot start with `-`"));
    }
    None
}

/// git's `user@host:path` form.
fn scp_like(repo: &str) -> bool {
    match repo.split_once(':') {
        Some((host, _)) => host.contains('@') && !host.contains('/'),
        None => false,
    }
}

/// Why a task's repository may not be used (the text names the task's `repo` and the fix).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadOrigin(pub String);

/// The folders a local repository may come from.
#[derive(Debug, Clone)]
pub struct Origins {
    /// The task file's folder, canonical.
    pub base: PathBuf,
    /// The folders named with `--repo-root`, canonical.
    pub roots: Vec<PathBuf>,
    /// The home folder, canonical.
    pub home: Option<PathBuf>,
    /// The folders and files the sensitive list names by path (`~/.ssh`, `~/.aws`…): never
    /// copied, nor taken as a repository.
    pub sensitive: Vec<PathBuf>,
}

impl Origins {
    /// The canonical folder of a task whose `repo` is `repo` (relative to the task file's
    /// folder), or why it may not be copied.
    pub fn folder(&self, repo: &str) -> Result<PathBuf, BadOrigin> {
        self.checked(repo).map_err(BadOrigin)
    }

    fn checked(&self, repo: &str) -> Result<PathBuf, String> {
        let given = self.base.join(repo);
        let folder = given
            .canonicalize()
            .map_err(|e| format!("`repo` {repo:?} ({}): {e}", given.display()))?;
        let holds_home = self.home.as_ref().is_some_and(|h| h.starts_with(&folder));
        if folder == Path::new("/") || holds_home {
            return Err(format!(
                "`repo` {repo:?} is {}: never the home folder, a folder holding it or `/` \
                 (their copy would carry the user's credentials)",
                folder.display()
            ));
        }
        if let Some(named) = self.sensitive.iter().find(|s| folder.starts_with(s)) {
            return Err(format!(
                "`repo` {repo:?} is {}, inside {} (a sensitive folder): rein copies no \
                 credentials",
                folder.display(),
                named.display()
            ));
        }
        let allowed = std::iter::once(&self.base)
            .chain(&self.roots)
            .any(|root| folder.starts_with(root));
        if !allowed {
            return Err(format!(
                "`repo` {repo:?} is {}, outside the task file's folder {}: a task file is data, \
                 so a repository elsewhere must be named by you with --repo-root DIR",
                folder.display(),
                self.base.display()
            ));
        }
        Ok(folder)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_transports_that_fetch_are_taken() {
        let fine = [
            "https://github.com/a/b.git",
            "http://127.0.0.1:8080/r.git",
            "git://example.com/r",
            "ssh://git@example.com/r.git",
            "git@github.com:a/b.git",
            "repos/local",
            "../sibling",
        ];
        for repo in fine {
            assert_eq!(repo_problem(repo), None, "{repo}");
        }
        let refused = [
            "ext::sh -c touch% /tmp/pwned",
            "fd::3",
            "ext::sh -c 'curl http://x'",
            "ftp://example.com/r",
            "--upload-pack=touch /tmp/x",
            "-uhttps://x",
            "git@-oProxyCommand=x:r",
            "transport::whatever",
        ];
        for repo in refused {
            assert!(repo_problem(repo).is_some(), "{repo}");
            assert!(
                is_url(repo) || repo.starts_with('-'),
                "{repo} is never taken for a folder"
            );
        }
    }

    #[test]
    fn a_folder_must_be_the_task_files_or_one_the_user_named() {
        let top = tempfile::tempdir().unwrap();
        let top = top.path().canonicalize().unwrap();
        let home = top.join("home");
        let tasks = home.join("datasets/suite");
        let named = top.join("repos");
        for dir in [tasks.join("r1"), named.join("r2"), home.join(".ssh")] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::os::unix::fs::symlink(&home, tasks.join("link-home")).unwrap();
        let origins = Origins {
            base: tasks.clone(),
            roots: vec![named.clone()],
            home: Some(home.clone()),
            sensitive: vec![home.join(".ssh")],
        };
        assert_eq!(origins.folder("r1"), Ok(tasks.join("r1")));
        assert_eq!(origins.folder("."), Ok(tasks.clone()));
        assert_eq!(origins.folder("../../../repos/r2"), Ok(named.join("r2")));
        let refused = [
            ("../..", "never the home folder"),
            ("../../..", "never the home folder"),
            ("link-home", "never the home folder"),
            ("/", "never the home folder"),
            ("..", "outside the task file's folder"),
            ("../../.ssh", "a sensitive folder"),
            ("../../datasets", "outside the task file's folder"),
            ("missing", "No such file"),
        ];
        for (repo, why) in refused {
            let err = origins.folder(repo).unwrap_err().0;
            assert!(err.contains(why), "{repo}: {err}");
        }
        // A named root does not make the home folder itself copyable.
        let wide = Origins {
            roots: vec![PathBuf::from("/")],
            ..origins
        };
        assert!(wide.folder("../..").is_err());
        let err = wide.folder("../../.ssh").unwrap_err().0;
        assert!(err.contains("a sensitive folder"), "{err}");
    }
}
