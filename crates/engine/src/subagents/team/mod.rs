//! Teams: named, long-lived teammates beside the main agent (`task` with a `name`), each with
//! its own context, model, tools and inbox. `send_message` puts a letter in the recipient's
//! inbox (the main agent's is the notices channel of its spawner); a teammate reads its inbox
//! at its next turn boundary, and when it has nothing to read it claims the next ready task
//! from the board, or waits. Protocols: shutdown (request → the teammate finishes its step
//! and answers → stops) and plan approval (a plan-mode teammate's `exit_plan_mode` goes to the
//! main agent, which approves or rejects it with feedback).

mod lead;
mod letter;
mod member;
mod send;
mod start;

pub(crate) use lead::PlanToLead;
pub(crate) use letter::{Letter, LetterKind};
pub(crate) use member::{Start, run_teammate};
pub(crate) use send::SendMessageTool;
pub(crate) use start::Restore;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rein_protocol::{Event, Usage};
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::EventSender;
use crate::emitter::Emitter;

/// The main agent's name in a team.
pub const LEAD: &str = rein_tools::LEAD;

/// Most teammates running at once unless configured.
pub const DEFAULT_MAX_TEAMMATES: usize = 8;

/// The tool's name.
pub const SEND_TOOL: &str = "send_message";

pub(crate) use super::TEAMMATE_PREFIX;

/// Where a teammate stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    Working,
    Idle,
    Stopped,
}

impl State {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::Idle => "idle",
            Self::Stopped => "stopped",
        }
    }
}

/// A teammate's shared status: what `/tasks`, the team and the teammate's own loop see.
#[derive(Debug)]
pub(crate) struct Status {
    state: Mutex<State>,
    /// Letters sent to it and not read yet.
    pub(crate) unread: AtomicUsize,
    /// It agreed to a shutdown (or was asked and gave no answer): it stops after this run.
    pub(crate) leaving: AtomicBool,
    /// A shutdown request reached it in the run going on.
    pub(crate) shutdown_asked: AtomicBool,
    spent: Mutex<(Usage, Option<f64>)>,
}

impl Default for Status {
    fn default() -> Self {
        Self {
            state: Mutex::new(State::Idle),
            unread: AtomicUsize::new(0),
            leaving: AtomicBool::new(false),
            shutdown_asked: AtomicBool::new(false),
            spent: Mutex::new((Usage::default(), Some(0.0))),
        }
    }
}

impl Status {
    pub(crate) fn state(&self) -> State {
        *self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn add_spent(&self, usage: &Usage, cost: Option<f64>) {
        let mut spent = self.spent.lock().unwrap_or_else(|p| p.into_inner());
        spent.0.add(usage);
        spent.1 = spent.1.zip(cost).map(|(a, b)| rein_llm::round_cost(a + b));
    }

    pub(crate) fn spent(&self) -> (Usage, Option<f64>) {
        *self.spent.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One teammate as the team knows it.
pub(crate) struct Member {
    pub(crate) name: String,
    pub(crate) agent: String,
    inbox: UnboundedSender<Letter>,
    pub(crate) status: Arc<Status>,
    pub(crate) cancel: CancellationToken,
}

/// The lead's answer to a teammate's plan.
#[derive(Debug, Clone)]
pub(crate) struct PlanAnswer {
    /// Carry it out.
    pub(crate) approve: bool,
    /// What the lead said (the feedback of a refusal).
    pub(crate) feedback: String,
}

/// The session file's writer, shared with the main agent.
pub(crate) type Recorder = Arc<Mutex<crate::session::SessionWriter>>;

/// Why a message could not be sent or a teammate not started.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TeamError {
    #[error("there is no teammate `{name}`; the team is: {roster}")]
    NoSuchMember { name: String, roster: String },
    #[error("teammate `{name}` has stopped; start it again with task {{name: \"{name}\", …}}")]
    Stopped { name: String },
    #[error(
        "a teammate named `{name}` is already running; pick another name or send_message to it"
    )]
    Taken { name: String },
    #[error("the team is full: at most {max} running at once (max_teammates); stop one first")]
    Full { max: usize },
    #[error(
        "`{name}` is not a valid teammate name: use 1-32 letters, digits, `-` or `_` (not `main`)"
    )]
    BadName { name: String },
    #[error("there is no plan approval request `{id}` waiting for an answer")]
    NoPlan { id: String },
}

