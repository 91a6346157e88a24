//! The task board: one session's tasks, shared by its main agent, subagents and teammates.
//!
//! A task has Claude Code's fields ([`BoardTask`]); ids count from `"1"` per board and are
//! never reused. Dependencies are kept on both ends (`blocks` and `blockedBy`), a cycle is
//! refused, and a task may only start or complete once every task it is blocked by is
//! completed. A task is *ready* when it is pending, unowned and unblocked; [`Board::claim`]
//! hands the first ready task to an agent atomically, so two agents never hold one task.
//!
//! A board with a folder keeps one private (`0600`) JSON file per task plus `index.json`, each
//! replaced atomically, and every change is made under an exclusive `flock` on `.lock` after
//! re-reading what another process may have written. A change is on disk before its call
//! returns, so a process killed in the middle of a team loses no completed update.

mod graph;
mod store;
mod todos;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use rein_protocol::{BoardTask, TaskStatus};
use serde_json::{Map, Value};

use store::Store;

/// Most tasks one board holds.
pub const MAX_TASKS: usize = 10_000;
/// Longest subject, in characters.
pub const MAX_SUBJECT: usize = 500;
/// Longest description, in bytes.
pub const MAX_DESCRIPTION: usize = 64 * 1024;

/// Why a board operation was refused; each message says what to do instead.
#[derive(Debug, thiserror::Error)]
pub enum BoardError {
    /// No task has this id (it never existed, or was deleted).
    #[error("there is no task {id} on the board (task_list shows the tasks)")]
    NoTask {
        /// The id asked for.
        id: String,
    },
    /// A dependency would close a loop.
    #[error(
        "task {from} cannot depend on task {to}: {to} already waits for {from} ({path}), so neither could ever start"
    )]
    Cycle {
        /// The task that would wait.
        from: String,
        /// The task it would wait for.
        to: String,
        /// The existing chain, `2 → 3 → 1`.
        path: String,
    },
    /// A task cannot depend on itself.
    #[error("task {id} cannot block itself")]
    SelfDependency {
        /// The task.
        id: String,
    },
    /// Starting or completing a task whose blockers are not all completed.
    #[error("task {id} is blocked by {blockers}: complete those first")]
    Blocked {
        /// The task.
        id: String,
        /// The open blockers, `1 (pending), 2 (in_progress)`.
        blockers: String,
    },
    /// Another agent owns the task.
    #[error("task {id} is owned by {owner}; only {owner} or main can give it to someone else")]
    Owned {
        /// The task.
        id: String,
        /// Its owner.
        owner: String,
    },
    /// A field is empty or too long.
    #[error("{0}")]
    Invalid(String),
    /// The board is full.
    #[error("the board holds at most {MAX_TASKS} tasks; delete finished ones first")]
    Full,
    /// Reading or writing the board's files failed.
    #[error("the task board at {path}: {source}")]
    Io {
        /// The file or folder.
        path: String,
        /// What failed.
        source: std::io::Error,
    },
}

/// A new task.
#[derive(Debug, Clone, Default)]
pub struct NewTask {
    /// Short imperative title.
    pub subject: String,
    /// What is to be done.
    pub description: String,
    /// The subject in the present continuous.
    pub active_form: String,
    /// Free key/values (`null` values are dropped).
    pub metadata: Map<String, Value>,
}

/// A status the tools may set: one of the task's, or `deleted`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetStatus {
    /// Set the task's status.
    To(TaskStatus),
    /// Remove the task (and every dependency on it).
    Deleted,
}

/// What a `task_update` changes; `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct TaskChange {
    /// New title.
    pub subject: Option<String>,
    /// New description.
    pub description: Option<String>,
    /// New spinner text.
    pub active_form: Option<String>,
    /// New status, or deletion.
    pub status: Option<SetStatus>,
    /// Tasks that cannot start until this one completes.
    pub add_blocks: Vec<String>,
    /// Tasks that must complete before this one.
    pub add_blocked_by: Vec<String>,
    /// New owner; an empty name releases the task.
    pub owner: Option<String>,
    /// Keys merged in; a `null` value deletes the key.
    pub metadata: Map<String, Value>,
}

/// What an update did.
#[derive(Debug, Clone, PartialEq)]
pub struct Updated {
    /// The task as it is now; `None` when it was deleted.
    pub task: Option<BoardTask>,
    /// Tasks this update left with no open blocker (by completing or deleting their last).
    pub unblocked: Vec<String>,
}

