//! Starting subagents for one parent agent: in the foreground (the `task` call waits for the
//! answer) or in the background (the answer is handed to the parent when it comes).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rein_llm::ModelClient;
use rein_protocol::{Event, RunOutcome, Usage};
use rein_tools::ToolOutput;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio_util::sync::CancellationToken;

use super::{AgentDefinition, ModelChoice, Subagents};
use crate::agent::ParentView;
use crate::emitter::Emitter;
use crate::{Agent, EventSender};

pub(crate) use super::team::Team;

/// What a subagent spent: its model, usage and cost, for the parent's session.
pub(crate) type Spent = (String, Usage, Option<f64>);

/// One `task` call, ready to run.
pub(crate) struct Job {
    pub definition: AgentDefinition,
    pub parent: ParentView,
    pub prompt: String,
    pub call_id: String,
    pub description: String,
    /// Where it works (the call's `isolation`, else its definition's).
    pub isolation: super::Isolation,
}

/// A background subagent.
struct Running {
    id: String,
    /// `explore: find the parser`.
    label: String,
    cancel: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

/// What running a subagent needs of its spawner (shared with a background run, which must not
/// keep the spawner, and so the parent's session, alive).
#[derive(Clone)]
pub(super) struct Parts {
    /// The parent's tools but `task`.
    pub(super) tools: Arc<rein_tools::ToolRegistry>,
    pub(super) max_turns: u32,
    pub(super) spent: Arc<Mutex<Vec<Spent>>>,
}

/// Starts subagents for one parent agent.
pub(crate) struct Spawner {
    catalog: Subagents,
    /// Tools, turn limit, and what finished subagents spent until the parent takes it.
    pub(super) parts: Parts,
    /// Teammates of a resumed session, started (idle) at the parent's next run.
    pub(super) to_restore: Mutex<Vec<super::team::Restore>>,
    /// The parent as its current run sees it (set at the start of each run).
    parent: Mutex<Option<ParentView>>,
    next: AtomicU32,
    running: Mutex<Vec<Running>>,
    /// Answers of background subagents, as notices for the parent.
    finished_tx: UnboundedSender<(String, String)>,
    finished_rx: tokio::sync::Mutex<UnboundedReceiver<(String, String)>>,
    /// The parent's teammates; their letters to it come as notices too.
    pub(crate) team: Arc<Team>,
}

impl Drop for Spawner {
    fn drop(&mut self) {
        let running = self.running.get_mut().unwrap_or_else(|p| p.into_inner());
        for job in running.iter() {
            job.cancel.cancel();
            job.task.abort();
        }
        // The session is ending: its stream has said its last (`result`).
        self.team.silence();
        self.team.stop_all();
    }
}

impl Spawner {
    pub(crate) fn new(catalog: Subagents, tools: rein_tools::ToolRegistry) -> Self {
        let (finished_tx, finished_rx) = unbounded_channel();
        let team = Arc::new(Team::new(finished_tx.clone(), catalog.max_teammates));
        Self {
            team,
            parts: Parts {
                tools: Arc::new(tools),
                max_turns: catalog.max_turns,
                spent: Arc::default(),
            },
            catalog,
            to_restore: Mutex::new(Vec::new()),
            parent: Mutex::new(None),
            next: AtomicU32::new(0),
            running: Mutex::new(Vec::new()),
            finished_tx,
            finished_rx: tokio::sync::Mutex::new(finished_rx),
        }
    }

    /// The definitions the model can name.
    pub(crate) fn definitions(&self) -> &[AgentDefinition] {
        &self.catalog.definitions
    }

    pub(crate) fn definition(&self, name: &str) -> Option<&AgentDefinition> {
        self.catalog.definitions.iter().find(|d| d.name == name)
    }