/// The team of one main agent.
pub(crate) struct Team {
    members: Mutex<Vec<Member>>,
    /// The main agent's inbox: its spawner's notices.
    to_lead: UnboundedSender<(String, String)>,
    /// The main agent's event stream (set when a teammate starts).
    events: Mutex<Option<EventSender>>,
    /// The session file, for the roster (set when a teammate starts).
    recorder: Mutex<Option<Recorder>>,
    max: usize,
    /// Plan approvals waiting for the main agent's answer, by request id.
    plans: Mutex<HashMap<String, oneshot::Sender<PlanAnswer>>>,
    next_request: AtomicU32,
    /// The board's change counter when `report_board` last said it.
    reported: Mutex<Option<u64>>,
}

impl Team {
    pub(crate) fn new(to_lead: UnboundedSender<(String, String)>, max: usize) -> Self {
        Self {
            members: Mutex::new(Vec::new()),
            to_lead,
            events: Mutex::new(None),
            recorder: Mutex::new(None),
            max: max.max(1),
            plans: Mutex::new(HashMap::new()),
            next_request: AtomicU32::new(0),
            reported: Mutex::new(None),
        }
    }

    fn members(&self) -> std::sync::MutexGuard<'_, Vec<Member>> {
        self.members.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds teammate `name` (checked: valid, free, room left); its inbox's receiving end.
    pub(crate) fn join(
        &self,
        name: &str,
        agent: &str,
        events: &EventSender,
        recorder: Option<Recorder>,
    ) -> Result<
        (
            Arc<Status>,
            CancellationToken,
            tokio::sync::mpsc::UnboundedReceiver<Letter>,
        ),
        TeamError,
    > {
        let valid = !name.is_empty()
            && name.len() <= 32
            && name != LEAD
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !valid {
            return Err(TeamError::BadName {
                name: name.to_string(),
            });
        }
        let mut members = self.members();
        if members
            .iter()
            .any(|m| m.name == name && m.status.state() != State::Stopped)
        {
            return Err(TeamError::Taken {
                name: name.to_string(),
            });
        }
        let running = members
            .iter()
            .filter(|m| m.status.state() != State::Stopped)
            .count();
        if running >= self.max {
            return Err(TeamError::Full { max: self.max });
        }
        members.retain(|m| m.name != name);
        let (inbox, rx) = tokio::sync::mpsc::unbounded_channel();
        let status = Arc::new(Status::default());
        let cancel = CancellationToken::new();
        members.push(Member {
            name: name.to_string(),
            agent: agent.to_string(),
            inbox,
            status: Arc::clone(&status),
            cancel: cancel.clone(),
        });
        *self.events.lock().unwrap_or_else(|p| p.into_inner()) = Some(events.clone());
        *self.recorder.lock().unwrap_or_else(|p| p.into_inner()) = recorder;
        Ok((status, cancel, rx))
    }

    /// Records `name`'s new state and says so on the main agent's stream.
    pub(crate) fn set_state(&self, name: &str, state: State, reason: Option<&str>) {
        let agent = {
            let members = self.members();
            let Some(member) = members.iter().find(|m| m.name == name) else {
                return;
            };
            let mut current = member
                .status
                .state
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if *current == state || *current == State::Stopped {
                return;
            }
            *current = state;
            member.agent.clone()
        };
        self.emit(Event::Teammate {
            name: name.to_string(),
            agent,
            state: state.as_str().to_string(),
            reason: reason.map(String::from),
        });
    }

    /// Says what the board holds now when it changed since it was last said (a claim, a
    /// release): `tasks` events come after each change, whoever made it.
    pub(crate) fn report_board(&self, board: &rein_board::Board) {
        let generation = board.changes();
        let mut reported = self.reported.lock().unwrap_or_else(|p| p.into_inner());
        if *reported == Some(generation) {
            return;
        }
        *reported = Some(generation);
        drop(reported);
        if let Some(events) = &*self.events.lock().unwrap_or_else(|p| p.into_inner()) {
            crate::agent::report_board(board, events);
        }
    }

    fn emit(&self, event: Event) {
        if let Some(events) = &*self.events.lock().unwrap_or_else(|p| p.into_inner()) {
            events.emit(event);
        }
    }

    /// Tells the main agent something from teammate `from` (a notice at its next boundary).
    pub(crate) fn tell_lead(&self, from: &str, text: String) {
        let _ = self.to_lead.send((from.to_string(), text));
    }

