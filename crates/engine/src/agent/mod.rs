//! The agent: a transcript plus the loop that extends it.

mod accessors;
mod commands;
mod compact_tool;
mod compaction;
mod config;
mod delegation;
mod hook_points;
mod planning;
mod recording;
mod recovery;
mod repeats;
mod rewind;
mod setup;
mod step;
mod subagent;
mod todos;
mod tool_search;
mod tool_source;
mod transcript;
mod undo;

pub use compaction::CompactionError;
pub use config::{AgentConfig, Fallback};
pub use repeats::RepeatLimits;
pub use rewind::RewindPoint;
use setup::new_session_id;
pub use setup::workspace_guard;
pub(crate) use subagent::ParentView;

use std::sync::{Arc, Mutex};
use std::time::Instant;

use rein_llm::{LlmError, ModelClient};
use rein_protocol::{Event, Message, RunOutcome, Usage};
use rein_tools::{OutputBudget, ToolContext, ToolRegistry};
use tokio_util::sync::CancellationToken;

use crate::context::Anchor;
use crate::emitter::Emitter;
use crate::gate::Gate;
use crate::hooks::Hooks;
use crate::memory::FolderMemory;
use crate::prompt::SystemPrompt;
use crate::session::SessionWriter;
use crate::subagents::Spawner;
use crate::{EngineError, EventSender};

/// What a run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    /// How the run ended.
    pub outcome: RunOutcome,
    /// The last assistant text.
    pub text: String,
    /// Model requests made.
    pub turns: u32,
    /// Usage summed over the run's requests.
    pub usage: Usage,
    /// Cost of the run in US dollars; `None` when any request's price is unknown.
    pub cost_usd: Option<f64>,
    /// The provider error that ended the run, if any.
    pub error: Option<LlmError>,
}

/// A model, tools and a transcript; [`Agent::run`] adds one user prompt and works on it.
pub struct Agent {
    client: Arc<dyn ModelClient>,
    tools: ToolRegistry,
    config: AgentConfig,
    system: SystemPrompt,
    transcript: Vec<Message>,
    session_id: String,
    /// Guard, locks and output budget shared by every tool call of the session.
    tool_ctx: ToolContext,
    /// Permission policy, who answers its questions, and the hooks.
    gate: Gate,
    /// Whether a run has started (the `SessionStart` hooks ran).
    started: bool,
    /// Where the session is recorded, if anywhere.
    /// Shared with the dispatch of a batch, which records each result as its call finishes.
    recorder: Option<Arc<Mutex<SessionWriter>>>,
    /// The first failure to record, reported once at the end of the run.
    record_problem: Option<String>,
    /// Whether the transcript was restored from a stored session.
    resumed: bool,
    /// Usage and cost of the whole session (earlier runs included).
    session_usage: Usage,
    session_cost: Option<f64>,
    /// The last reported prompt size, for the context estimate.
    anchor: Option<Anchor>,
    /// Sub-folder memory files shown so far.
    folder_memory: FolderMemory,
    /// Problems met setting up (a memory file or `.git/HEAD` skipped), reported as `Error`
    /// events at the start of the next run.
    notices: Vec<String>,
    /// What the `task` tool needs of this agent, when it offers one.
    subagents: Option<Arc<Spawner>>,
    /// The definition's name when this agent is a subagent (no session or prompt hooks).
    agent_name: Option<String>,
    /// A subagent's (`task` call id, agent name): its records go into the parent's session
    /// file wrapped as a side chain.
    sidechain: Option<(String, String)>,
    /// Identical calls with identical results in a row (loop detection).
    repeats: repeats::Repeats,
    /// Model turns since the last `todo_write`.
    turns_without_todos: u32,
    /// Restores the model has not been told of yet: (turns, files).
    restored: Vec<(Vec<u32>, Vec<String>)>,
    /// The turn's first git snapshot, being taken.
    snapshotting: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
    /// Where the `compact` tool leaves its request, when it is offered.
    compact_asked: Option<compact_tool::CompactRequest>,
    /// The names of the tools `config.tool_source` gave (replaced when they change).
    sourced: Vec<String>,
    /// Those of them left out of requests until the model loads them (`tool_search`).
    deferred: tool_search::Deferred,
}