    /// The parent's state for the calls of the run going on, if one is.
    pub(crate) fn parent(&self) -> Option<ParentView> {
        self.parent
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The parent's state for the calls of the run starting now.
    pub(crate) fn set_parent(&self, view: ParentView) {
        *self.parent.lock().unwrap_or_else(|p| p.into_inner()) = Some(view);
    }

    /// Forgets the parent's state when its run ends.
    pub(crate) fn clear_parent(&self) {
        *self.parent.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// What subagents spent since the last call.
    pub(crate) fn take_spent(&self) -> Vec<Spent> {
        std::mem::take(&mut *self.parts.spent.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// How many background subagents and teammates are still working.
    pub(crate) fn running(&self) -> usize {
        let running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        let agents = running.iter().filter(|job| !job.task.is_finished()).count();
        agents + self.team.working()
    }

    /// Background subagents: id, what they work on, whether they still run.
    pub(crate) fn list(&self) -> Vec<(String, String, bool)> {
        let running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        running
            .iter()
            .map(|job| (job.id.clone(), job.label.clone(), !job.task.is_finished()))
            .collect()
    }

    /// Stops background subagent or teammate `id`; `false` when there is none by that id.
    pub(crate) fn stop(&self, id: &str) -> bool {
        if self.team.stop(id) {
            return true;
        }
        let running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        match running.iter().find(|job| job.id == id) {
            Some(job) => {
                job.cancel.cancel();
                true
            }
            None => false,
        }
    }

    /// Notices of background subagents that finished since the last call.
    pub(crate) fn take_finished(&self) -> Vec<String> {
        let Ok(mut rx) = self.finished_rx.try_lock() else {
            return Vec::new();
        };
        std::iter::from_fn(|| rx.try_recv().ok())
            .map(|(_, notice)| notice)
            .collect()
    }

    /// The next background subagent's notice, waiting up to `wait` (or until `cancel`).
    pub(crate) async fn next_finished(
        &self,
        wait: Duration,
        cancel: &CancellationToken,
    ) -> Option<String> {
        let mut rx = self.finished_rx.lock().await;
        tokio::select! {
            () = cancel.cancelled() => None,
            got = tokio::time::timeout(wait, rx.recv()) => got.ok().flatten().map(|(_, n)| n),
        }
    }

    /// Stops every background subagent and teammate.
    pub(crate) fn stop_all(&self) {
        self.team.stop_all();
        for job in self
            .running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
        {
            job.cancel.cancel();
        }
    }

    /// Runs `job` to its end; its answer is the call's result.
    pub(crate) async fn run(&self, job: Job, cancel: CancellationToken) -> ToolOutput {
        let (model, client) = match self.model_for(&job.definition, &job.parent) {
            Ok(found) => found,
            Err(error) => return ToolOutput::error(error.to_string()),
        };
        run_job(job, self.parts.clone(), (model, client), cancel).await
    }

    /// Starts `job` in the background; its answer comes as a notice.
    pub(crate) fn start_background(self: &Arc<Self>, job: Job) -> Result<String, ModelUnavailable> {
        let model = self.model_for(&job.definition, &job.parent)?;
        let n = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let id = format!("agent_{n}");
        let cancel = CancellationToken::new();
        let parts = self.parts.clone();
        let what = format!("{}: {}", job.definition.name, job.description);
        let (token, label) = (cancel.clone(), format!("{id} ({what})"));
        let finished = self.finished_tx.clone();
        let notice_id = id.clone();
        let task = tokio::spawn(async move {
            let output = run_job(job, parts, model, token).await;
            let verb = if output.is_error {
                "failed"
            } else {
                "finished"
            };
            let notice = format!(
                "[background agent {label} {verb}; its answer:]\n{}",
                output.text
            );
            let _ = finished.send((notice_id, notice));
        });
        self.running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Running {
                id: id.clone(),
                label: what,
                cancel,
                task,
            });
        Ok(id)
    }

    /// The model and client for `definition`, given the parent's.
    pub(super) fn model_for(
        &self,
        definition: &AgentDefinition,
        parent: &ParentView,
    ) -> Result<(String, Arc<dyn ModelClient>), ModelUnavailable> {
        match (&definition.model, &self.catalog.models) {
            (ModelChoice::Inherit, _) | (_, None) => {
                Ok((parent.model().to_string(), parent.client()))
            }
            (ModelChoice::Named(model), Some(source)) => {
                source.client_for(model).map_err(|source| ModelUnavailable {
                    agent: definition.name.clone(),
                    model: model.clone(),
                    source,
                })
            }
        }
    }
}

/// A subagent's own model that its client source could not give.
#[derive(Debug, thiserror::Error)]
#[error("the {agent} agent's model `{model}` cannot be used: {source}")]
pub(crate) struct ModelUnavailable {
    /// The agent's name.
    pub(crate) agent: String,
    /// The model it names.
    pub(crate) model: String,
    /// Why the source refused it.
    pub(crate) source: crate::FrontEndError,
}

/// Runs `job` to its end with `model`; its answer as a tool result.
async fn run_job(
    job: Job,
    parts: Parts,
    (model, client): (String, Arc<dyn ModelClient>),
    cancel: CancellationToken,
) -> ToolOutput {
    let Job {
        definition,
        parent,
        prompt,
        call_id,
        isolation,
        ..
    } = job;
    let base = parent.worktree_base();
    let (parent, worktree) = match super::isolation::place(&parent, isolation, "", base) {
        Ok(placed) => placed,
        Err(error) => return ToolOutput::error(error.to_string()),
    };
    let mut tools = match &definition.tools {
        None => parts.tools.subset(|_| true),
        Some(names) => parts.tools.subset(|tool| names.iter().any(|n| n == tool)),
    };
    if worktree.is_some() {
        super::isolation::own_shell(&mut tools);
    }
    let mut agent = Agent::subagent(
        &parent,
        &definition,
        tools,
        (model.clone(), client),
        &call_id,
        parts.max_turns,
        cancel.clone(),
    );
    let (tx, forwarder) = forward(parent.events(), &call_id, &definition.name);
    let summary = agent.run(&prompt, &tx, cancel).await;
    drop((tx, agent));
    let _ = forwarder.await;
    parent
        .subagent_stopped(&definition.name, &call_id, &summary.text)
        .await;
    parts.spent.lock().unwrap_or_else(|p| p.into_inner()).push((
        model,
        summary.usage,
        summary.cost_usd,
    ));
    let mut output = outcome_output(summary, parts.max_turns);
    let left = (worktree.as_ref()).and_then(|tree| super::isolation::leave(tree, &definition.name));
    if let Some(note) = left {
        output.text.push_str(&format!("\n\n{note}"));
    }
    output
}

/// A subagent's run as its call's result.
fn outcome_output(summary: crate::RunSummary, max_turns: u32) -> ToolOutput {
    match summary.outcome {
        RunOutcome::Completed if summary.text.trim().is_empty() => {
            ToolOutput::ok("(the subagent finished without a final message)")
        }
        RunOutcome::Completed => ToolOutput::ok(summary.text),
        RunOutcome::MaxTurns => ToolOutput::ok(format!(
            "{}\n\n[the subagent stopped at its limit of {} turns before it finished; \
             the text above is its last message]",
            if summary.text.is_empty() {
                "(no text)"
            } else {
                &summary.text
            },
            max_turns
        )),
        RunOutcome::Cancelled => ToolOutput::error("the subagent was cancelled"),
        // Subagents run without a budget of their own; the parent's stops the parent.
        RunOutcome::MaxBudget => ToolOutput::error("the subagent stopped at the budget"),
        RunOutcome::Failed => ToolOutput::error(format!(
            "the subagent failed: {}",
            summary
                .error
                .map(|e| e.to_string())
                .unwrap_or_else(|| "see its events".to_string())
        )),
    }
}

/// A channel for the subagent's events, and a task passing each on to `parent` wrapped with
/// the call's id and the agent's name; it ends when the sender is dropped.
pub(super) fn forward(
    parent: EventSender,
    call_id: &str,
    agent: &str,
) -> (EventSender, tokio::task::JoinHandle<()>) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Event>();
    let (call_id, agent) = (call_id.to_string(), agent.to_string());
    let forwarder = tokio::spawn(async move {
        while let Some(event) = rx.recv().await {
            parent.emit(Event::Subagent {
                parent_tool_use_id: call_id.clone(),
                agent: agent.clone(),
                event: Box::new(event),
            });
        }
    });
    (tx, forwarder)
}
