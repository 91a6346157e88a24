//! Checkpoints: before a file tool changes a file, its previous state (bytes and mode, or its
//! absence) is kept in a content-addressed store of the session, keyed to the user turn and the
//! call; after the call, what rein left is noted, so a later restore can tell a file the user
//! changed since. Identical contents are stored once; the store has a size cap (past it, a
//! state is noted as not kept and cannot be restored). `undo` puts files back as they were
//! before a turn.
//!
//! Layout: `<dir>/index.jsonl` (one [`Entry`] per line, appended) and `<dir>/objects/ab/cdef…`
//! (contents by SHA-256), all private to the user. Snapshots of the whole work tree (for
//! what a shell command changed) go to a private git repository of rein's own beside the
//! stores ([`SNAPSHOTS`]), which reads nothing the workspace's repository carries but its
//! objects.
//!
//! The engine keeps one [`Checkpoints`] per session: [`Checkpoints::before`] and
//! [`Checkpoints::after`] around each file tool's call, [`Checkpoints::snapshot`] around a
//! turn, [`Checkpoints::plan`] and [`Checkpoints::apply`] for `rein undo` and `/rewind`.
#![deny(missing_docs)]

mod git;
mod reach;
mod restore;
mod walk;

use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use rein_fs::private::{create_private_dir_all, private_options};

pub use git::{GitTree, user_git};
#[cfg(test)]
use restore::PROMPT_CHARS;
pub use restore::{
    FileRestore, Restore, RestoreAction, RestoreOutcome, TurnChanges, UndoPlan, prompt_line,
};

/// The folder, beside the sessions' stores of one workspace, of the private git repository
/// holding that workspace's snapshots (shared by its sessions: identical files are stored
/// once). Its name starts with a dot, which no session id does.
pub const SNAPSHOTS: &str = ".snapshots";

/// The file in a session's store holding the index its snapshots are written through.
const SNAPSHOT_INDEX: &str = "snapshot-index";

/// Which side of a turn a work-tree snapshot is taken at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnEdge {
    /// Before the turn's first tool call: the tree as the turn found it.
    Start,
    /// After the turn's last tool call: the tree as the turn left it.
    End,
}

/// Default most bytes of contents one session's store keeps.
pub const DEFAULT_CAP_BYTES: u64 = 512 * 1024 * 1024;

/// A file's state at one moment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FileState {
    /// There was no file.
    Absent,
    /// A regular file: its contents (in the store) and permission bits.
    File {
        /// SHA-256 of the contents, hex.
        hash: String,
        /// Permission bits (`0o644`).
        mode: u32,
        /// Size in bytes.
        size: u64,
    },
    /// Something rein does not keep (a folder, a link, a device, a file over the cap…).
    Unkept {
        /// Why.
        reason: String,
    },
}

/// One line of the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Entry {
    /// A file's state before a call changed it.
    Before {
        /// The user turn (1 = the session's first prompt).
        turn: u32,
        /// The call's id.
        call: String,
        /// The file, absolute.
        path: PathBuf,
        /// Its state.
        state: FileState,
    },
    /// What the call left.
    After {
        /// The user turn.
        turn: u32,
        /// The call's id.
        call: String,
        /// The file, absolute.
        path: PathBuf,
        /// Its state.
        state: FileState,
    },
    /// A snapshot of the git work tree holding the workspace, at the start or the end of a
    /// turn (see [`GitTree`]).
    Snapshot {
        /// The user turn.
        turn: u32,
        /// Taken at its end (else at its start).
        end: bool,
        /// The snapshot: a tree object (equal trees: nothing changed).
        tree: String,
        /// The private repository holding the snapshot (an older rein wrote the work tree's
        /// top folder here, its snapshots being in the workspace's own repository).
        #[serde(default)]
        repo: PathBuf,
    },
    /// The files of these turns were put back as they were before them.
    Undone {
        /// The turns undone.
        turns: Vec<u32>,
    },
    /// A user turn began.
    Turn {
        /// Its number.
        turn: u32,
        /// The start of its prompt (one line, for lists).
        #[serde(default)]
        prompt: String,
    },
}

/// One session's checkpoints.
#[derive(Debug)]
pub struct Checkpoints {
    dir: PathBuf,
    cap: u64,
    state: Mutex<State>,
    /// The workspace whose git work tree is snapshotted each turn, if any.
    workspace: Option<PathBuf>,
    /// Its git work tree, looked up at the first snapshot.
    git: OnceLock<Option<GitTree>>,
}

#[derive(Debug, Default)]
struct State {
    /// The current user turn (0 before the first).
    turn: u32,
    /// Bytes of contents stored, counted at the first content kept (not at start-up).
    bytes: Option<u64>,
    /// The current turn's first snapshot.
    start_tree: Option<String>,
    /// A call that may change files ran in the current turn.
    changed: bool,
    /// The folders exist.
    made: bool,
}

