//! Snapshots of a workspace that lives in a git work tree, so changes shell commands made can
//! be taken back too. The files are written as a tree object into a **private repository of
//! rein's own** (under its data folder, one per workspace, see [`super::SNAPSHOTS`]), through
//! an index of the session's own; the tree is kept alive by a ref there (`refs/rein/…`).
//!
//! Nothing the workspace's repository carries is read or run: rein lists the files itself
//! (gitignore rules honoured, `.git` entries and nested repositories' git folders skipped) and
//! hands git the paths; git runs with the private repository as `GIT_DIR`, no system, global or
//! repository config, no attributes (`attr.tree` names the empty tree, no attributes file), no
//! hooks, no fsmonitor, no garbage collection. So a hostile `.git/config` (filters, fsmonitor,
//! includes, `core.worktree`), a `.git` file pointing elsewhere, a `commondir`, a parent
//! checkout's config, or a nested repository's, can neither run code nor break a snapshot; and
//! the user's repository gets no object, no ref, no index change (git may refresh the time
//! stamp of an object it found there, which only delays its expiry).
//!
//! The repository's object folder is read as an *alternate* (objects only, never written): a
//! file as committed is not stored a second time, so the first snapshot of a large tree hashes
//! it but writes little. An object read back for a restore is hashed again and refused if it
//! does not match its id, so a doctored object in the repository cannot change what an undo
//! writes.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::SystemTime;

use super::walk::SETTLED;
use rein_fs::FileStamp;

/// The id of git's empty tree (SHA-1): attributes are read from it, so none apply.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// The configuration every git rein starts for its snapshots gets on its command line, on top
/// of no config file at all.
const CONFIG: &[&str] = &[
    "core.attributesFile=/dev/null",
    "core.excludesFile=/dev/null",
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "core.splitIndex=false",
    "core.bare=false",
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.symlinks=true",
    "core.fileMode=true",
    "core.ignoreCase=false",
    "core.precomposeUnicode=false",
    "core.looseCompression=1",
    // A smaller index (path prefixes shared), not hashed as a whole at every write: each git
    // of a snapshot reads and most write it.
    "index.version=4",
    "index.skipHash=true",
    "gc.auto=0",
    "maintenance.auto=false",
    "advice.addEmbeddedRepo=false",
];

/// A workspace in a git work tree, and where its snapshots are kept.
#[derive(Debug)]
pub struct GitTree {
    /// rein's private repository for this workspace's snapshots.
    store: PathBuf,
    /// The session's index: git's record of what it last saw of each file (stat data and
    /// object), so unchanged files are not read again.
    index: PathBuf,
    /// The workspace: the work tree of the snapshots.
    workspace: PathBuf,
    /// The object folder of the repository holding the workspace, read as an alternate.
    objects: Option<PathBuf>,
    /// Folders inside it the snapshots leave out (rein's own data).
    excluded: Vec<PathBuf>,
    /// What the last snapshot saw (`None` before the first).
    known: Mutex<Option<Known>>,
}

/// The files a snapshot found, with their stamps, and when its walk began: the index holds
/// exactly those paths after it. (Read from the index before a first snapshot, the stamps
/// are unknown.)
#[derive(Debug)]
struct Known {
    stamps: HashMap<Vec<u8>, Option<FileStamp>>,
    started: SystemTime,
}

impl GitTree {
    /// Snapshots of `workspace` kept in the private repository `store` through the index file
    /// `index`; `None` when the workspace is not in a git work tree (no `.git` in it or a
    /// folder above: most folders are not, and a tree outside git may be a whole home folder).
    pub fn find(workspace: &Path, store: &Path, index: &Path) -> Option<Self> {
        let dot_git = workspace
            .ancestors()
            .map(|dir| dir.join(".git"))
            .find(|git| is_repository(git))?;
        Some(Self {
            store: store.to_path_buf(),
            index: index.to_path_buf(),
            workspace: workspace.to_path_buf(),
            objects: object_folder(&dot_git),
            excluded: Vec::new(),
            known: Mutex::new(None),
        })
    }

    /// The snapshots kept in `store`, for reading and forgetting them only.
    pub(super) fn stored(store: &Path) -> Self {
        Self {
            store: store.to_path_buf(),
            index: store.join("index"),
            workspace: store.to_path_buf(),
            objects: None,
            excluded: Vec::new(),
            known: Mutex::new(None),
        }
    }

    /// Leaves `folder` out of the snapshots.
    pub fn excluding(mut self, folder: &Path) -> Self {
        let folder = folder
            .canonicalize()
            .unwrap_or_else(|_| folder.to_path_buf());
        self.excluded.push(folder);
        self
    }

