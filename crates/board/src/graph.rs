//! The board's rules: dependencies kept on both ends and free of cycles, blockers finished
//! before a task starts, owners changed only by themselves or the lead.

use rein_protocol::{BoardTask, TaskStatus};

use crate::{BoardError, SetStatus, State, TaskChange, Touched, Updated, no_task};

/// The lead agent's name: it may hand any task to anyone.
pub(crate) const LEAD: &str = "main";

/// The map key of task `id`, if it is on the board.
pub(crate) fn key(state: &State, id: &str) -> Option<u64> {
    let key: u64 = id.trim().parse().ok()?;
    state.tasks.contains_key(&key).then_some(key)
}

/// The blockers of `task` that are not completed.
pub(crate) fn open_blockers(state: &State, task: &BoardTask) -> Vec<String> {
    task.blocked_by
        .iter()
        .filter(|id| {
            key(state, id).is_some_and(|k| state.tasks[&k].status != TaskStatus::Completed)
        })
        .cloned()
        .collect()
}

/// Pending, unowned tasks with no open blocker, by id.
pub(crate) fn ready(state: &State) -> impl Iterator<Item = &BoardTask> {
    state.tasks.values().filter(|t| {
        t.status == TaskStatus::Pending && t.owner.is_none() && open_blockers(state, t).is_empty()
    })
}