/// The tasks, and the counters that go with them.
#[derive(Debug, Clone, Default)]
struct State {
    tasks: BTreeMap<u64, BoardTask>,
    next_id: u64,
    /// Changes made so far (also on disk, to see another process's).
    generation: u64,
}

/// What a change touched, for the store to write.
#[derive(Debug, Default)]
struct Touched {
    written: Vec<u64>,
    removed: Vec<u64>,
}

struct Inner {
    store: Option<Store>,
    state: Mutex<State>,
    changed: tokio::sync::watch::Sender<u64>,
}

/// A session's task board; clones share it.
#[derive(Clone)]
pub struct Board {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Board")
            .field("dir", &self.inner.store.as_ref().map(Store::dir))
            .finish()
    }
}

impl Default for Board {
    fn default() -> Self {
        Self::in_memory()
    }
}

impl Board {
    /// A board kept only in memory (`rein tool`, tests).
    pub fn in_memory() -> Self {
        Self::with(None, State::default())
    }

    /// The board kept in `dir`, with what is there already (the folder is made `0700` at
    /// the first change).
    pub fn open(dir: &Path) -> Result<Self, BoardError> {
        let store = Store::open(dir);
        let state = match store.exists() {
            true => {
                let _lock = store.lock()?;
                store.load()?
            }
            false => State::default(),
        };
        Ok(Self::with(Some(store), state))
    }

    fn with(store: Option<Store>, state: State) -> Self {
        let (changed, _) = tokio::sync::watch::channel(state.generation);
        Self {
            inner: Arc::new(Inner {
                store,
                state: Mutex::new(state),
                changed,
            }),
        }
    }

    /// The folder the board is kept in, if it is on disk.
    pub fn dir(&self) -> Option<&Path> {
        self.inner.store.as_ref().map(Store::dir)
    }

    /// How many changes this board has seen (what [`Board::subscribe`] receivers see).
    pub fn changes(&self) -> u64 {
        *self.inner.changed.borrow()
    }

