//! The agent: a transcript plus the loop that extends it. [`Agent`] is made of named parts,
//! each in its module: the `Transcript`, the `Toolset`, the `Gate` every call passes, the
//! session's `Recording`, the `Totals` it spent, how a run opens (`Opening`), the subagents it
//! hands work to (`Delegation`), its undo side (`Checkpointing`) and what the loop watches
//! (`Watch`). [`Agent::run`] opens a run; `step.rs` drives it, one model request at a time.

mod commands;
mod compact_tool;
mod compaction;
mod config;
mod context_budget;
mod delegation;
mod folder_memory;
mod folders;
mod hook_points;
mod mentions;
mod model;
mod notes;
mod opening;
mod permissions;
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
mod toolset;
mod transcript;
mod undo;
mod user_shell;
mod worktree_tools;

pub use compaction::CompactionError;
pub use config::{AgentConfig, Fallback, PromptText};
pub use context_budget::ContextReport;
pub use repeats::RepeatLimits;
pub use rewind::RewindPoint;
use setup::new_session_id;
pub use setup::workspace_guard;
pub(crate) use subagent::ParentView;
pub(crate) use todos::report_board;

use std::sync::{Arc, Mutex};
use std::time::Instant;

use rein_llm::{LlmError, ModelClient};
use rein_protocol::{Event, RunOutcome, Usage};
use rein_tools::{OutputBudget, ToolContext, ToolRegistry};
use tokio_util::sync::CancellationToken;

use crate::emitter::Emitter;
use crate::gate::Gate;
use crate::hooks::Hooks;
use crate::memory::FolderMemory;
use crate::prompt::SystemPrompt;
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

impl RunSummary {
    /// Adds what one request (or a subagent) spent.
    fn spent(&mut self, usage: &Usage, cost: Option<f64>) {
        self.usage.add(usage);
        self.cost_usd = add_costs(self.cost_usd, cost);
    }
}

/// Usage and cost of the whole session (earlier runs included).
#[derive(Debug, Clone, Copy)]
struct Totals {
    usage: Usage,
    /// `None` once any request's price was unknown.
    cost: Option<f64>,
}

impl Default for Totals {
    fn default() -> Self {
        Self {
            usage: Usage::default(),
            cost: Some(0.0),
        }
    }
}

impl Totals {
    /// Adds what a run or a summary request spent.
    fn add(&mut self, usage: &Usage, cost: Option<f64>) {
        self.usage.add(usage);
        self.cost = add_costs(self.cost, cost);
    }
}

/// Two costs summed, unknown when either is.
fn add_costs(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    a.zip(b).map(|(a, b)| rein_llm::round_cost(a + b))
}

/// What the loop watches in the model's calls.
#[derive(Debug, Default)]
struct Watch {
    /// Identical calls with identical results in a row (loop detection).
    repeats: repeats::Repeats,
    /// Model turns since the last `todo_write`.
    turns_without_todos: u32,
}

/// A model, tools and a transcript; [`Agent::run`] adds one user prompt and works on it.
pub struct Agent {
    client: Arc<dyn ModelClient>,
    config: AgentConfig,
    system: SystemPrompt,
    session_id: String,
    transcript: transcript::Transcript,
    toolset: toolset::Toolset,
    /// Guard, locks and output budget shared by every tool call of the session.
    tool_ctx: ToolContext,
    /// Permission policy, who answers its questions, and the hooks.
    gate: Gate,
    recording: recording::Recording,
    totals: Totals,
    opening: opening::Opening,
    /// Sub-folder memory files shown so far.
    folder_memory: FolderMemory,
    delegation: delegation::Delegation,
    checkpointing: undo::Checkpointing,
    watch: Watch,
    /// Who answers the model's questions (`ask_user_question`), once a front end says.
    answerer: crate::questions::AnswererSlot,
    /// The session's scheduled jobs (`cron_create`, `schedule_wakeup`, `/loop`); a
    /// subagent's is empty and unused.
    schedule: rein_schedule::Schedule,
    /// What the session wrote down as it went, for a compaction from notes.
    notes: notes::Notes,
}