/// Applies `change` to task `id`: everything is checked first, so a refused change changes
/// nothing.
pub(crate) fn update(
    state: &mut State,
    id: &str,
    change: TaskChange,
    by: &str,
) -> Result<(Updated, Touched), BoardError> {
    let key = key(state, id).ok_or_else(|| no_task(id))?;
    if change.status == Some(SetStatus::Deleted) {
        return Ok(delete(state, key));
    }
    let (blocks, blocked_by) = check_edges(state, key, &change)?;
    check_owner(state, key, change.owner.as_deref(), by)?;
    if let Some(SetStatus::To(status @ (TaskStatus::InProgress | TaskStatus::Completed))) =
        change.status
    {
        let mut waits_for = open_blockers(state, &state.tasks[&key]);
        for b in blocked_by.iter().map(u64::to_string) {
            if key_status(state, &b) != Some(TaskStatus::Completed) && !waits_for.contains(&b) {
                waits_for.push(b);
            }
        }
        if !waits_for.is_empty() && status != state.tasks[&key].status {
            return Err(BoardError::Blocked {
                id: key.to_string(),
                blockers: waits_for
                    .iter()
                    .map(|b| format!("{b} ({})", key_status(state, b).map_or("?", |s| s.as_str())))
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
    }
    let mut touched = Touched {
        written: vec![key],
        ..Touched::default()
    };
    for other in &blocks {
        link(state, key, *other);
        touched.written.push(*other);
    }
    for other in &blocked_by {
        link(state, *other, key);
        touched.written.push(*other);
    }
    let was_completed = state.tasks[&key].status == TaskStatus::Completed;
    let Some(task) = state.tasks.get_mut(&key) else {
        return Err(no_task(id));
    };
    apply_fields(task, change);
    let task = task.clone();
    let unblocked = if task.status == TaskStatus::Completed && !was_completed {
        newly_unblocked(state, &task.blocks)
    } else {
        Vec::new()
    };
    Ok((
        Updated {
            task: Some(task),
            unblocked,
        },
        touched,
    ))
}

fn key_status(state: &State, id: &str) -> Option<TaskStatus> {
    key(state, id).map(|k| state.tasks[&k].status)
}

/// The checked ids of `addBlocks` and `addBlockedBy`: on the board, not the task itself, and
/// closing no cycle.
fn check_edges(
    state: &State,
    key: u64,
    change: &TaskChange,
) -> Result<(Vec<u64>, Vec<u64>), BoardError> {
    let resolve = |ids: &[String]| -> Result<Vec<u64>, BoardError> {
        let mut keys = Vec::new();
        for id in ids {
            let other = self::key(state, id).ok_or_else(|| no_task(id))?;
            if other == key {
                return Err(BoardError::SelfDependency {
                    id: key.to_string(),
                });
            }
            if !keys.contains(&other) {
                keys.push(other);
            }
        }
        Ok(keys)
    };
    let blocks = resolve(&change.add_blocks)?;
    let blocked_by = resolve(&change.add_blocked_by)?;
    // `key` waiting for `b` closes a loop when `b` already waits (transitively) for `key`;
    // `c` waiting for `key` closes one when `key` already waits for `c`.
    for &b in &blocked_by {
        cycle_check(state, key, b, &blocks)?;
    }
    for &c in &blocks {
        cycle_check(state, c, key, &[])?;
    }
    Ok((blocks, blocked_by))
}

/// Refuses `from` waiting for `to` when `to` waits for `from` already, through the board's
/// edges plus `from` blocking `extra` (added by the same call).
fn cycle_check(state: &State, from: u64, to: u64, extra: &[u64]) -> Result<(), BoardError> {
    // Search from `to` along blockedBy edges for `from`, remembering the way back.
    let mut came_from = std::collections::HashMap::from([(to, to)]);
    let mut queue = std::collections::VecDeque::from([to]);
    while let Some(at) = queue.pop_front() {
        let mut next: Vec<u64> = state.tasks[&at]
            .blocked_by
            .iter()
            .filter_map(|id| id.parse().ok())
            .filter(|k| state.tasks.contains_key(k))
            .collect();
        if extra.contains(&at) {
            next.push(from);
        }
        for n in next {
            if came_from.contains_key(&n) {
                continue;
            }
            came_from.insert(n, at);
            if n == from {
                let mut path = vec![from];
                let mut step = from;
                while step != to {
                    step = came_from[&step];
                    path.push(step);
                }
                path.reverse();
                return Err(BoardError::Cycle {
                    from: from.to_string(),
                    to: to.to_string(),
                    path: path
                        .iter()
                        .map(u64::to_string)
                        .collect::<Vec<_>>()
                        .join(" → "),
                });
            }
            queue.push_back(n);
        }
    }
    Ok(())
}

/// `blocker` must complete before `waiter`: recorded on both tasks.
fn link(state: &mut State, blocker: u64, waiter: u64) {
    if let Some(task) = state.tasks.get_mut(&blocker) {
        push_once(&mut task.blocks, waiter.to_string());
    }
    if let Some(task) = state.tasks.get_mut(&waiter) {
        push_once(&mut task.blocked_by, blocker.to_string());
    }
}

fn push_once(list: &mut Vec<String>, id: String) {
    if !list.contains(&id) {
        list.push(id);
    }
}

/// An owned, unfinished task changes hands only by its owner or the lead.
fn check_owner(state: &State, key: u64, owner: Option<&str>, by: &str) -> Result<(), BoardError> {
    let Some(new) = owner else { return Ok(()) };
    let task = &state.tasks[&key];
    match &task.owner {
        Some(current)
            if current != new
                && current != by
                && by != LEAD
                && task.status != TaskStatus::Completed =>
        {
            Err(BoardError::Owned {
                id: task.id.clone(),
                owner: current.clone(),
            })
        }
        _ => Ok(()),
    }
}

fn apply_fields(task: &mut BoardTask, change: TaskChange) {
    if let Some(subject) = change.subject {
        task.subject = subject.trim().to_string();
    }
    if let Some(description) = change.description {
        task.description = description.trim().to_string();
    }
    if let Some(active) = change.active_form {
        task.active_form = active.trim().to_string();
    }
    if let Some(SetStatus::To(status)) = change.status {
        task.status = status;
    }
    if let Some(owner) = change.owner {
        let owner = owner.trim();
        task.owner = (!owner.is_empty()).then(|| owner.to_string());
    }
    for (name, value) in change.metadata {
        if value.is_null() {
            task.metadata.remove(&name);
        } else {
            task.metadata.insert(name, value);
        }
    }
}

/// Of `candidates`, the unfinished tasks with no open blocker left.
fn newly_unblocked(state: &State, candidates: &[String]) -> Vec<String> {
    candidates
        .iter()
        .filter_map(|id| key(state, id))
        .map(|k| &state.tasks[&k])
        .filter(|t| t.status != TaskStatus::Completed && open_blockers(state, t).is_empty())
        .map(|t| t.id.clone())
        .collect()
}

/// Removes task `key` and every edge to it.
pub(crate) fn delete(state: &mut State, key: u64) -> (Updated, Touched) {
    let mut touched = Touched {
        removed: vec![key],
        ..Touched::default()
    };
    let Some(gone) = state.tasks.remove(&key) else {
        return (
            Updated {
                task: None,
                unblocked: Vec::new(),
            },
            Touched::default(),
        );
    };
    let id = gone.id.clone();
    for (other, task) in state.tasks.iter_mut() {
        let before = task.blocks.len() + task.blocked_by.len();
        task.blocks.retain(|b| *b != id);
        task.blocked_by.retain(|b| *b != id);
        if task.blocks.len() + task.blocked_by.len() != before {
            touched.written.push(*other);
        }
    }
    let unblocked = if gone.status == TaskStatus::Completed {
        Vec::new()
    } else {
        newly_unblocked(state, &gone.blocks)
    };
    (
        Updated {
            task: None,
            unblocked,
        },
        touched,
    )
}