    /// A receiver that sees a new value after every change (an idle teammate waits on it).
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.inner.changed.subscribe()
    }

    /// Every task, by id.
    pub fn list(&self) -> Vec<BoardTask> {
        self.read(|state| state.tasks.values().cloned().collect())
    }

    /// Task `id`.
    pub fn get(&self, id: &str) -> Result<BoardTask, BoardError> {
        self.read(|state| {
            graph::key(state, id)
                .map(|key| state.tasks[&key].clone())
                .ok_or_else(|| no_task(id))
        })
    }

    /// The board as it is now, read once, to ask several things of (rendering the whole
    /// board asks each task's open blockers).
    pub fn snapshot(&self) -> Snapshot {
        Snapshot(self.read(State::clone))
    }

    /// Pending, unowned tasks with no open blocker.
    pub fn ready(&self) -> Vec<BoardTask> {
        self.read(|state| graph::ready(state).cloned().collect())
    }

    /// Whether any task is not completed.
    pub fn has_open(&self) -> bool {
        self.read(|state| {
            state
                .tasks
                .values()
                .any(|t| t.status != TaskStatus::Completed)
        })
    }

    /// Adds a pending task.
    pub fn create(&self, new: NewTask) -> Result<BoardTask, BoardError> {
        check_text(&new.subject, &new.description)?;
        self.write(|state| {
            if state.tasks.len() >= MAX_TASKS {
                return Err(BoardError::Full);
            }
            let key = state.next_id.max(1);
            state.next_id = key + 1;
            let mut metadata = new.metadata;
            metadata.retain(|_, v| !v.is_null());
            let task = BoardTask {
                id: key.to_string(),
                subject: new.subject.trim().to_string(),
                description: new.description.trim().to_string(),
                active_form: new.active_form.trim().to_string(),
                status: TaskStatus::Pending,
                owner: None,
                blocks: Vec::new(),
                blocked_by: Vec::new(),
                metadata,
            };
            state.tasks.insert(key, task.clone());
            Ok((
                task,
                Touched {
                    written: vec![key],
                    ..Touched::default()
                },
            ))
        })
    }

    /// Changes task `id` as `by` (the acting agent's name, `main` for the lead).
    pub fn update(&self, id: &str, change: TaskChange, by: &str) -> Result<Updated, BoardError> {
        if let Some(subject) = &change.subject {
            check_text(subject, change.description.as_deref().unwrap_or(""))?;
        } else if let Some(description) = &change.description {
            check_text("-", description)?;
        }
        self.write(|state| graph::update(state, id, change, by))
    }

    /// Gives `owner` the first ready task (lowest id), marked in progress; `None` when no task
    /// is ready.
    pub fn claim(&self, owner: &str) -> Result<Option<BoardTask>, BoardError> {
        self.write(|state| {
            let Some(key) = graph::ready(state).next().and_then(|t| t.id.parse().ok()) else {
                return Ok((None, Touched::default()));
            };
            let Some(task) = state.tasks.get_mut(&key) else {
                return Ok((None, Touched::default()));
            };
            task.owner = Some(owner.to_string());
            task.status = TaskStatus::InProgress;
            let claimed = task.clone();
            Ok((
                Some(claimed),
                Touched {
                    written: vec![key],
                    ..Touched::default()
                },
            ))
        })
    }

    /// The board seen as one agent's todo list: `items` become its tasks, matched to existing
    /// ones by subject (see [`todos`]); returns the board.
    pub fn sync_todos(
        &self,
        items: &[rein_protocol::TodoItem],
        by: &str,
    ) -> Result<Vec<BoardTask>, BoardError> {
        for item in items {
            check_text(&item.content, "")?;
        }
        self.write(|state| {
            if state.tasks.len() + items.len() > MAX_TASKS {
                return Err(BoardError::Full);
            }
            let touched = todos::sync(state, items, by);
            Ok((state.tasks.values().cloned().collect(), touched))
        })
    }

    /// Adds the tasks of a todo list stored by an older rein (resuming its session) when the
    /// board is still empty.
    pub fn import_todos(&self, items: &[rein_protocol::TodoItem]) -> Result<(), BoardError> {
        if items.is_empty() || !self.read(|state| state.tasks.is_empty()) {
            return Ok(());
        }
        self.sync_todos(items, "main").map(drop)
    }

    fn read<R>(&self, f: impl FnOnce(&State) -> R) -> R {
        let mut state = self.inner.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(store) = &self.inner.store {
            // Another process may have changed the board; what cannot be read keeps what we
            // had (the next change reports the error).
            if let Ok(Some(fresh)) = store.refresh(&state) {
                *state = fresh;
            }
        }
        f(&state)
    }

    /// Runs `change` on the current state under the lock and writes what it touched; on an
    /// error nothing is written (a change checks before it changes), and on a failed write
    /// the state is read back from disk.
    fn write<R>(
        &self,
        change: impl FnOnce(&mut State) -> Result<(R, Touched), BoardError>,
    ) -> Result<R, BoardError> {
        let mut state = self.inner.state.lock().unwrap_or_else(|p| p.into_inner());
        let lock = match &self.inner.store {
            Some(store) => {
                let lock = store.lock()?;
                if let Some(fresh) = store.refresh(&state)? {
                    *state = fresh;
                }
                Some(lock)
            }
            None => None,
        };
        let (result, touched) = change(&mut state)?;
        if touched.written.is_empty() && touched.removed.is_empty() {
            return Ok(result);
        }
        state.generation += 1;
        if let Some(store) = &self.inner.store
            && let Err(error) = store.save(&state, &touched)
        {
            if let Ok(back) = store.load() {
                *state = back;
            }
            return Err(error);
        }
        drop(lock);
        let generation = state.generation;
        drop(state);
        self.inner.changed.send_replace(generation);
        Ok(result)
    }
}

/// The board at one moment.
#[derive(Debug, Clone)]
pub struct Snapshot(State);

impl Snapshot {
    /// Every task, by id.
    pub fn tasks(&self) -> impl Iterator<Item = &BoardTask> {
        self.0.tasks.values()
    }

    /// The tasks that block `task` and are not completed.
    pub fn open_blockers(&self, task: &BoardTask) -> Vec<String> {
        graph::open_blockers(&self.0, task)
    }

    /// Pending, unowned tasks with no open blocker.
    pub fn ready(&self) -> impl Iterator<Item = &BoardTask> {
        graph::ready(&self.0)
    }
}

fn no_task(id: &str) -> BoardError {
    BoardError::NoTask { id: id.to_string() }
}

fn check_text(subject: &str, description: &str) -> Result<(), BoardError> {
    if subject.trim().is_empty() {
        return Err(BoardError::Invalid(
            "the task's subject is empty: give it a short imperative title".into(),
        ));
    }
    if subject.chars().count() > MAX_SUBJECT {
        return Err(BoardError::Invalid(format!(
            "the subject is longer than {MAX_SUBJECT} characters: keep it to a short title and \
             put the rest in the description"
        )));
    }
    if description.len() > MAX_DESCRIPTION {
        return Err(BoardError::Invalid(format!(
            "the description is longer than {} KiB: keep the details in a file and name it",
            MAX_DESCRIPTION / 1024
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