impl Agent {
    /// Sets up an agent in `config.workspace`, which must be an existing directory.
    pub fn new(
        client: Arc<dyn ModelClient>,
        tools: ToolRegistry,
        config: AgentConfig,
    ) -> Result<Self, EngineError> {
        let answerer = crate::questions::AnswererSlot::default();
        let schedule = setup::schedule(&config);
        let (toolset, spawner) = toolset::Toolset::new(tools, &config, &answerer, &schedule);
        let guard = workspace_guard(
            &config.workspace,
            &config.added_dirs,
            config.sensitive.as_ref(),
            &config.policy,
        )?;
        let session_id = config.session_id.clone().unwrap_or_else(new_session_id);
        let hidden_env = rein_tools::HiddenEnv::with(config.hidden_env.iter().cloned());
        let (guard, output_dir) = setup::with_output_dir(guard, &config, &session_id)?;
        let checkpoints = setup::checkpoints(guard.root(), &config, &session_id);
        let (system, mut notices) = setup::system_prompt(&guard, &toolset.registry, &config);
        let guard = setup::with_skill_dirs(guard, &config, &mut notices);
        let board = setup::board(guard.root(), &config, &session_id, &mut notices);
        Ok(Self {
            client,
            system,
            session_id: session_id.clone(),
            transcript: Default::default(),
            toolset,
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
            tool_ctx: ToolContext {
                budget: OutputBudget::new(config.output_limit, output_dir),
                hidden_env,
                sandbox: config.sandbox.clone(),
                sandbox_policy: config.sandbox_policy,
                parsers: config.parsers.clone(),
                services: services(board, &config),
                ..ToolContext::new(guard)
            },
            recording: Default::default(),
            totals: Totals::default(),
            opening: opening::Opening {
                notices,
                ..Default::default()
            },
            folder_memory: FolderMemory::default(),
            delegation: delegation::Delegation {
                spawner,
                subagent_name: None,
            },
            checkpointing: undo::Checkpointing {
                store: checkpoints,
                ..Default::default()
            },
            watch: Watch::default(),
            answerer,
            schedule,
            notes: Default::default(),
            config,
        })
    }

    /// This session's identifier.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The system prompt sent with every request.
    pub fn system_prompt(&self) -> &SystemPrompt {
        &self.system
    }

    /// Usage and cost (when known) of the whole session so far.
    pub fn session_totals(&self) -> (Usage, Option<f64>) {
        (self.totals.usage, self.totals.cost)
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
        self.open_run(events, Some(prompt));
        let mut summary = RunSummary {
            outcome: RunOutcome::Completed,
            text: String::new(),
            turns: 0,
            usage: Usage::default(),
            cost_usd: Some(0.0),
            error: None,
        };
        let expanded = match self.delegation.subagent_name {
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
        if let Some(spawner) = &self.delegation.spawner {
            // Teammates' `tasks` events come through their own streams and may arrive out of
            // order: the run's last one is the board as the run ends.
            if spawner.team.has_members() {
                todos::report_board(&self.tool_ctx.services.get::<rein_board::Board>(), events);
            }
            // It holds a sender of this run's events: a front end waits for them to close.
            spawner.clear_parent();
        }
        if let Some(problem) = self.recording.problem.take() {
            events.error(problem);
        }
        self.totals.add(&summary.usage, summary.cost_usd);
        events.emit(Event::Result {
            outcome: summary.outcome,
            text: summary.text.clone(),
            turns: summary.turns,
            usage: summary.usage,
            cost_usd: summary.cost_usd,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            session_usage: self.totals.usage,
            session_cost_usd: self.totals.cost,
        });
        summary
    }
}

/// A new agent's tool services: its board, the session's editor and language servers, the
/// built-in picture parser for pictures from elsewhere (an MCP server's); its shell jobs start
/// empty.
fn services(board: rein_board::Board, config: &AgentConfig) -> rein_tools::Services {
    let services = rein_tools::Services::default();
    services.put(board);
    services.put(rein_tool::picture::Pictures::new(
        rein_tools::media::PICTURE_PARSER,
    ));
    services.put(config.editor.clone());
    services.put(config.code.clone());
    services
}