impl Checkpoints {
    /// The store in `dir` (made, private, at the first change kept), keeping at most `cap`
    /// bytes of contents; a store already there is continued.
    pub fn open(dir: &Path, cap: u64) -> Self {
        let entries = read_index(dir);
        let turn = entries
            .iter()
            .filter_map(|e| match e {
                Entry::Before { turn, .. }
                | Entry::After { turn, .. }
                | Entry::Turn { turn, .. }
                | Entry::Snapshot { turn, .. } => Some(*turn),
                Entry::Undone { .. } => None,
            })
            .max()
            .unwrap_or(0);
        Self {
            dir: dir.to_path_buf(),
            cap,
            state: Mutex::new(State {
                turn,
                bytes: None,
                start_tree: None,
                changed: false,
                made: false,
            }),
            workspace: None,
            git: OnceLock::new(),
        }
    }

    /// Also snapshots the git work tree holding `workspace` at the start and end of each
    /// turn ([`Self::snapshot`]), so changes shell commands make can be taken back.
    pub fn with_workspace(mut self, workspace: &Path) -> Self {
        // Restores walk from it through descriptors, comparing with the recorded paths, which
        // the guard resolved.
        self.workspace = Some(
            workspace
                .canonicalize()
                .unwrap_or_else(|_| workspace.to_path_buf()),
        );
        self
    }

    /// The snapshots of the workspace; `None` outside a git work tree.
    pub fn git(&self) -> Option<&GitTree> {
        self.git
            .get_or_init(|| {
                let store = self.dir.parent()?.join(SNAPSHOTS);
                let index = self.dir.join(SNAPSHOT_INDEX);
                let git = GitTree::find(self.workspace.as_deref()?, &store, &index)?;
                // rein's data folder (`<data>/checkpoints/<key>/<id>`) is never snapshotted,
                // let alone restored, should it live inside the work tree.
                Some(match self.dir.ancestors().nth(3) {
                    Some(data) => git.excluding(data),
                    None => git,
                })
            })
            .as_ref()
    }

    /// In a git work tree, snapshots it for the current turn (at its [`TurnEdge::End`]: as
    /// the turn left it; at its [`TurnEdge::Start`]: as it was before), the snapshot kept by a
    /// private ref. Nothing outside git.
    pub fn snapshot(&self, edge: TurnEdge) -> std::io::Result<()> {
        let Some(git) = self.git() else {
            return Ok(());
        };
        let end = edge == TurnEdge::End;
        let turn = self.turn();
        let session = self
            .dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let unchanged = {
            let state = self.state();
            state.start_tree.clone().filter(|_| end && !state.changed)
        };
        let tree = match unchanged {
            // Nothing that could change a file ran: the turn left the tree it found.
            Some(tree) => tree,
            None => {
                let name = format!("{session}/{turn}-{}", if end { "end" } else { "start" });
                git.snapshot(Some(&name))?
            }
        };
        if !end {
            self.state().start_tree = Some(tree.clone());
        }
        self.append(&Entry::Snapshot {
            turn,
            end,
            tree,
            repo: git.store().to_path_buf(),
        })
    }

    /// A call that may change files is about to run (the turn's end is snapshotted then).
    pub fn note_change(&self) {
        self.state().changed = true;
    }

    /// The folder of the store.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts the next user turn, of `prompt`; its number. Every prompt of the session that
    /// reaches the model starts one, so turns count prompts (a rewind to the k-th prompt from
    /// the end undoes the turns from the k-th last on).
    pub fn begin_turn(&self, prompt: &str) -> std::io::Result<u32> {
        let turn = {
            let mut state = self.state();
            state.turn += 1;
            state.start_tree = None;
            state.changed = false;
            state.turn
        };
        self.append(&Entry::Turn {
            turn,
            prompt: prompt_line(prompt),
        })?;
        Ok(turn)
    }

    /// The current user turn.
    pub fn turn(&self) -> u32 {
        self.state().turn
    }

    /// Keeps the state of each of `paths` before call `call` changes them.
    pub fn before(&self, call: &str, paths: &[PathBuf]) -> std::io::Result<()> {
        self.note(call, paths, true)
    }

    /// Notes what call `call` left at each of `paths` (without keeping the contents).
    pub fn after(&self, call: &str, paths: &[PathBuf]) -> std::io::Result<()> {
        self.note(call, paths, false)
    }

    fn note(&self, call: &str, paths: &[PathBuf], before: bool) -> std::io::Result<()> {
        let turn = self.turn();
        for path in paths {
            let (call, path) = (call.to_string(), path.clone());
            let entry = if before {
                let state = self.capture(&path)?;
                Entry::Before {
                    turn,
                    call,
                    path,
                    state,
                }
            } else {
                let state = self.now(&path);
                Entry::After {
                    turn,
                    call,
                    path,
                    state,
                }
            };
            self.append(&entry)?;
        }
        Ok(())
    }

