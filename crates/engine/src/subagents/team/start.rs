//! Starting teammates: a new one for a `task` call with a `name`, or, when a session is
//! resumed, each teammate of its roster again, idle, with its stored transcript as its
//! context (and its worktree, when it still exists).

use std::sync::Arc;

use rein_protocol::{Message, SessionRecord};

use super::{State, TEAMMATE_PREFIX};
use crate::Agent;
use crate::agent::ParentView;
use crate::session::RosterEntry;
use crate::subagents::spawner::{Job, Spawner, forward};
use crate::subagents::{AgentDefinition, Isolation, isolation};
use crate::worktree::{self, Worktree};
use rein_policy::PermissionMode;

/// Why a teammate could not start.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LaunchError {
    /// Its model cannot be used.
    #[error(transparent)]
    Model(#[from] crate::subagents::spawner::ModelUnavailable),
    /// The team refused it (name, room).
    #[error(transparent)]
    Team(#[from] super::TeamError),
    /// Its worktree could not be made.
    #[error(transparent)]
    Place(#[from] isolation::PlaceError),
}

/// A teammate of a resumed session, to start again.
#[derive(Debug, Clone)]
pub(crate) struct Restore {
    pub(crate) entry: RosterEntry,
    pub(crate) transcript: Vec<Message>,
}

/// Where a teammate works.
enum Placement {
    /// A new teammate: the workspace, or a new worktree.
    New(Isolation),
    /// A restored one: the worktree it had, if it is still there.
    Existing(Option<String>),
}

/// What starting one teammate takes.
struct Launch<'a> {
    name: &'a str,
    definition: &'a AgentDefinition,
    parent: &'a ParentView,
    mode: Option<PermissionMode>,
    placement: Placement,
    /// The call its events are wrapped with.
    forward_id: String,
    /// Its first input; `None`: it starts idle.
    first: Option<String>,
    /// Its context so far (a restored teammate's).
    transcript: Vec<Message>,
}

impl Spawner {
    /// Starts `job` as teammate `name`: long-lived, with its own inbox, working beside the
    /// parent until it stops (`mode`: its own permission mode, e.g. `plan`; else it shares
    /// the session's).
    pub(crate) fn start_teammate(
        &self,
        job: Job,
        name: &str,
        mode: Option<PermissionMode>,
    ) -> Result<String, LaunchError> {
        self.launch(Launch {
            name,
            definition: &job.definition,
            parent: &job.parent,
            mode,
            placement: Placement::New(job.isolation),
            forward_id: job.call_id.clone(),
            first: Some(brief(name, &job.prompt)),
            transcript: Vec::new(),
        })
    }

    /// Teammates of a resumed session to start again at the parent's next run.
    pub(crate) fn restore_later(&self, restores: Vec<Restore>) {
        (self.to_restore.lock().unwrap_or_else(|p| p.into_inner())).extend(restores);
    }

    /// Starts the teammates waiting to be restored, idle, telling the parent.
    pub(crate) fn restore_teammates(&self, parent: &ParentView) {
        let pending =
            std::mem::take(&mut *self.to_restore.lock().unwrap_or_else(|p| p.into_inner()));
        for restore in pending {
            let name = restore.entry.name.clone();
            let Some(definition) = self.definition(&restore.entry.agent).cloned() else {
                self.team.tell_lead(
                    &name,
                    format!(
                        "[teammate {name} of the stored session could not start again: there is \
                         no agent `{}` any more]",
                        restore.entry.agent
                    ),
                );
                continue;
            };
            let launched = self.launch(Launch {
                name: &name,
                definition: &definition,
                parent,
                mode: restore
                    .entry
                    .mode
                    .as_deref()
                    .and_then(PermissionMode::parse),
                placement: Placement::Existing(restore.entry.worktree.clone()),
                forward_id: format!("{TEAMMATE_PREFIX}{name}"),
                first: unfinished(&parent.board(), &name),
                transcript: restore.transcript,
            });
            let notice = match launched {
                Ok(_) => format!(
                    "[teammate {name} of the stored session is back, idle, with its context]"
                ),
                Err(error) => {
                    format!(
                        "[teammate {name} of the stored session could not start again: {error}]"
                    )
                }
            };
            self.team.tell_lead(&name, notice);
        }
    }

    fn launch(&self, launch: Launch<'_>) -> Result<String, LaunchError> {
        let Launch {
            name,
            definition,
            parent,
            mode,
            placement,
            forward_id,
            first,
            transcript,
        } = launch;
        let (model, client) = self.model_for(definition, parent)?;
        let events = parent.events();
        let (status, cancel, inbox) =
            (self.team).join(name, &definition.name, &events, parent.recorder())?;
        let (parent, worktree) = match place(parent, placement, name) {
            Ok(placed) => placed,
            Err(error) => {
                self.team
                    .set_state(name, State::Stopped, Some("no worktree"));
                return Err(error.into());
            }
        };
        let mut tools = match &definition.tools {
            None => self.parts.tools.subset(|_| true),
            Some(names) => (self.parts.tools).subset(|tool| names.iter().any(|n| n == tool)),
        };
        // Its `cd` is its own.
        isolation::own_shell(&mut tools);
        tools.register(Arc::new(super::SendMessageTool(Arc::clone(&self.team))));
        // Offered only while it plans (`mode` plan); its plan goes to the lead.
        tools.register(Arc::new(crate::plan::ExitPlanMode));
        let mut agent = Agent::subagent(
            &parent,
            definition,
            tools,
            (model.clone(), client),
            &format!("{TEAMMATE_PREFIX}{name}"),
            self.parts.max_turns,
            cancel.clone(),
        );
        agent.join_team(name, &self.team, &parent, mode);
        if !transcript.is_empty() {
            agent.restore(transcript, Default::default(), Some(0.0));
        }
        self.team.record(SessionRecord::Teammate {
            name: name.to_string(),
            agent: definition.name.clone(),
            state: "started".into(),
            mode: mode.map(|m| m.name().to_string()),
            worktree: worktree.as_ref().map(|t| t.path.display().to_string()),
        });
        let (tx, _forwarder) = forward(events, &forward_id, name);
        let start = super::Start {
            name: name.to_string(),
            model,
            agent,
            first: first.clone(),
            inbox,
            status,
            cancel,
            events: tx,
            board: parent.board(),
            spent: Arc::clone(&self.parts.spent),
            worktree,
        };
        if first.is_some() {
            self.team.set_state(name, State::Working, None);
        }
        tokio::spawn(super::run_teammate(start, Arc::clone(&self.team)));
        Ok(name.to_string())
    }
}

/// The parent as the teammate sees it, and its worktree.
fn place(
    parent: &ParentView,
    placement: Placement,
    name: &str,
) -> Result<(ParentView, Option<Worktree>), isolation::PlaceError> {
    match placement {
        Placement::New(isolation) => {
            isolation::place(parent, isolation, name, parent.worktree_base())
        }
        Placement::Existing(Some(path)) if std::path::Path::new(&path).is_dir() => {
            let tree = worktree::find(&parent.workspace(), std::path::Path::new(&path))?;
            let view = parent.in_worktree(&tree.path)?;
            Ok((view, Some(tree)))
        }
        // Its worktree went with the last session (nothing was in it): a new one.
        Placement::Existing(Some(_)) => {
            isolation::place(parent, Isolation::Worktree, name, parent.worktree_base())
        }
        Placement::Existing(None) => Ok((parent.clone(), None)),
    }
}

/// What a restored teammate still held when its session stopped (killed before it could give
/// its tasks back), as its first input; `None` when nothing.
fn unfinished(board: &rein_board::Board, name: &str) -> Option<String> {
    let held: Vec<String> = (board.list().into_iter())
        .filter(|t| {
            t.owner.as_deref() == Some(name) && t.status == rein_protocol::TaskStatus::InProgress
        })
        .map(|t| format!("#{} {}", t.id, t.subject))
        .collect();
    (!held.is_empty()).then(|| {
        format!(
            "The session stopped while you were working on {}; it has started again. Continue, \
             and mark each task completed when it is done.",
            held.join(", ")
        )
    })
}

/// A teammate's first input: who it is in the team, how to talk, and its task.
fn brief(name: &str, prompt: &str) -> String {
    format!(
        "You are `{name}`, a teammate working beside the lead (`{lead}`) and other teammates. \
         Your plain text is seen by nobody: talk with send_message (to `{lead}` or a teammate by \
         name). Messages to you arrive as <message> blocks between your steps. The task board \
         (task_list, task_update) is shared: set owner to `{name}` when you take a task and mark \
         it completed when it is done. When you have nothing left to do, end your turn: you \
         then wait for messages or take the next ready task.\n\n{prompt}",
        lead = super::LEAD
    )
}
