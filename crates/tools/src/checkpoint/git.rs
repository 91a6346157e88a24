//! Snapshots of a git work tree, so changes shell commands made can be taken back too: the
//! work tree (tracked and untracked files, not ignored ones) is written as a commit through a
//! private index, and kept alive by a private ref (`refs/rein/…`). The user's branch, index,
//! stash and HEAD are never touched: only objects and that ref are added to the repository.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A git work tree that holds the workspace.
#[derive(Debug, Clone)]
pub struct GitTree {
    /// The work tree's top folder.
    top: PathBuf,
    /// The repository's git folder.
    git_dir: PathBuf,
    /// The workspace, which the snapshots are limited to.
    workspace: PathBuf,
    /// Folders inside it the snapshots leave out (rein's own data).
    excluded: Vec<PathBuf>,
}

impl GitTree {
    /// The git work tree holding `workspace`; `None` when there is none (or no `git`).
    pub fn find(workspace: &Path) -> Option<Self> {
        // Most folders are not in git: a look for `.git` saves starting git to be told so.
        if !workspace.ancestors().any(|dir| dir.join(".git").exists()) {
            return None;
        }
        let out = git_in(workspace)
            .args(["rev-parse", "--show-toplevel", "--absolute-git-dir"])
            .stderr(Stdio::null())
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        let text = String::from_utf8(out.stdout).ok()?;
        let mut lines = text.lines();
        let top = PathBuf::from(lines.next()?);
        let git_dir = PathBuf::from(lines.next()?);
        Some(Self {
            top,
            git_dir,
            workspace: workspace.to_path_buf(),
            excluded: Vec::new(),
        })
    }

    /// Leaves `folder` out of the snapshots (when it is inside the work tree and not
    /// ignored already: git refuses to be told to leave out what it ignores).
    pub fn excluding(mut self, folder: &Path) -> Self {
        let folder = folder
            .canonicalize()
            .unwrap_or_else(|_| folder.to_path_buf());
        let Ok(inside) = folder.strip_prefix(&self.top) else {
            return self;
        };
        let inside = inside.to_path_buf();
        let ignored = self
            .git()
            .args(["check-ignore", "-q", "--"])
            .arg(&folder)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ignored {
            self.excluded.push(inside);
        }
        self
    }

    /// The pathspec of the snapshots: the workspace, without the excluded folders.
    fn pathspec(&self) -> Vec<std::ffi::OsString> {
        let mut spec = vec!["--".into(), self.workspace.clone().into_os_string()];
        for folder in &self.excluded {
            let mut magic = std::ffi::OsString::from(":(top,exclude)");
            magic.push(folder);
            spec.push(magic);
        }
        spec
    }

    /// The work tree's top folder.
    pub fn top(&self) -> &Path {
        &self.top
    }

    /// Writes the workspace's files as they are now as a tree object and, with `keep`,
    /// points the ref `keep` (under `refs/rein/`) at it, so no garbage collection takes it;
    /// the tree's id. (A tree, not a commit: nothing reads a snapshot's history, and every
    /// git started costs a few milliseconds.)
    pub fn snapshot(&self, keep: Option<&str>) -> std::io::Result<String> {
        let scratch = tempfile::Builder::new().prefix("rein-index").tempdir()?;
        let index = scratch.path().join("index");
        // The user's index as a start: its stat data saves re-reading unchanged files.
        let real = self.git_dir.join("index");
        if real.exists() {
            std::fs::copy(&real, &index)?;
        }
        let with_index = |args: &[&str], spec: &[std::ffi::OsString]| {
            let mut cmd = self.git();
            cmd.env("GIT_INDEX_FILE", &index).args(args).args(spec);
            run(cmd)
        };
        with_index(&["add", "--all"], &self.pathspec())?;
        let tree = with_index(&["write-tree"], &[])?.trim().to_string();
        if let Some(name) = keep {
            let mut cmd = self.git();
            cmd.args(["update-ref", &format!("refs/rein/{name}"), &tree]);
            run(cmd)?;
        }
        Ok(tree)
    }