    /// The workspace (paths in the snapshots are relative to it).
    pub fn top(&self) -> &Path {
        &self.workspace
    }

    /// The private repository holding the snapshots.
    pub fn store(&self) -> &Path {
        &self.store
    }

    /// Writes the workspace's files as they are now (not the ignored ones) as a tree object
    /// and, with `keep`, points the ref `keep` (under `refs/rein/`) at it, so it stays; the
    /// tree's id. (A tree, not a commit: nothing reads a snapshot's history.)
    pub fn snapshot(&self, keep: Option<&str>) -> std::io::Result<String> {
        self.init()?;
        if !self.index.exists() {
            // Another session's index as a start: its stat data saves re-reading files.
            let _ = copy_keeping_mtime(&self.store.join("index"), &self.index);
        }
        let started = SystemTime::now();
        let files = super::walk::files(&self.workspace, &self.excluded);
        let mut known = self.known.lock().unwrap_or_else(|p| p.into_inner());
        let first = known.is_none();
        let last = match known.take() {
            Some(last) => last,
            None => self.indexed()?,
        };
        let found: HashMap<Vec<u8>, Option<FileStamp>> = files
            .iter()
            .map(|(p, stamp)| (p.as_os_str().as_bytes().to_vec(), Some(*stamp)))
            .collect();
        // What the index holds and the walk did not find is gone: dropped from the index
        // without looking at the work tree (a folder of it may be a symlink now).
        let gone: Vec<&Vec<u8>> = last
            .stamps
            .keys()
            .filter(|p| !found.contains_key(*p))
            .collect();
        if !gone.is_empty() {
            let update = self.git_with(&["update-index", "--force-remove", "-z", "--stdin"]);
            run_with_input(update, &nul_list(gone))?;
        }
        // Git reads (and its stat data spares re-hashing) only the files that may have
        // changed since the last snapshot: every one at the first.
        let listed = files.iter().filter(|(path, stamp)| {
            last.stamps.get(path.as_os_str().as_bytes()) != Some(&Some(*stamp))
                || !stamp.modified_before(last.started, SETTLED)
        });
        let listed = nul_list(listed.map(|(path, _)| path.as_os_str().as_bytes()));
        if !listed.is_empty() {
            let update = self.git_with(&[
                "update-index",
                "--add",
                "--remove",
                "--replace",
                "-z",
                "--stdin",
            ]);
            run_with_input(update, &listed)?;
        }
        // Every object was written or found when its file was added: not looked up again.
        let tree = run(self.git_with(&["write-tree", "--missing-ok"]))?
            .trim()
            .to_string();
        *known = Some(Known {
            stamps: found,
            started,
        });
        drop(known);
        if let Some(name) = keep {
            self.keep(name, &tree)?;
        }
        // The next session starts from this one's stat data (its first snapshot's: later ones
        // change a few files, which the next session reads again at worst).
        if first {
            let _ = copy_keeping_mtime(&self.index, &self.store.join("index"));
        }
        Ok(tree)
    }

    /// The paths the session's index holds (`ls-files`), stamps unknown, before the first
    /// snapshot of this object (later, the last one's files: only this object writes the
    /// index).
    fn indexed(&self) -> std::io::Result<Known> {
        let listed = run_bytes(self.git_with(&["ls-files", "-z"]))?;
        Ok(Known {
            stamps: listed
                .split(|b| *b == 0)
                .filter(|p| !p.is_empty())
                .map(|p| (p.to_vec(), None))
                .collect(),
            started: SystemTime::UNIX_EPOCH,
        })
    }

    /// Makes the private repository if it is not there yet.
    fn init(&self) -> std::io::Result<()> {
        if self.store.join("HEAD").exists() {
            return Ok(());
        }
        rein_fs::private::create_private_dir_all(&self.store)?;
        let mut cmd = self.git();
        cmd.env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .args(["init", "-q", "--bare", "--template="])
            .arg(&self.store);
        run(cmd).map(drop)
    }

    /// Points `refs/rein/<name>` at `tree`: a loose ref file of the private repository,
    /// written directly (one git started fewer per snapshot).
    fn keep(&self, name: &str, tree: &str) -> std::io::Result<()> {
        let path = self.store.join("refs/rein").join(name);
        if let Some(dir) = path.parent() {
            rein_fs::private::create_private_dir_all(dir)?;
        }
        rein_fs::write_atomic_private(&path, format!("{tree}\n").as_bytes())
    }

