//! A teammate's life: run on its first task; then, at each boundary, read its inbox, else
//! claim the next ready task from the board, else go idle (telling the main agent) and wait
//! for a letter or a change of the board. It stops when it agrees to a shutdown, when it is
//! stopped, or with the session; what it still held on the board goes back to the pool.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use rein_board::{Board, SetStatus, TaskChange};
use rein_protocol::{RunOutcome, TaskStatus};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio_util::sync::CancellationToken;

use super::{Letter, LetterKind, State, Status, Team};
use crate::subagents::spawner::Spent;
use crate::{Agent, EventSender};

/// What a teammate starts with.
pub(crate) struct Start {
    pub(crate) name: String,
    pub(crate) model: String,
    pub(crate) agent: Agent,
    /// Its first input: who it is, and its task; `None`: it starts idle (a restored one).
    pub(crate) first: Option<String>,
    pub(crate) inbox: UnboundedReceiver<Letter>,
    pub(crate) status: Arc<Status>,
    pub(crate) cancel: CancellationToken,
    /// Its own events (wrapped for the main agent's stream).
    pub(crate) events: EventSender,
    pub(crate) board: Board,
    /// Where the session counts what its agents spent.
    pub(crate) spent: Arc<std::sync::Mutex<Vec<Spent>>>,
    /// Its own worktree, when it works in one.
    pub(crate) worktree: Option<crate::worktree::Worktree>,
}

/// Runs a teammate until it stops.
pub(crate) async fn run_teammate(start: Start, team: Arc<Team>) {
    let Start {
        name,
        model,
        mut agent,
        first,
        mut inbox,
        status,
        cancel,
        events,
        board,
        spent,
        worktree,
    } = start;
    let mut board_rx = board.subscribe();
    let mut next = first;
    let reason = loop {
        let input = match next.take() {
            Some(input) => input,
            None => match next_input(&mut inbox, &status, &board, &name) {
                Some(input) => input,
                None => {
                    team.set_state(&name, State::Idle, None);
                    let woken = tokio::select! {
                        () = cancel.cancelled() => None,
                        next = wait(&mut inbox, &mut board_rx, &status, &board, &name) => next,
                    };
                    match woken {
                        Some(input) => input,
                        None => break "stopped",
                    }
                }
            },
        };
        team.set_state(&name, State::Working, None);
        let summary = agent.run(&input, &events, cancel.clone()).await;
        status.add_spent(&summary.usage, summary.cost_usd);
        (spent.lock().unwrap_or_else(|p| p.into_inner())).push((
            model.clone(),
            summary.usage,
            summary.cost_usd,
        ));
        let last = match summary.text.trim() {
            "" => "(no text)".to_string(),
            text => text.to_string(),
        };
        if cancel.is_cancelled() {
            break "stopped";
        }
        if summary.outcome == RunOutcome::Failed {
            let error = summary.error.map(|e| e.to_string()).unwrap_or_default();
            team.tell_lead(
                &name,
                format!("[teammate {name} failed and stopped: {error}]"),
            );
            break "failed";
        }
        let asked = status.shutdown_asked.swap(false, Ordering::SeqCst);
        if status.leaving.load(Ordering::SeqCst) || asked {
            team.tell_lead(
                &name,
                format!("[teammate {name} stopped (shutdown); its last message:]\n{last}"),
            );
            break "shutdown";
        }
        if let Some(input) = next_input(&mut inbox, &status, &board, &name) {
            next = Some(input);
            continue;
        }
        // Told before the state changes: the lead, waiting while teammates work, hears it.
        team.tell_lead(
            &name,
            format!("[teammate {name} is idle; its last message:]\n{last}"),
        );
        team.set_state(&name, State::Idle, None);
        let woken = tokio::select! {
            () = cancel.cancelled() => None,
            next = wait(&mut inbox, &mut board_rx, &status, &board, &name) => next,
        };
        match woken {
            Some(input) => next = Some(input),
            None => break "stopped",
        }
    };
    drop(events);
    drop(agent);
    release(&board, &name);
    // A teammate stopped by the session's end stays on its roster (the team is silenced
    // first); one that stopped on its own leaves it.
    team.record(rein_protocol::SessionRecord::Teammate {
        name: name.clone(),
        agent: String::new(),
        state: "stopped".into(),
        mode: None,
        worktree: None,
    });
    let left = (worktree.as_ref()).and_then(|tree| crate::subagents::isolation::leave(tree, &name));
    if let Some(note) = left {
        team.tell_lead(&name, format!("[teammate {name}: {note}]"));
    }
    team.set_state(&name, State::Stopped, Some(reason));
}

/// The letters waiting, else a task claimed from the board, as the teammate's next input.
fn next_input(
    inbox: &mut UnboundedReceiver<Letter>,
    status: &Status,
    board: &Board,
    name: &str,
) -> Option<String> {
    let letters: Vec<Letter> = std::iter::from_fn(|| inbox.try_recv().ok()).collect();
    if !letters.is_empty() {
        return Some(read(letters, status));
    }
    claim(board, name)
}

/// Waits for a letter, or for a board change that leaves a task to claim.
async fn wait(
    inbox: &mut UnboundedReceiver<Letter>,
    board_rx: &mut tokio::sync::watch::Receiver<u64>,
    status: &Status,
    board: &Board,
    name: &str,
) -> Option<String> {
    loop {
        tokio::select! {
            letter = inbox.recv() => {
                let mut letters = vec![letter?];
                letters.extend(std::iter::from_fn(|| inbox.try_recv().ok()));
                return Some(read(letters, status));
            }
            changed = board_rx.changed() => {
                if changed.is_err() {
                    // The board is gone with the session: only letters can come now.
                    let letter = inbox.recv().await?;
                    return Some(read(vec![letter], status));
                }
                if let Some(next) = claim(board, name) {
                    return Some(next);
                }
            }
        }
    }
}

/// The letters as one input, noting a shutdown request among them.
fn read(letters: Vec<Letter>, status: &Status) -> String {
    status.unread.fetch_sub(letters.len(), Ordering::SeqCst);
    if letters
        .iter()
        .any(|l| l.kind == LetterKind::ShutdownRequest)
    {
        status.shutdown_asked.store(true, Ordering::SeqCst);
    }
    letters
        .iter()
        .map(Letter::render)
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The next ready task, claimed for `name`, as an input.
fn claim(board: &Board, name: &str) -> Option<String> {
    let task = board.claim(name).ok()??;
    let mut text = format!(
        "You claimed task #{} from the board: {}",
        task.id, task.subject
    );
    if !task.description.is_empty() {
        text.push_str(&format!("\n\n{}", task.description));
    }
    text.push_str(&format!(
        "\n\nDo it, then mark it completed with task_update {{taskId: \"{}\", status: \
         \"completed\"}}.",
        task.id
    ));
    Some(text)
}

/// Puts the tasks `name` still held unfinished back in the pool.
fn release(board: &Board, name: &str) {
    let held = board
        .list()
        .into_iter()
        .filter(|t| t.owner.as_deref() == Some(name) && t.status != TaskStatus::Completed);
    for task in held {
        let change = TaskChange {
            owner: Some(String::new()),
            status: Some(SetStatus::To(TaskStatus::Pending)),
            ..TaskChange::default()
        };
        let _ = board.update(&task.id, change, name);
    }
}