impl Agent {
    /// Sets up an agent in `config.workspace`, which must be an existing directory.
    pub fn new(
        client: Arc<dyn ModelClient>,
        mut tools: ToolRegistry,
        config: AgentConfig,
    ) -> Result<Self, EngineError> {
        let deferred = tool_search::Deferred::default();
        let sourced = match &config.tool_source {
            Some(source) => tool_source::add_sourced(&mut tools, source.as_ref(), &[], &deferred),
            None => Vec::new(),
        };
        let subagents = setup::add_delegating_tools(&mut tools, &config);
        tools.register(Arc::new(crate::plan::ExitPlanMode));
        let compact_asked = config.compact_tool.then(|| {
            let asked = compact_tool::CompactRequest::default();
            tools.register(Arc::new(compact_tool::CompactTool(Arc::clone(&asked))));
            asked
        });
        let guard = workspace_guard(&config.workspace, &config.sensitive_paths, &config.policy)?;
        let session_id = config.session_id.clone().unwrap_or_else(new_session_id);
        let hidden_env = rein_tools::HiddenEnv::with(config.hidden_env.iter().cloned());
        let (guard, output_dir) = setup::with_output_dir(guard, &config, &session_id)?;
        let checkpoints = setup::checkpoints(guard.root(), &config, &session_id);
        let (system, mut notices) = setup::system_prompt(&guard, &tools, &config);
        let guard = setup::with_skill_dirs(guard, &config, &mut notices);
        Ok(Self {
            notices,
            client,
            tools,
            system,
            transcript: Vec::new(),
            session_id: session_id.clone(),
            started: false,
            recorder: None,
            record_problem: None,
            resumed: false,
            session_usage: Usage::default(),
            session_cost: Some(0.0),
            anchor: None,
            folder_memory: FolderMemory::default(),
            gate: Gate {
                policy: Arc::new(Mutex::new(config.policy.clone())),
                approver: None,
                hooks: Arc::new(
                    Hooks::new(config.hooks.clone(), guard.root().to_path_buf(), session_id)
                        .with_hidden_env(hidden_env.clone()),
                ),
                stop: Arc::default(),
                sandboxed: config.sandbox.is_some(),
            },
            subagents,
            agent_name: None,
            sidechain: None,
            repeats: Default::default(),
            turns_without_todos: 0,
            restored: Vec::new(),
            snapshotting: None,
            compact_asked,
            sourced,
            deferred,
            tool_ctx: ToolContext {
                budget: OutputBudget::new(config.output_limit, output_dir),
                hidden_env,
                sandbox: config.sandbox.clone(),
                sandbox_policy: config.sandbox_policy,
                checkpoints,
                ..ToolContext::new(guard)
            },
            config,
        })
    }

    /// Adds `prompt` as a user message and drives turns until the model answers without tool
    /// calls, `max_turns` requests have been made, the provider fails, or `cancel` fires.
    /// Emits `SessionStart` first and `Result` last; the transcript is valid afterwards (every
    /// tool call has a result) whatever the outcome.
    pub async fn run(
        &mut self,
        prompt: &str,
        events: &EventSender,
        cancel: CancellationToken,
    ) -> RunSummary {
        let started = Instant::now();
        events.emit(Event::SessionStart {
            session_id: self.session_id.clone(),
            provider: self.client.kind().name().to_string(),
            model: self.config.model.clone(),
            cwd: self.tool_ctx.guard.root().display().to_string(),
            tools: self.tools.names(),
        });
        for message in std::mem::take(&mut self.notices) {
            events.error(message);
        }
        let mut summary = RunSummary {
            outcome: RunOutcome::Completed,
            text: String::new(),
            turns: 0,
            usage: Usage::default(),
            cost_usd: Some(0.0),
            error: None,
        };
        let expanded = match self.agent_name {
            None => self.expand_command(prompt, events).await,
            Some(_) => None,
        };
        let (prompt, previous_model) = match &expanded {
            Some((text, previous)) => (text.as_str(), previous.clone()),
            None => (prompt, None),
        };
        match self.submit(prompt, events).await {
            Ok(()) => {
                // Only a prompt that reached the transcript starts a checkpoint turn.
                self.checkpoint_turn(Some(prompt), events).await;
                summary.outcome = self.drive(&mut summary, events, &cancel).await;
                self.checkpoint_turn(None, events).await;
            }
            Err(blocked) => {
                events.error(blocked.to_string());
                summary.outcome = RunOutcome::Failed;
            }
        }
        if let Some((model, client)) = previous_model {
            self.set_model(model, client);
        }
        if let Some(spawner) = &self.subagents {
            // It holds a sender of this run's events: a front end waits for them to close.
            spawner.clear_parent();
        }
        if let Some(problem) = self.record_problem.take() {
            events.error(problem);
        }
        self.session_usage.add(&summary.usage);
        self.session_cost = self
            .session_cost
            .zip(summary.cost_usd)
            .map(|(a, b)| rein_llm::round_cost(a + b));
        events.emit(Event::Result {
            outcome: summary.outcome,
            text: summary.text.clone(),
            turns: summary.turns,
            usage: summary.usage,
            cost_usd: summary.cost_usd,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            session_usage: self.session_usage,
            session_cost_usd: self.session_cost,
        });
        summary
    }
}
