//! Putting files back as they were before some user turns: a plan first (what each file would
//! become, and whether the user changed it since rein wrote it), then the restore, recorded in
//! the index so the same turns are not undone twice.
//!
//! Files are looked at, written and removed through descriptors ([`super::reach`]): from the
//! workspace (or `/` for a path outside it) one folder after another, following no symlink,
//! then `openat`/`renameat`/`unlinkat` in the folder reached. A path on which a folder has been
//! replaced by a symlink since rein wrote it (by the user, another program, or a command the
//! model ran) is reported and left alone, forced or not: undo never writes or deletes outside
//! through a link.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::reach::{Reached, Target};
use super::{Checkpoints, Entry, FileState};

/// What a restore does with a file changed since rein wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restore {
    /// Restore it anyway (`--force`).
    Force,
    /// Keep it as it is and say so.
    KeepChanged,
}

impl From<bool> for Restore {
    /// A `--force` flag: `true` forces.
    fn from(force: bool) -> Self {
        if force {
            Self::Force
        } else {
            Self::KeepChanged
        }
    }
}

/// A user turn that changed files (through file tools, or as its git snapshots show).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnChanges {
    /// The turn.
    pub turn: u32,
    /// Already undone.
    pub undone: bool,
}

/// What a restore does to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestoreAction {
    /// Its earlier contents (and mode) are written back.
    Rewrite,
    /// It was deleted since: it is made again.
    Recreate,
    /// It did not exist before: it is removed.
    Delete,
    /// It is already as it was.
    Unchanged,
    /// Its earlier state was not kept (why).
    Unkept(String),
}

/// One file of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRestore {
    /// The file.
    pub path: PathBuf,
    /// What is done.
    pub action: RestoreAction,
    /// The file is not as rein left it: the user (or a command) changed it since.
    pub changed_since: bool,
    /// The state it is put back to.
    pub target: FileState,
}

/// A restore, before it is carried out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoPlan {
    /// The turns it undoes.
    pub turns: Vec<u32>,
    /// Each file they changed, in path order.
    pub files: Vec<FileRestore>,
    /// What the plan cannot cover (shell changes outside git, a snapshot that failed).
    pub notes: Vec<String>,
}

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestoreOutcome {
    /// Written back (or made again).
    Restored(PathBuf),
    /// Removed (rein had created it).
    Deleted(PathBuf),
    /// Left as it is: changed since rein wrote it (restored only when forced).
    ChangedSince(PathBuf),
    /// Left as it is: its earlier state was not kept (why).
    Kept(PathBuf, String),
    /// The restore failed.
    Failed(PathBuf, String),
}

/// Longest prompt start kept in a `Turn` entry, in characters.
pub(crate) const PROMPT_CHARS: usize = 120;

/// How a turn's prompt is kept ([`Checkpoints::prompts`]): its first non-empty line, trimmed,
/// cut at `PROMPT_CHARS` characters. A prompt of the transcript is matched to its turn by it.
pub fn prompt_line(prompt: &str) -> String {
    let mut line = prompt
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string();
    if let Some((cut, _)) = line.char_indices().nth(PROMPT_CHARS) {
        line.truncate(cut);
        line.push('…');
    }
    line
}

impl Checkpoints {
    /// The prompt of each turn that changed files (its start).
    pub fn prompts(&self) -> BTreeMap<u32, String> {
        self.entries()
            .into_iter()
            .filter_map(|e| match e {
                Entry::Turn { turn, prompt } => Some((turn, prompt)),
                _ => None,
            })
            .collect()
    }

