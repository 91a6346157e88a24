//! A run's fresh copy of its task's repository: a folder copied as it is, or a git
//! repository cloned at the task's commit (a URL is cloned once into rein's cache, then each
//! run clones that locally).

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::tasks::Source;

/// Why a run's copy could not be made (git's own words, or the file system's).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct CopyError(String);

impl From<String> for CopyError {
    fn from(text: String) -> Self {
        Self(text)
    }
}

/// Makes `into` (which must not exist) a fresh copy of `source` at `commit`.
/// `places` are rein's cache of cloned URLs and the sensitive paths a copy leaves out.
pub fn prepare(
    source: &Source,
    commit: Option<&str>,
    places: (&Path, &[PathBuf]),
    into: &Path,
) -> Result<(), CopyError> {
    copy_at(source, commit, places, into).map_err(CopyError)
}

fn copy_at(
    source: &Source,
    commit: Option<&str>,
    (cache, sensitive): (&Path, &[PathBuf]),
    into: &Path,
) -> Result<(), String> {
    match (source, commit) {
        (Source::Folder(folder), None) => {
            if !folder.is_dir() {
                return Err(format!("{} is not a folder", folder.display()));
            }
            let (whole, target) = (folder.canonicalize(), into.parent().map(Path::canonicalize));
            if let (Ok(whole), Some(Ok(target))) = (whole, target)
                && target.starts_with(&whole)
            {
                return Err(format!(
                    "{} holds the folder the runs are copied to ({}): pass a --work-dir outside it",
                    folder.display(),
                    target.display()
                ));
            }
            copy_tree(folder, into, sensitive)
                .map_err(|e| format!("copying {} to {}: {e}", folder.display(), into.display()))
        }
        (Source::Folder(folder), Some(commit)) => clone_at(folder, commit, into),
        (Source::Url(url), commit) => {
            let mirror = mirror_path(cache, url);
            if let Some(commit) = commit
                && !has_commit(&mirror, commit)
            {
                // A commit newer than the mirror, or not on a branch.
                git(Some(&mirror), &["fetch", "--quiet", "origin", "--", commit])?;
            }
            clone_at(&mirror, commit.unwrap_or("HEAD"), into)
        }
    }
}

/// Clones `url` into rein's cache unless it is there already (runs share it).
pub fn mirror(cache: &Path, url: &str) -> Result<(), CopyError> {
    mirror_into(cache, url).map_err(CopyError)
}

fn mirror_into(cache: &Path, url: &str) -> Result<(), String> {
    let mirror = mirror_path(cache, url);
    if mirror.join("HEAD").is_file() {
        return Ok(());
    }
    std::fs::create_dir_all(cache).map_err(|e| format!("{}: {e}", cache.display()))?;
    let partial = mirror.with_extension("partial");
    let _ = std::fs::remove_dir_all(&partial);
    let target = partial.to_string_lossy().into_owned();
    git(None, &["clone", "--quiet", "--mirror", "--", url, &target])?;
    std::fs::rename(&partial, &mirror).map_err(|e| format!("{}: {e}", mirror.display()))
}

fn mirror_path(cache: &Path, url: &str) -> PathBuf {
    let digest = Sha256::digest(url.as_bytes());
    let name: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    cache.join(format!("{name}.git"))
}

fn has_commit(repo: &Path, commit: &str) -> bool {
    git(
        Some(repo),
        &["cat-file", "-e", &format!("{commit}^{{commit}}")],
    )
    .is_ok()
}

/// A local clone of `repo` with `commit` checked out (detached).
fn clone_at(repo: &Path, commit: &str, into: &Path) -> Result<(), String> {
    let source = repo.to_string_lossy().into_owned();
    let target = into.to_string_lossy().into_owned();
    git(
        None,
        &["clone", "--quiet", "--no-checkout", "--", &source, &target],
    )?;
    git(
        Some(into),
        &["checkout", "--quiet", "--detach", commit, "--"],
    )
    .map_err(|e| format!("commit {commit}: {e}"))
}

/// Runs git (no prompts, no hooks, no system config, none of rein's `GIT_*` variables) and
/// returns its error output on failure.
fn git(dir: Option<&Path>, args: &[&str]) -> Result<(), String> {
    let mut command = rein_checkpoint::user_git(dir.unwrap_or(Path::new(".")));
    let out = command
        .args([
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "advice.detachedHead=false",
        ])
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        // No transport that runs a command (`ext::`, `fd::`), whatever a task file names.
        .env("GIT_ALLOW_PROTOCOL", super::origin::GIT_ALLOW_PROTOCOL)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .map_err(|e| format!("git: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    Err(format!("git {}: {}", args[0], said.trim()))
}

/// Copies a folder with everything in it: files with their permissions, symbolic links as
/// links; other kinds of files (sockets, pipes) and what `sensitive` names (the sensitive
/// rules of the origin, which would not match the copy's new place) are left out.
pub fn copy_tree(from: &Path, to: &Path, sensitive: &[PathBuf]) -> std::io::Result<()> {
    std::fs::create_dir(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if sensitive.iter().any(|s| entry.path().starts_with(s)) {
            continue;
        }
        if kind.is_dir() {
            copy_tree(&entry.path(), &target, sensitive)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_copied_with_its_links_and_one_holding_the_copies_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let repo = root.path().join("repo");
        std::fs::create_dir_all(repo.join("src")).unwrap();
        std::fs::write(repo.join("src/a.txt"), "a").unwrap();
        std::os::unix::fs::symlink("src/a.txt", repo.join("link")).unwrap();
        let into = root.path().join("copy");
        prepare(
            &Source::Folder(repo.clone()),
            None,
            (root.path(), &[]),
            &into,
        )
        .unwrap();
        assert_eq!(
            std::fs::read_to_string(into.join("src/a.txt")).unwrap(),
            "a"
        );
        assert_eq!(
            std::fs::read_link(into.join("link")).unwrap(),
            Path::new("src/a.txt")
        );
        // Runs copied to a folder inside the task's own would copy themselves.
        let holder = repo.join("runs/rein-eval-x");
        std::fs::create_dir_all(&holder).unwrap();
        let err = prepare(
            &Source::Folder(repo),
            None,
            (root.path(), &[]),
            &holder.join("x"),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("pass a --work-dir outside it"), "{err}");
    }

    #[test]
    fn a_copy_leaves_out_what_is_sensitive_where_it_came_from() {
        let root = tempfile::tempdir().unwrap();
        let repo = root.path().join("dotfiles");
        std::fs::create_dir_all(repo.join(".ssh")).unwrap();
        std::fs::write(repo.join(".ssh/id_rsa"), "KEY").unwrap();
        std::fs::write(repo.join("README"), "hi").unwrap();
        let into = root.path().join("copy");
        let sensitive = [repo.join(".ssh")];
        prepare(
            &Source::Folder(repo),
            None,
            (root.path(), &sensitive),
            &into,
        )
        .unwrap();
        assert!(into.join("README").exists());
        assert!(!into.join(".ssh").exists());
    }
}
