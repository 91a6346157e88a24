//! Material recorded from peers (`../shared/conformance/` beside the repository) and the small
//! real things tests build on (a git repository).
#![allow(clippy::disallowed_methods)] // dev-only crate: the test programs start real processes and read the test environment

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Why a fixture a test needs is not there.
#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    /// A conformance file absent under `CI=true`.
    #[error("the fixture {} is missing (CI=true): {error}", .path.display())]
    MissingFile {
        /// Where it was looked for.
        path: PathBuf,
        /// Why it could not be read.
        error: std::io::Error,
    },
    /// A conformance folder absent under `CI=true`.
    #[error("the fixture folder {} is missing (CI=true)", .path.display())]
    MissingDir {
        /// Where it was looked for.
        path: PathBuf,
    },
    /// No `git` to make a repository with.
    #[error("git is needed: scripts/test-deps installs it")]
    NoGit,
    /// `git init` could not be run.
    #[error("git init: {0}")]
    GitNotRun(std::io::Error),
    /// `git init` ran and failed.
    #[error("git init failed in {}", .dir.display())]
    GitInitFailed {
        /// The folder it was run in.
        dir: PathBuf,
    },
}

/// The text of `../shared/conformance/<relative>`. `Ok(None)` when it is absent outside CI: the
/// caller skips, and a `SKIPPED:` line on stderr says so (straight to stderr: the test harness
/// captures the print macros of passing tests). Under `CI=true` an absent file is an `Err`, so
/// CI never passes without checking.
pub fn conformance_file(relative: &str) -> Result<Option<String>, FixtureError> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/conformance")
        .join(relative);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(Some(text)),
        Err(error) if std::env::var("CI").as_deref() == Ok("true") => {
            Err(FixtureError::MissingFile { path, error })
        }
        Err(e) => {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: {relative}: no fixture at {} ({e})",
                path.display()
            );
            Ok(None)
        }
    }
}

/// The folder `../shared/conformance/<relative>`, under the same rule as
/// [`conformance_file`]: `Ok(None)` (and a `SKIPPED:` line) when it is absent outside CI, an
/// `Err` under `CI=true`.
pub fn conformance_dir(relative: &str) -> Result<Option<PathBuf>, FixtureError> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/conformance")
        .join(relative);
    if path.is_dir() {
        return Ok(Some(path));
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        return Err(FixtureError::MissingDir { path });
    }
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: {relative}: no fixture folder at {}",
        path.display()
    );
    Ok(None)
}

/// Makes `dir` a git repository of its own.
pub fn git_init(dir: &Path) -> Result<(), FixtureError> {
    if !crate::require("git", "--version", "git_init") {
        return Err(FixtureError::NoGit);
    }
    let status = Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir)
        .status()
        .map_err(FixtureError::GitNotRun)?;
    if status.success() {
        Ok(())
    } else {
        Err(FixtureError::GitInitFailed {
            dir: dir.to_path_buf(),
        })
    }
}

/// Runs `git args` in `dir` as a test's user would (a fixed identity, no signing, and no
/// optional locks, so `git status` never refreshes the index a test compares); its output.
/// Panics, with git's message, when git fails: a test's own git steps must work.
#[allow(clippy::panic)] // A test helper: failing the test is its job.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("git {args:?}: {e}"));
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Makes `dir` a git repository on branch `main` with one commit holding `files` (path,
/// contents), for tests of work that needs a repository (worktrees, snapshots).
pub fn committed_repo(dir: &Path, files: &[(&str, &str)]) {
    git(dir, &["init", "-q", "-b", "main"]);
    for (path, contents) in files {
        let path = dir.join(path);
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let written = std::fs::write(&path, contents);
        assert!(written.is_ok(), "{}: {written:?}", path.display());
    }
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "first"]);
}

/// Whether git is here to test with (under `CI=true` its absence fails the test; elsewhere the
/// test skips, saying so).
pub fn has_git(test: &str) -> bool {
    crate::require("git", "--version", test)
}