    /// The turns whose calls changed files, oldest first: a file tool's call (see
    /// [`Checkpoints::files_changed`]) or a shell command the git snapshots saw.
    pub fn turns(&self) -> Vec<TurnChanges> {
        let entries = self.entries();
        let mut changed: BTreeSet<u32> = file_changes(&entries).into_keys().collect();
        let mut trees: BTreeMap<u32, [Option<String>; 2]> = BTreeMap::new();
        let mut undone = Vec::new();
        for entry in entries {
            match entry {
                Entry::Snapshot {
                    turn, end, tree, ..
                } => trees.entry(turn).or_default()[usize::from(end)] = Some(tree),
                Entry::Undone { turns } => undone.extend(turns),
                Entry::Before { .. } | Entry::After { .. } | Entry::Turn { .. } => {}
            }
        }
        changed.extend(trees.into_iter().filter_map(|(turn, [start, end])| {
            matches!((start, end), (Some(start), Some(end)) if start != end).then_some(turn)
        }));
        changed
            .into_iter()
            .map(|turn| TurnChanges {
                turn,
                undone: undone.contains(&turn),
            })
            .collect()
    }

    /// The files the file tools' calls of `turn` changed: a call changed a file when what it
    /// left differs from what it found (a call that failed or was refused left it as it
    /// was), or when what it left was not noted (a crash mid-call).
    pub fn files_changed(&self, turn: u32) -> Vec<PathBuf> {
        file_changes(&self.entries())
            .remove(&turn)
            .map(|files| files.into_iter().collect())
            .unwrap_or_default()
    }

    /// The last `count` turns that changed files and are not undone yet, oldest first.
    pub fn last_turns(&self, count: usize) -> Vec<u32> {
        let open: Vec<u32> = self
            .turns()
            .into_iter()
            .filter(|t| !t.undone)
            .map(|t| t.turn)
            .collect();
        open[open.len().saturating_sub(count)..].to_vec()
    }

