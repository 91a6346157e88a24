//! The typed vocabulary of the controller's API: its commands, the reasons and triggers it
//! passes on to hooks, its errors, and the status it reports.

use rein_protocol::Usage;

use crate::{Agent, Effort, Restore};
use rein_policy::PermissionMode;

/// A command to the controller.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Add a user prompt and work on it (a background job ending with a `Result` event).
    Submit(String),
    /// Run the user's own shell command (`!command`; a job ending with a `Result` event):
    /// its output joins the conversation, the model is not asked.
    Shell(String),
    /// Cancel the running job: tools are killed, the transcript stays valid.
    Cancel,
    /// Summarise the transcript so far, optionally focused on something.
    Compact {
        /// What the summary should keep in particular.
        focus: Option<String>,
    },
    /// Ask another model from the next request on.
    SetModel(String),
    /// Switch the permission mode.
    SetMode(PermissionMode),
    /// Change the live rule lists (the front end wrote the change to a settings file).
    EditRules(rein_policy::RuleEdit),
    /// Add a folder to the workspace, as the user typed it (`/add-dir`), for this session
    /// and the ones it continues into.
    AddDir(String),
    /// Set how hard the model thinks (`None`: its own default).
    SetEffort(Option<Effort>),
    /// End the session and start a new one.
    NewSession,
    /// End the session and continue the stored session with this id.
    Resume(String),
    /// Stop a background shell (`bg_1`) or subagent (`agent_1`).
    StopTask(String),
    /// Answer the permission question about call `id` (a controller made with
    /// [`crate::Controller::answering`]; the question came as `Event::PermissionRequest`).
    Answer {
        /// The call asked about.
        id: String,
        /// The user's answer.
        approval: crate::Approval,
    },
    /// Take the session back to before its `back`-th last prompt: its files (a file changed
    /// since rein wrote it only with [`Restore::Force`]), its conversation (continued as a
    /// fork of the session, which stays as it was), or both.
    Rewind {
        /// Which prompt, counted from the end (1: the latest).
        back: usize,
        /// The files, the conversation, or both.
        what: RewindWhat,
        /// Whether files changed since rein wrote them are restored too.
        restore: Restore,
    },
    /// Cancel what runs and end the session.
    Shutdown(EndReason),
}

/// What [`Op::Rewind`] takes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RewindWhat {
    /// The files only.
    Code,
    /// The conversation only (continued as a fork).
    Conversation,
    /// The files and the conversation.
    Both,
}

impl RewindWhat {
    /// Whether the files are restored.
    pub fn code(self) -> bool {
        matches!(self, Self::Code | Self::Both)
    }

    /// Whether the conversation is restored (as a fork).
    pub fn conversation(self) -> bool {
        matches!(self, Self::Conversation | Self::Both)
    }
}

pub use crate::lifecycle::{CompactTrigger, EndReason, FrontEndError};

/// Why the controller could not carry out a command.
#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    /// No agent for a new or stored session (configuration, a missing or broken session):
    /// the [`AgentFactory`]'s error.
    #[error(transparent)]
    Session(FrontEndError),
    /// The model cannot be used (unknown provider, missing key): the [`AgentFactory`]'s
    /// error.
    #[error(transparent)]
    Model(FrontEndError),
    /// No background work by that id, or it would not stop.
    #[error(transparent)]
    Task(FrontEndError),
    /// [`Op::Rewind`] asked for a prompt further back than the session has.
    #[error("no prompt {back} back")]
    NoPrompt {
        /// Which prompt was asked for, counted from the end.
        back: usize,
    },
    /// [`Op::Rewind`] could not put the files back.
    #[error("cannot restore the files: {0}")]
    Restore(#[source] std::io::Error),
    /// [`Op::Rewind`] of the files while background work may still write them.
    #[error(
        "background work is still running and may change files: {}; stop it first \
         (/tasks stop ID), then rewind",
        .running.join(", ")
    )]
    BackgroundWriters {
        /// The work still running: its id and its first line (`bg_1 (sleep 30)`).
        running: Vec<String>,
    },
    /// No permission question waits under that call id.
    #[error("no permission question is waiting for call {0}")]
    NoQuestion(String),
    /// `auto` needs the OS sandbox, and this machine has none.
    #[error(
        "auto mode needs the OS sandbox, which is unavailable here (see `rein sandbox check`); \
         staying in the current mode"
    )]
    NoSandbox,
    /// The agent is working; the operation needs it idle.
    #[error("wait for the turn to end (Esc cancels it) first")]
    Busy,
}