    /// Every entry of the index, in order (a torn or unknown line is skipped).
    pub fn entries(&self) -> Vec<Entry> {
        read_index(&self.dir)
    }

    /// `path`'s state, its contents stored (once per distinct contents, within the cap). The
    /// file is reached through descriptors: a folder swapped for a link since the guard
    /// resolved the path is not followed (what it leads to would be written back at undo).
    fn capture(&self, path: &Path) -> std::io::Result<FileState> {
        let found = match self.reach(path, reach::Target::Existing) {
            Ok(reach::Reached::Missing) => return Ok(FileState::Absent),
            Ok(reach::Reached::Found(found)) => found,
            Err(e) if reach::crosses_link(&e) => {
                return Ok(FileState::Unkept {
                    reason: "reached through a symbolic link".to_string(),
                });
            }
            Err(e) => return Err(e),
        };
        match found.look()? {
            Look::File(bytes, mode) => self.keep(&bytes, mode),
            Look::Other(state) => Ok(state),
        }
    }

    /// A regular file's state with `bytes` and `mode`, the bytes stored (once per distinct
    /// contents, within the cap).
    fn keep(&self, bytes: &[u8], mode: u32) -> std::io::Result<FileState> {
        let hash = hex(&Sha256::digest(bytes));
        let object = self.object(&hash);
        if !object.exists() {
            let mut state = self.state();
            let stored = *state
                .bytes
                .get_or_insert_with(|| rein_fs::private::tree_size(&self.dir.join("objects")));
            if stored + bytes.len() as u64 > self.cap {
                return Ok(FileState::Unkept {
                    reason: format!(
                        "the session's checkpoint store is full ({} MB)",
                        self.cap / (1024 * 1024)
                    ),
                });
            }
            if let Some(dir) = object.parent() {
                create_private_dir_all(dir)?;
            }
            rein_fs::write_atomic_private(&object, bytes)?;
            state.bytes = Some(stored + bytes.len() as u64);
        }
        Ok(FileState::File {
            hash,
            mode,
            size: bytes.len() as u64,
        })
    }

    /// Where contents with `hash` are stored.
    fn object(&self, hash: &str) -> PathBuf {
        let (head, tail) = hash.split_at(2.min(hash.len()));
        self.dir.join("objects").join(head).join(tail)
    }

    /// The stored contents with `hash`.
    pub(crate) fn contents(&self, hash: &str) -> std::io::Result<Vec<u8>> {
        std::fs::read(self.object(hash))
    }

    fn append(&self, entry: &Entry) -> std::io::Result<()> {
        {
            let mut state = self.state();
            if !state.made {
                create_private_dir_all(&self.dir.join("objects"))?;
                state.made = true;
            }
        }
        let mut line = serde_json::to_string(entry).map_err(std::io::Error::other)?;
        line.push('\n');
        let mut file = private_options()
            .create(true)
            .append(true)
            .open(self.dir.join("index.jsonl"))?;
        file.write_all(line.as_bytes())
    }
}

/// Removes the store in `dir` with the refs that keep its git snapshots; the bytes freed.
/// (Snapshots an older rein kept in the workspace's own repository are left there: no git is
/// run on a repository.)
pub fn remove(dir: &Path) -> u64 {
    let session = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Some(store) = dir.parent().map(|p| p.join(SNAPSHOTS))
        && store.is_dir()
        && !session.starts_with('.')
    {
        let _ = GitTree::stored(&store).forget(&format!("{session}/"));
    }
    let bytes = rein_fs::private::tree_size(dir);
    let _ = std::fs::remove_dir_all(dir);
    bytes
}

fn read_index(dir: &Path) -> Vec<Entry> {
    std::fs::read_to_string(dir.join("index.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// What is at a path: a regular file's contents and permission bits, or the state of
/// anything else.
enum Look {
    File(Vec<u8>, u32),
    Other(FileState),
}

fn look(path: &Path) -> std::io::Result<Look> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Look::Other(FileState::Absent)),
        Err(e) => Err(e),
        Ok(meta) if meta.is_file() => Ok(Look::File(std::fs::read(path)?, meta.mode() & 0o7777)),
        Ok(meta) => Ok(Look::Other(FileState::Unkept {
            reason: if meta.is_dir() {
                "a folder".to_string()
            } else if meta.file_type().is_symlink() {
                "a symbolic link".to_string()
            } else {
                "not a regular file".to_string()
            },
        })),
    }
}

/// `path`'s state without storing anything (the hash of a regular file's contents).
pub fn observe(path: &Path) -> std::io::Result<FileState> {
    Ok(match look(path)? {
        Look::File(bytes, mode) => FileState::File {
            hash: hex(&Sha256::digest(&bytes)),
            mode,
            size: bytes.len() as u64,
        },
        Look::Other(state) => state,
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