    /// What undoing `turns` would do to each file they changed: each goes back to its state
    /// before the earliest of them.
    pub fn plan(&self, turns: &[u32]) -> UndoPlan {
        let entries = self.entries();
        let mut target: BTreeMap<PathBuf, FileState> = BTreeMap::new();
        let mut left: BTreeMap<PathBuf, FileState> = BTreeMap::new();
        for entry in &entries {
            match entry {
                Entry::Before {
                    turn, path, state, ..
                } if turns.contains(turn) => {
                    target.entry(path.clone()).or_insert_with(|| state.clone());
                }
                Entry::After {
                    turn, path, state, ..
                } if turns.contains(turn) => {
                    left.insert(path.clone(), state.clone());
                }
                _ => {}
            }
        }
        let mut files: Vec<FileRestore> = target
            .into_iter()
            .map(|(path, target)| {
                // Without a note of what rein left (a crash mid-call), it may not be rein's.
                let changed_since = left.get(&path).is_none_or(|left| *left != self.now(&path));
                self.restore_of(path, target, changed_since)
            })
            .collect();
        let mut notes = Vec::new();
        match self.git() {
            None => notes.push(
                "changes made by shell commands are not covered: the workspace is not in a git \
                 work tree"
                    .to_string(),
            ),
            Some(git) => {
                if let Err(e) = self.plan_tree(git, &entries, turns, &mut files) {
                    notes.push(format!(
                        "changes made by shell commands are not covered: {e}"
                    ));
                }
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        UndoPlan {
            turns: turns.to_vec(),
            files,
            notes,
        }
    }

    /// Adds to `files` the other files the git snapshots show `turns` changed: each goes back
    /// to the snapshot at the start of the earliest; one changed since the end of the latest
    /// is marked so. A file-tool file the snapshots hold is judged by them too: what a command
    /// of the same turn did to it after the tool (`chmod +x`) is rein's, not the user's.
    fn plan_tree(
        &self,
        git: &super::GitTree,
        entries: &[Entry],
        turns: &[u32],
        files: &mut Vec<FileRestore>,
    ) -> std::io::Result<()> {
        let (first, last) = match (turns.iter().min(), turns.iter().max()) {
            (Some(first), Some(last)) => (*first, *last),
            _ => return Ok(()),
        };
        let (mut start, mut end) = (None, None);
        for entry in entries {
            if let Entry::Snapshot {
                turn,
                end: at_end,
                tree,
                repo,
            } = entry
            {
                let wanted = if *at_end { last } else { first };
                if *turn != wanted {
                    continue;
                }
                if repo != git.store() {
                    return Err(std::io::Error::other(
                        "those turns were snapshotted by an older rein, in the workspace's own \
                         repository, which rein no longer runs git on",
                    ));
                }
                *(if *at_end { &mut end } else { &mut start }) = Some(tree.as_str());
            }
        }
        let (Some(start), Some(end)) = (start, end) else {
            return Err(std::io::Error::other(
                "no snapshot of the work tree for those turns",
            ));
        };
        let now = git.snapshot(None)?;
        let since = git.changed(end, &now)?;
        for file in files.iter_mut().filter(|f| f.changed_since) {
            if !since.contains(&file.path)
                && (git.has(end, &file.path)? || git.has(&now, &file.path)?)
            {
                file.changed_since = false;
            }
        }
        for path in git.changed(start, end)? {
            if files.iter().any(|f| f.path == path) {
                continue;
            }
            let target = match git.file(start, &path) {
                Ok(None) => FileState::Absent,
                Ok(Some((bytes, mode))) => self.keep(&bytes, mode)?,
                Err(e) => FileState::Unkept {
                    reason: e.to_string(),
                },
            };
            let changed_since = since.contains(&path);
            files.push(self.restore_of(path, target, changed_since));
        }
        Ok(())
    }

    /// Carries out `plan`; a file changed since rein wrote it is kept unless
    /// [`Restore::Force`]. The turns are recorded as undone unless such a file was kept (a
    /// forced undo may follow).
    pub fn apply(&self, plan: &UndoPlan, restore: Restore) -> std::io::Result<Vec<RestoreOutcome>> {
        let force = restore == Restore::Force;
        let mut outcomes = Vec::new();
        for file in &plan.files {
            let path = file.path.clone();
            // A file that cannot be restored says why, not that forcing would restore it.
            let restorable = !matches!(
                file.action,
                RestoreAction::Unchanged | RestoreAction::Unkept(_)
            );
            if file.changed_since && !force && restorable {
                outcomes.push(RestoreOutcome::ChangedSince(path));
                continue;
            }
            outcomes.push(match &file.action {
                RestoreAction::Unchanged => continue,
                RestoreAction::Unkept(why) => RestoreOutcome::Kept(path, why.clone()),
                RestoreAction::Delete => match self.remove(&path) {
                    Ok(()) => RestoreOutcome::Deleted(path),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                    Err(e) => RestoreOutcome::Failed(path, e.to_string()),
                },
                RestoreAction::Rewrite | RestoreAction::Recreate => {
                    match self.write_back(&path, &file.target) {
                        Ok(()) => RestoreOutcome::Restored(path),
                        Err(e) => RestoreOutcome::Failed(path, e.to_string()),
                    }
                }
            });
        }
        if !outcomes
            .iter()
            .any(|o| matches!(o, RestoreOutcome::ChangedSince(_)))
        {
            self.append(&Entry::Undone {
                turns: plan.turns.clone(),
            })?;
        }
        Ok(outcomes)
    }

    /// Lines a restore of `file` adds and removes (`None` for a file that is not text).
    pub fn diff_stat(&self, file: &FileRestore) -> Option<(usize, usize)> {
        let now = match self.reach(&file.path, Target::Existing).ok()? {
            Reached::Missing => Vec::new(),
            Reached::Found(found) => found.read().ok()?,
        };
        let target = match &file.target {
            FileState::File { hash, .. } => self.contents(hash).ok()?,
            FileState::Absent => Vec::new(),
            FileState::Unkept { .. } => return None,
        };
        let (now, target) = (
            std::str::from_utf8(&now).ok()?,
            std::str::from_utf8(&target).ok()?,
        );
        let diff = similar::TextDiff::from_lines(now, target);
        let (mut added, mut removed) = (0, 0);
        for change in diff.iter_all_changes() {
            match change.tag() {
                similar::ChangeTag::Insert => added += 1,
                similar::ChangeTag::Delete => removed += 1,
                similar::ChangeTag::Equal => {}
            }
        }
        Some((added, removed))
    }

    fn write_back(&self, path: &Path, state: &FileState) -> std::io::Result<()> {
        let FileState::File { hash, mode, .. } = state else {
            return Err(std::io::Error::other("nothing kept to write back"));
        };
        let bytes = self.contents(hash)?;
        self.reach(path, Target::Creating)?
            .found()?
            .write(&bytes, *mode)
    }

    /// Removes the file at `path`, in the folder reached through descriptors.
    fn remove(&self, path: &Path) -> std::io::Result<()> {
        match self.reach(path, Target::Existing)? {
            Reached::Missing => Err(std::io::ErrorKind::NotFound.into()),
            Reached::Found(found) => found.remove(),
        }
    }

    /// What is at `path` now, reached through descriptors; a path that now crosses a
    /// symlink, or cannot be read, is a state nothing equals.
    pub(super) fn now(&self, path: &Path) -> FileState {
        state_of(self.reach(path, Target::Existing))
    }

    fn restore_of(&self, path: PathBuf, target: FileState, changed_since: bool) -> FileRestore {
        let action = match self.reach(&path, Target::Existing) {
            Err(e) if super::reach::crosses_link(&e) => RestoreAction::Unkept(
                "a folder on its path is now a symbolic link, which undo does not follow (it \
                 may lead outside the workspace); left alone"
                    .to_string(),
            ),
            reached => action(&target, &state_of(reached)),
        };
        FileRestore {
            path,
            action,
            changed_since,
            target,
        }
    }
}

/// The state of what a restore reached; one it could not reach or read is a state nothing
/// equals.
fn state_of(reached: std::io::Result<Reached>) -> FileState {
    let unreadable = |e: std::io::Error| FileState::Unkept {
        reason: e.to_string(),
    };
    match reached {
        Ok(Reached::Missing) => FileState::Absent,
        Ok(Reached::Found(found)) => found.state().unwrap_or_else(unreadable),
        Err(e) => unreadable(e),
    }
}

fn action(target: &FileState, now: &FileState) -> RestoreAction {
    match (target, now) {
        (FileState::Unkept { reason }, _) => RestoreAction::Unkept(reason.clone()),
        (FileState::Absent, FileState::Absent) => RestoreAction::Unchanged,
        (FileState::Absent, _) => RestoreAction::Delete,
        (FileState::File { .. }, FileState::Absent) => RestoreAction::Recreate,
        (target, now) if target == now => RestoreAction::Unchanged,
        (FileState::File { .. }, _) => RestoreAction::Rewrite,
    }
}

/// The files each turn's file-tool calls changed (see [`Checkpoints::files_changed`]).
fn file_changes(entries: &[Entry]) -> BTreeMap<u32, BTreeSet<PathBuf>> {
    type Key<'a> = (u32, &'a str, &'a Path);
    let mut found: BTreeMap<Key<'_>, &FileState> = BTreeMap::new();
    let mut left: BTreeMap<Key<'_>, &FileState> = BTreeMap::new();
    for entry in entries {
        match entry {
            Entry::Before {
                turn,
                call,
                path,
                state,
            } => {
                found.entry((*turn, call, path)).or_insert(state);
            }
            Entry::After {
                turn,
                call,
                path,
                state,
            } => {
                left.insert((*turn, call, path), state);
            }
            _ => {}
        }
    }
    let mut changed: BTreeMap<u32, BTreeSet<PathBuf>> = BTreeMap::new();
    for (key, before) in &found {
        if left.get(key).is_none_or(|after| after != before) {
            changed
                .entry(key.0)
                .or_default()
                .insert(key.2.to_path_buf());
        }
    }
    changed
}