    /// The workspace's files that differ between snapshots `a` and `b`.
    pub fn changed(&self, a: &str, b: &str) -> std::io::Result<Vec<PathBuf>> {
        let mut cmd = self.git();
        cmd.args(["diff-tree", "-r", "-z", "--no-renames", "--name-only", a, b])
            .args(self.pathspec());
        let out = run_bytes(cmd)?;
        Ok(out
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| self.top.join(bytes_path(p)))
            .collect())
    }

    /// Whether snapshot `tree` holds `path`.
    pub fn has(&self, tree: &str, path: &Path) -> std::io::Result<bool> {
        let relative = path.strip_prefix(&self.top).unwrap_or(path);
        let mut cmd = self.git();
        cmd.args(["ls-tree", "-z", "--name-only", tree, "--"])
            .arg(relative);
        Ok(!run_bytes(cmd)?.is_empty())
    }

    /// A file's contents and mode in snapshot `tree`: `Ok(None)` when it is not there,
    /// `Err` with the reason when it is there but not a regular file.
    pub fn file(&self, tree: &str, path: &Path) -> std::io::Result<Option<(Vec<u8>, u32)>> {
        let relative = path.strip_prefix(&self.top).unwrap_or(path);
        let mut cmd = self.git();
        cmd.args(["ls-tree", "-z", tree, "--"]).arg(relative);
        let listed = run_bytes(cmd)?;
        let Some(entry) = listed.split(|b| *b == 0).find(|e| !e.is_empty()) else {
            return Ok(None);
        };
        // `<mode> <type> <object>\t<path>`
        let head = String::from_utf8_lossy(entry.split(|b| *b == b'\t').next().unwrap_or(&[]))
            .into_owned();
        let mut fields = head.split(' ');
        let (mode, kind, object) = (fields.next(), fields.next(), fields.next());
        let mode = match (mode, kind) {
            (Some("100644"), Some("blob")) => 0o644,
            (Some("100755"), Some("blob")) => 0o755,
            (Some("120000"), _) => return Err(std::io::Error::other("a symbolic link")),
            _ => return Err(std::io::Error::other("not a regular file")),
        };
        let mut cmd = self.git();
        cmd.args(["cat-file", "blob", object.unwrap_or_default()]);
        Ok(Some((run_bytes(cmd)?, mode)))
    }

    /// Removes the refs under `refs/rein/<prefix>` (a session's snapshots).
    pub fn forget(&self, prefix: &str) -> std::io::Result<()> {
        let mut cmd = self.git();
        cmd.args([
            "for-each-ref",
            "--format=%(refname)",
            &format!("refs/rein/{prefix}"),
        ]);
        let deletes: String = run(cmd)?
            .lines()
            .map(|name| format!("delete {name}\n"))
            .collect();
        if deletes.is_empty() {
            return Ok(());
        }
        // One git for all of them: a long session has two refs per prompt.
        let mut child = self
            .git()
            .args(["update-ref", "--stdin"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()?;
        if let Some(mut stdin) = child.stdin.take() {
            std::io::Write::write_all(&mut stdin, deletes.as_bytes())?;
        }
        let out = child.wait_with_output()?;
        if out.status.success() {
            return Ok(());
        }
        Err(std::io::Error::other(format!(
            "git failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }

    fn git(&self) -> Command {
        git_in(&self.top)
    }
}

/// `git` run in `dir`, never asking anything, starting nothing the repository configures
/// (no fsmonitor, no hooks) and never collecting garbage.
fn git_in(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .args([
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "gc.auto=0",
            "-c",
            "maintenance.auto=false",
        ])
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .stdin(Stdio::null());
    cmd
}

fn run(cmd: Command) -> std::io::Result<String> {
    Ok(String::from_utf8_lossy(&run_bytes(cmd)?).into_owned())
}

fn run_bytes(mut cmd: Command) -> std::io::Result<Vec<u8>> {
    let out = cmd.output()?;
    if out.status.success() {
        return Ok(out.stdout);
    }
    Err(std::io::Error::other(format!(
        "git failed: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    )))
}

fn bytes_path(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(OsStr::from_bytes(bytes))
}
