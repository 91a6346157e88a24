//! What a front end sees of a session's background work (`/tasks`): its shells and its
//! subagents, and a way to stop one, without waiting for the agent's run.

use std::sync::Arc;

use rein_tools::{JobStatus, Jobs, Terminals};

use super::Spawner;

/// One piece of background work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackgroundTask {
    /// `bg_1` (a shell) or `agent_1` (a subagent).
    pub id: String,
    /// The command line, or the agent and its task.
    pub label: String,
    /// Whether it still runs.
    pub running: bool,
    /// How it stands, in words (`running`, `exited with code 0`…).
    pub status: String,
}

/// Why a background shell or subagent could not be stopped; each names its id.
#[derive(Debug, thiserror::Error)]
pub enum StopError {
    /// No subagent runs in the background under that id.
    #[error("there is no background agent {id}")]
    NoAgent {
        /// The id asked for.
        id: String,
    },
    /// The shell could not be killed (no such shell); the jobs table's message.
    #[error("{source}")]
    Shell {
        /// The id asked for.
        id: String,
        /// What the jobs table said.
        source: rein_tools::JobError,
    },
    /// A subagent has no output to show: its work comes back as its result.
    #[error("{id} is an agent, not a shell: what it does comes back as its result or its messages")]
    NotAShell {
        /// The id asked for.
        id: String,
    },
    /// The interactive session could not be reached; the table's message.
    #[error("{source}")]
    Terminal {
        /// The id asked for.
        id: String,
        /// What the sessions' table said.
        source: rein_tools::TerminalError,
    },
    /// Keys go only to an interactive session.
    #[error("{id} is not an interactive session: only a tty_N session takes keys")]
    NotATerminal {
        /// The id asked for.
        id: String,
    },
    /// The shell was signalled but has not ended.
    #[error("{id} was told to stop but is still running")]
    StillRunning {
        /// The shell's id.
        id: String,
    },
}

/// A session's background shells and subagents; clones share them.
#[derive(Clone, Default)]
pub struct Background {
    pub(crate) jobs: Jobs,
    /// The interactive sessions (`bash` with `tty`), listed as `tty_N`.
    pub(crate) terminals: Terminals,
    pub(crate) agents: Option<Arc<Spawner>>,
    /// The variables whose values never reach the user's view of a shell's output either.
    pub(crate) hidden: rein_tools::HiddenEnv,
}

impl Background {
    /// Every shell and subagent started in the background, shells first.
    pub fn list(&self) -> Vec<BackgroundTask> {
        let shells = self.jobs.list().into_iter().map(|job| BackgroundTask {
            running: job.status == JobStatus::Running,
            status: job.status.to_string(),
            id: job.id,
            label: job.command,
        });
        let agents =
            self.agents
                .iter()
                .flat_map(|spawner| spawner.list())
                .map(|(id, label, running)| BackgroundTask {
                    id,
                    label,
                    running,
                    status: if running { "running" } else { "finished" }.to_string(),
                });
        let teammates = (self.agents.iter())
            .flat_map(|spawner| spawner.team.roster())
            .map(|(name, agent, state, unread, usage, cost)| {
                let mut status = state.as_str().to_string();
                if unread > 0 {
                    status.push_str(&format!(" · {unread} unread"));
                }
                let tokens = usage.input_tokens + usage.output_tokens;
                status.push_str(&format!(" · {tokens} tokens"));
                if let Some(cost) = cost {
                    status.push_str(&format!(" · ${cost:.4}"));
                }
                BackgroundTask {
                    label: format!("teammate {name} ({agent})"),
                    id: name,
                    running: state != super::team::State::Stopped,
                    status,
                }
            });
        let sessions = self.terminals.list().into_iter().map(|t| BackgroundTask {
            id: format!("tty_{}", t.id),
            label: t.command,
            running: t.status == JobStatus::Running,
            status: format!("{} (interactive)", t.status),
        });
        shells
            .chain(sessions)
            .chain(agents)
            .chain(teammates)
            .collect()
    }

    /// Whether `id` names a subagent or teammate rather than a shell.
    fn is_agent(&self, id: &str) -> bool {
        id.starts_with("agent_")
            || (self.agents.iter()).any(|spawner| spawner.team.status_of(id).is_some())
    }

    /// The end of what the shell `id` printed (at most 16 KiB), for the user; what the model
    /// reads next does not move. A subagent's work comes back as its result instead.
    pub fn output(&self, id: &str) -> Result<String, StopError> {
        if self.is_agent(id) {
            return Err(StopError::NotAShell { id: id.to_string() });
        }
        if let Some(number) = terminal(id) {
            return (self.terminals.screen(number))
                .map(|screen| self.hidden.redact(&screen).into_owned())
                .map_err(|source| StopError::Terminal {
                    id: id.to_string(),
                    source,
                });
        }
        self.jobs
            .tail(id, 16 * 1024, &self.hidden)
            .map_err(|source| StopError::Shell {
                id: id.to_string(),
                source,
            })
    }

    /// Types `text` into the interactive session `id` (`tty_N`) for the user.
    pub async fn type_into(&self, id: &str, text: &str) -> Result<(), StopError> {
        let number = terminal(id).ok_or_else(|| StopError::NotATerminal { id: id.to_string() })?;
        (self.terminals.type_keys(number, text).await).map_err(|source| StopError::Terminal {
            id: id.to_string(),
            source,
        })
    }

    /// Stops the shell or subagent `id`.
    pub async fn stop(&self, id: &str) -> Result<String, StopError> {
        if let Some(number) = terminal(id) {
            let status =
                (self.terminals.kill(number).await).map_err(|source| StopError::Terminal {
                    id: id.to_string(),
                    source,
                })?;
            return match status {
                JobStatus::Running => Err(StopError::StillRunning { id: id.to_string() }),
                JobStatus::Killed => Ok(format!("{id} killed")),
                ended => Ok(format!("{id} had already ended: {ended}")),
            };
        }
        if self.is_agent(id) {
            return match self.agents.as_ref().is_some_and(|s| s.stop(id)) {
                true => Ok(format!("{id} stopped")),
                false => Err(StopError::NoAgent { id: id.to_string() }),
            };
        }
        let status = self
            .jobs
            .kill(id)
            .await
            .map_err(|source| StopError::Shell {
                id: id.to_string(),
                source,
            })?;
        match status {
            JobStatus::Running => Err(StopError::StillRunning { id: id.to_string() }),
            JobStatus::Killed => Ok(format!("{id} killed")),
            ended => Ok(format!("{id} had already ended: {ended}")),
        }
    }
}

/// The interactive session a task id names (`tty_3`).
fn terminal(id: &str) -> Option<u32> {
    id.starts_with("tty_")
        .then(|| Terminals::number(id))
        .flatten()
}