    /// The workspace's files that differ between snapshots `a` and `b`.
    pub fn changed(&self, a: &str, b: &str) -> std::io::Result<Vec<PathBuf>> {
        let cmd = self.git_with(&["diff-tree", "-r", "-z", "--no-renames", "--name-only", a, b]);
        let out = run_bytes(cmd)?;
        Ok(out
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| self.workspace.join(OsStr::from_bytes(p)))
            .collect())
    }

    /// Whether snapshot `tree` holds `path`.
    pub fn has(&self, tree: &str, path: &Path) -> std::io::Result<bool> {
        let mut cmd = self.git_with(&["ls-tree", "-z", "--name-only", tree, "--"]);
        cmd.arg(self.relative(path));
        Ok(!run_bytes(cmd)?.is_empty())
    }

    /// A file's contents and mode in snapshot `tree`: `Ok(None)` when it is not there,
    /// `Err` with the reason when it is there but not a regular file.
    pub fn file(&self, tree: &str, path: &Path) -> std::io::Result<Option<(Vec<u8>, u32)>> {
        let mut cmd = self.git_with(&["ls-tree", "-z", tree, "--"]);
        cmd.arg(self.relative(path));
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
        let object = object.unwrap_or_default();
        let bytes = run_bytes(self.git_with(&["cat-file", "blob", object]))?;
        if blob_id(&bytes) != object {
            return Err(std::io::Error::other(
                "its stored contents do not match their id (a doctored object)",
            ));
        }
        Ok(Some((bytes, mode)))
    }

    /// Removes the refs under `refs/rein/<prefix>` (a session's snapshots): their files in the
    /// private repository. When no snapshot is kept any more, the repository goes too.
    pub fn forget(&self, prefix: &str) -> std::io::Result<()> {
        let refs = self.store.join("refs/rein");
        let target = refs.join(prefix.trim_end_matches('/'));
        match std::fs::remove_dir_all(&target) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let kept = std::fs::read_dir(&refs).is_ok_and(|mut e| e.next().is_some());
        if !kept && self.store.join("HEAD").exists() {
            std::fs::remove_dir_all(&self.store)?;
        }
        Ok(())
    }

    /// The repository's object folder as git's alternates variable wants it (empty for none:
    /// a path with the list separator in it is not given).
    fn alternate(&self) -> OsString {
        self.objects
            .as_deref()
            .filter(|p| !p.as_os_str().as_bytes().contains(&b':'))
            .map(|p| p.as_os_str().to_os_string())
            .unwrap_or_default()
    }

    fn relative<'a>(&self, path: &'a Path) -> &'a Path {
        path.strip_prefix(&self.workspace).unwrap_or(path)
    }

    fn git_with(&self, args: &[&str]) -> Command {
        let mut cmd = self.git();
        cmd.args(args);
        cmd
    }

    /// `git` on the private repository with the workspace as its work tree, reading no config
    /// but [`CONFIG`], asking nothing, with every `GIT_*` variable of rein's environment
    /// removed (they could point it elsewhere).
    #[allow(clippy::disallowed_methods)] // rein's own git, with the user's git environment cleared: its snapshot repository is private
    fn git(&self) -> Command {
        let mut cmd = Command::new("git");
        for (name, _) in std::env::vars_os() {
            if name.as_bytes().starts_with(b"GIT_") {
                cmd.env_remove(name);
            }
        }
        for setting in CONFIG {
            cmd.arg("-c").arg(setting);
        }
        cmd.arg("-c").arg(format!("attr.tree={EMPTY_TREE}"));
        let xdg: OsString = self.store.join("no-config").into_os_string();
        cmd.current_dir(&self.workspace)
            .env("GIT_DIR", &self.store)
            .env("GIT_WORK_TREE", &self.workspace)
            .env("GIT_INDEX_FILE", &self.index)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_ATTR_NOSYSTEM", "1")
            .env("GIT_NO_REPLACE_OBJECTS", "1")
            .env("GIT_ALTERNATE_OBJECT_DIRECTORIES", self.alternate())
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("GIT_TERMINAL_PROMPT", "0")
            // A git older than `GIT_CONFIG_GLOBAL` finds no `~/.gitconfig` here either.
            .env("HOME", &xdg)
            .env("XDG_CONFIG_HOME", &xdg)
            .stdin(Stdio::null());
        cmd
    }
}