/// Two errors are equal when they are of one kind and say the same: a source is compared by
/// what it says, as a front end shows it.
impl PartialEq for ControlError {
    fn eq(&self, other: &Self) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
            && self.to_string() == other.to_string()
    }
}

impl Eq for ControlError {}

/// Where the controller gets agents: the front end's configuration and session store.
pub trait AgentFactory: Send + Sync {
    /// A fresh agent recording a new session.
    fn new_session(&self) -> Result<Agent, ControlError>;
    /// An agent continuing the stored session `id`.
    fn resume(&self, id: &str) -> Result<Agent, ControlError>;
    /// Points `agent` at `model` (a new client when the provider changes); a
    /// [`ControlError::Model`] when it cannot be used.
    fn switch_model(&self, agent: &mut Agent, model: &str) -> Result<(), ControlError>;
    /// An agent recording a new session forked from the stored session `from`, its
    /// transcript `transcript` (a rewound conversation).
    fn fork(
        &self,
        from: &str,
        transcript: Vec<rein_protocol::Message>,
    ) -> Result<Agent, ControlError>;
    /// The sender the session's events go to, given the front end's: telemetry puts itself in
    /// between here (default: the front end's own).
    fn events(&self, events: crate::EventSender) -> crate::EventSender {
        events
    }
    /// Adds the folder `dir` (as the user typed it) to `agent`'s workspace and to the
    /// agents made after it; the folder's canonical path.
    fn add_dir(&self, agent: &mut Agent, dir: &str) -> Result<std::path::PathBuf, ControlError> {
        let _ = (agent, dir);
        Err(ControlError::Session(
            "folders cannot be added to this session".into(),
        ))
    }
}

/// What a status line shows about the session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionStatus {
    /// The session's id.
    pub session_id: String,
    /// Model name.
    pub model: String,
    /// Permission mode.
    pub mode: PermissionMode,
    /// Session usage so far.
    pub usage: Usage,
    /// Session cost so far; `None` when the model is not priced.
    pub cost_usd: Option<f64>,
    /// The context in use, estimated.
    pub context_tokens: u64,
    /// The model's context window.
    pub context_window: u64,
    /// How hard the model is asked to think (`None`: its own default).
    pub effort: Option<Effort>,
    /// The OS sandbox is there, so `auto` mode may be chosen.
    pub sandboxed: bool,
    /// A job (a run, a compaction) is under way.
    pub running: bool,
    /// Where the session keeps files the model may read (over-long outputs, pasted
    /// pictures): a folder its `read_file` and `@` mentions reach.
    pub outputs_dir: Option<std::path::PathBuf>,
}

impl SessionStatus {
    /// The status of `agent`, idle.
    pub fn of(agent: &Agent) -> Self {
        let (usage, cost_usd) = agent.session_totals();
        let mode = agent.policy().lock().map(|p| p.mode).unwrap_or_default();
        Self {
            session_id: agent.session_id().to_string(),
            model: agent.model().to_string(),
            mode,
            usage,
            cost_usd,
            context_tokens: crate::context::estimate(agent.transcript()),
            context_window: agent.context_window(),
            effort: agent.effort(),
            sandboxed: agent.sandboxed(),
            running: false,
            outputs_dir: agent.outputs_dir().map(std::path::Path::to_path_buf),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error;

    use super::*;

    #[test]
    fn control_errors_say_what_they_said_and_keep_their_sources() {
        let restore = ControlError::Restore(std::io::Error::other("disk full"));
        assert_eq!(restore.to_string(), "cannot restore the files: disk full");
        assert_eq!(
            restore.source().map(ToString::to_string).as_deref(),
            Some("disk full")
        );
        let store = std::io::Error::other("no stored session 7");
        let session = ControlError::Session(Box::new(store));
        assert_eq!(session.to_string(), "no stored session 7");
        let ControlError::Session(source) = &session else {
            panic!("{session:?}");
        };
        assert!(source.downcast_ref::<std::io::Error>().is_some());
        assert_eq!(
            ControlError::NoPrompt { back: 4 }.to_string(),
            "no prompt 4 back"
        );
        assert_eq!(
            session,
            ControlError::Session("no stored session 7".into()),
            "equal when of one kind and saying the same"
        );
        assert_ne!(session, ControlError::Model("no stored session 7".into()));
    }
}
