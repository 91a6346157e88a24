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
        inbox,
        status,
        cancel,
        events,
        board,
        spent,
        worktree,
    } = start;
    let mut mailbox = Mailbox {
        board_rx: board.subscribe(),
        inbox,
        status,
        board,
        name,
        cancel,
    };
    let mut next = first;
    let reason = loop {
        let input = match next.take().or_else(|| mailbox.next()) {
            Some(input) => input,
            None => match mailbox.idle(&team).await {
                Some(input) => input,
                None => break "stopped",
            },
        };
        // A claim changed the board: say so, as a tool call's change is said.
        team.report_board(&mailbox.board);
        team.set_state(&mailbox.name, State::Working, None);
        let summary = agent.run(&input, &events, mailbox.cancel.clone()).await;
        mailbox.status.add_spent(&summary.usage, summary.cost_usd);
        (spent.lock().unwrap_or_else(|p| p.into_inner())).push((
            model.clone(),
            summary.usage,
            summary.cost_usd,
        ));
        let last = match after_run(&team, &mailbox, summary) {
            Ok(last) => last,
            Err(reason) => break reason,
        };
        if let Some(input) = mailbox.next() {
            next = Some(input);
            continue;
        }
        // Told before the state changes: the lead, waiting while teammates work, hears it.
        let name = &mailbox.name;
        team.tell_lead(
            name,
            format!("[teammate {name} is idle; its last message:]\n{last}"),
        );
        match mailbox.idle(&team).await {
            Some(input) => next = Some(input),
            None => break "stopped",
        }
    };
    drop((events, agent));
    finish(&team, &mailbox, worktree.as_ref(), reason);
}

/// What a teammate reads from and waits on.
struct Mailbox {
    name: String,
    inbox: UnboundedReceiver<Letter>,
    board_rx: tokio::sync::watch::Receiver<u64>,
    status: Arc<Status>,
    board: Board,
    cancel: CancellationToken,
}

impl Mailbox {
    /// The letters waiting, else a task claimed from the board.
    fn next(&mut self) -> Option<String> {
        next_input(&mut self.inbox, &self.status, &self.board, &self.name)
    }

    /// Idle until a letter comes or a task can be claimed; `None` when stopped.
    async fn idle(&mut self, team: &Team) -> Option<String> {
        team.set_state(&self.name, State::Idle, None);
        tokio::select! {
            () = self.cancel.cancelled() => None,
            next = wait(&mut self.inbox, &mut self.board_rx, &self.status, &self.board, &self.name) => next,
        }
    }
}

/// After a run: its last text, or why the teammate stops (stopped, failed, a shutdown it
/// agreed to or did not refuse).
fn after_run(
    team: &Team,
    mailbox: &Mailbox,
    summary: crate::RunSummary,
) -> Result<String, &'static str> {
    let name = &mailbox.name;
    let last = match summary.text.trim() {
        "" => "(no text)".to_string(),
        text => text.to_string(),
    };
    if mailbox.cancel.is_cancelled() {
        return Err("stopped");
    }
    if summary.outcome == RunOutcome::Failed {
        let error = summary.error.map(|e| e.to_string()).unwrap_or_default();
        team.tell_lead(
            name,
            format!("[teammate {name} failed and stopped: {error}]"),
        );
        return Err("failed");
    }
    let asked = mailbox.status.shutdown_asked.swap(false, Ordering::SeqCst);
    if mailbox.status.leaving.load(Ordering::SeqCst) || asked {
        team.tell_lead(
            name,
            format!("[teammate {name} stopped (shutdown); its last message:]\n{last}"),
        );
        return Err("shutdown");
    }
    Ok(last)
}

/// A teammate's end: its unfinished tasks back to the pool, its roster entry closed (unless
/// the session is ending: the team is silenced first, so it stays for a resume), its worktree
/// left, its state `stopped`.
fn finish(
    team: &Team,
    mailbox: &Mailbox,
    worktree: Option<&crate::worktree::Worktree>,
    reason: &str,
) {
    let name = &mailbox.name;
    if release(&mailbox.board, name) {
        team.report_board(&mailbox.board);
    }
    team.record(rein_protocol::SessionRecord::Teammate {
        name: name.clone(),
        agent: String::new(),
        state: "stopped".into(),
        mode: None,
        worktree: None,
    });
    if let Some(note) = worktree.and_then(|tree| crate::subagents::isolation::leave(tree, name)) {
        team.tell_lead(name, format!("[teammate {name}: {note}]"));
    }
    team.set_state(name, State::Stopped, Some(reason));
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

/// Puts the tasks `name` still held unfinished back in the pool; whether there were any.
fn release(board: &Board, name: &str) -> bool {
    let held: Vec<_> = (board.list().into_iter())
        .filter(|t| t.owner.as_deref() == Some(name) && t.status != TaskStatus::Completed)
        .collect();
    let any = !held.is_empty();
    for task in held {
        let change = TaskChange {
            owner: Some(String::new()),
            status: Some(SetStatus::To(TaskStatus::Pending)),
            ..TaskChange::default()
        };
        let _ = board.update(&task.id, change, name);
    }
    any
}