    /// Delivers `letter` to `to` (`main` or a teammate), in order per sender.
    pub(crate) fn send(&self, to: &str, letter: Letter) -> Result<(), TeamError> {
        self.emit(Event::TeamMessage {
            from: letter.from.clone(),
            to: to.to_string(),
            kind: letter.kind.as_str().to_string(),
            text: letter.text.clone(),
        });
        if to == LEAD {
            self.tell_lead(&letter.from, letter.render());
            return Ok(());
        }
        let members = self.members();
        let Some(member) = members.iter().find(|m| m.name == to) else {
            return Err(TeamError::NoSuchMember {
                name: to.to_string(),
                roster: roster(&members),
            });
        };
        if member.status.state() == State::Stopped {
            return Err(TeamError::Stopped {
                name: to.to_string(),
            });
        }
        member.status.unread.fetch_add(1, Ordering::SeqCst);
        if member.inbox.send(letter).is_err() {
            member.status.unread.fetch_sub(1, Ordering::SeqCst);
            return Err(TeamError::Stopped {
                name: to.to_string(),
            });
        }
        Ok(())
    }

    /// The status of teammate `name`, if it is one.
    pub(crate) fn status_of(&self, name: &str) -> Option<Arc<Status>> {
        let members = self.members();
        (members.iter().find(|m| m.name == name)).map(|m| Arc::clone(&m.status))
    }

    /// A new id for a request that waits for an answer (`shutdown-1`, `plan-2`).
    pub(crate) fn request_id(&self, what: &str) -> String {
        let n = self.next_request.fetch_add(1, Ordering::Relaxed) + 1;
        format!("{what}-{n}")
    }

    /// Waits for the main agent's answer to plan request `id`.
    pub(crate) fn await_plan(&self, id: &str) -> oneshot::Receiver<PlanAnswer> {
        let (tx, rx) = oneshot::channel();
        self.plans
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.to_string(), tx);
        rx
    }

    /// Hands the main agent's answer to the teammate waiting on plan request `id`.
    pub(crate) fn answer_plan(&self, id: &str, answer: PlanAnswer) -> Result<(), TeamError> {
        let waiting = self
            .plans
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
        let sent = waiting.map(|tx| tx.send(answer).is_ok());
        match sent {
            Some(true) => Ok(()),
            _ => Err(TeamError::NoPlan { id: id.to_string() }),
        }
    }

    /// Whether a teammate ever started (the lead's `send_message` is offered from then on).
    pub(crate) fn has_members(&self) -> bool {
        !self.members().is_empty()
    }

    /// How many teammates are working (not idle, not stopped).
    pub(crate) fn working(&self) -> usize {
        (self.members().iter())
            .filter(|m| m.status.state() == State::Working)
            .count()
    }

    /// Every teammate: name, definition, state, unread letters, usage and cost.
    pub(crate) fn roster(&self) -> Vec<(String, String, State, usize, Usage, Option<f64>)> {
        (self.members().iter())
            .map(|m| {
                let (usage, cost) = m.status.spent();
                (
                    m.name.clone(),
                    m.agent.clone(),
                    m.status.state(),
                    m.status.unread.load(Ordering::SeqCst),
                    usage,
                    cost,
                )
            })
            .collect()
    }

    /// Stops teammate `name` at once; `false` when there is none running by that name.
    pub(crate) fn stop(&self, name: &str) -> bool {
        let members = self.members();
        match members
            .iter()
            .find(|m| m.name == name && m.status.state() != State::Stopped)
        {
            Some(member) => {
                member.cancel.cancel();
                true
            }
            None => false,
        }
    }

    /// Stops sending events and recording (the session is ending: its stream has said its
    /// last, and its teammates stay on its roster for a resume).
    pub(crate) fn silence(&self) {
        *self.events.lock().unwrap_or_else(|p| p.into_inner()) = None;
        *self.recorder.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// Appends `record` to the session file, when there is one.
    pub(crate) fn record(&self, record: rein_protocol::SessionRecord) {
        if let Some(recorder) = &*self.recorder.lock().unwrap_or_else(|p| p.into_inner()) {
            let _ = recorder
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .append(&record);
        }
    }

    /// Stops every teammate.
    pub(crate) fn stop_all(&self) {
        for member in self.members().iter() {
            member.cancel.cancel();
        }
    }
}

fn roster(members: &[Member]) -> String {
    let names: Vec<String> = members
        .iter()
        .map(|m| format!("{} ({})", m.name, m.status.state().as_str()))
        .collect();
    if names.is_empty() {
        format!("{LEAD} only (start a teammate with task {{name: …}})")
    } else {
        format!("{LEAD}, {}", names.join(", "))
    }
}