/// Whether `dot_git` is a repository's `.git` entry: a file (`gitdir: …`) or a folder with a
/// `HEAD`. The sandbox binds an empty read-only `.git` folder at the root of a workspace that
/// is in no repository (so no command can make one): that is not a work tree to snapshot.
fn is_repository(dot_git: &Path) -> bool {
    match dot_git.symlink_metadata() {
        Ok(meta) if meta.is_dir() => dot_git.join("HEAD").symlink_metadata().is_ok(),
        Ok(_) => true,
        Err(_) => false,
    }
}

/// The object folder of the repository whose `.git` entry is `dot_git`: its `objects` when a
/// folder; for a `.git` file (a linked worktree or a submodule), the folder its `gitdir:` line
/// names, or for a worktree (`…/.git/worktrees/<name>`) the main repository's. Nothing else of
/// the repository is read: not its config, not `commondir`.
fn object_folder(dot_git: &Path) -> Option<PathBuf> {
    let meta = dot_git.symlink_metadata().ok()?;
    let git_dir = if meta.is_dir() {
        dot_git.to_path_buf()
    } else if meta.is_file() && meta.len() < 4096 {
        let text = std::fs::read_to_string(dot_git).ok()?;
        let named = Path::new(text.lines().next()?.strip_prefix("gitdir:")?.trim());
        let git_dir = dot_git.parent()?.join(named);
        match git_dir.parent() {
            Some(list) if list.file_name().is_some_and(|n| n == "worktrees") => {
                list.parent()?.to_path_buf()
            }
            _ => git_dir,
        }
    } else {
        return None;
    };
    let objects = git_dir.join("objects");
    objects.is_dir().then_some(objects)
}

/// The git (SHA-1) id of a blob holding `bytes`.
fn blob_id(bytes: &[u8]) -> String {
    use sha1::{Digest, Sha1};
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {}\0", bytes.len()).as_bytes());
    hasher.update(bytes);
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `paths`, each ended by a NUL byte (git's `-z --stdin`).
fn nul_list<P: AsRef<[u8]>>(paths: impl IntoIterator<Item = P>) -> Vec<u8> {
    let mut list = Vec::new();
    for path in paths {
        list.extend_from_slice(path.as_ref());
        list.push(0);
    }
    list
}

/// Copies `from` to `to` (through a temp file and a rename) with `from`'s modification time:
/// git trusts an index entry only when the file is older than the index, so a copy must not
/// look newer than what it copies.
fn copy_keeping_mtime(from: &Path, to: &Path) -> std::io::Result<()> {
    let bytes = std::fs::read(from)?;
    let modified = std::fs::metadata(from)?.modified()?;
    rein_fs::write_atomic_private(to, &bytes)?;
    std::fs::File::options()
        .write(true)
        .open(to)?
        .set_modified(modified)
}

fn run(cmd: Command) -> std::io::Result<String> {
    Ok(String::from_utf8_lossy(&run_bytes(cmd)?).into_owned())
}

fn run_bytes(mut cmd: Command) -> std::io::Result<Vec<u8>> {
    let out = cmd.stderr(Stdio::piped()).output()?;
    check(out)
}

fn run_with_input(mut cmd: Command, input: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdin = child.stdin.take();
    // Written from a thread: git may fill its output pipe before it has read all the paths.
    let writer = std::thread::scope(|scope| {
        let writer = scope.spawn(move || -> std::io::Result<()> {
            if let Some(mut stdin) = stdin {
                stdin.write_all(input)?;
            }
            Ok(())
        });
        let out = child.wait_with_output();
        (writer.join(), out)
    });
    match writer {
        (Ok(Ok(())), out) => check(out?),
        (Ok(Err(e)), _) => Err(e),
        (Err(_), _) => Err(std::io::Error::other("writing to git failed")),
    }
}

fn check(out: std::process::Output) -> std::io::Result<Vec<u8>> {
    if out.status.success() {
        return Ok(out.stdout);
    }
    Err(std::io::Error::other(format!(
        "git failed: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    )))
}

/// `git -C dir` on the user's repository there: its own configuration applies, nothing is
/// asked, and every `GIT_*` variable of rein's environment is removed (`GIT_DIR`,
/// `GIT_WORK_TREE`, `GIT_INDEX_FILE`… set by a git hook or an editor's terminal would point it
/// at another repository). The one runner of rein's git on a user's repository (worktrees,
/// `rein eval`'s clones, `rein doctor`).
#[allow(clippy::disallowed_methods)] // the home of rein's git on a user's repository: GIT_* cleared here
pub fn user_git(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    for (name, _) in std::env::vars_os() {
        if name.as_bytes().starts_with(b"GIT_") {
            cmd.env_remove(name);
        }
    }
    cmd.arg("-C").arg(dir).env("GIT_TERMINAL_PROMPT", "0");
    cmd
}
