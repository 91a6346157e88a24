//! An agent as a subagent: built from its parent's state for one `task` call, and the view of
//! the parent the `task` tool keeps for that.

use std::sync::Arc;

use async_trait::async_trait;
use rein_llm::ModelClient;
use rein_tools::{ToolContext, ToolRegistry};

use super::delegation::Delegation;
use super::opening::Opening;
use super::recording::Recording;
use super::toolset::Toolset;
use super::{Agent, AgentConfig};
use crate::EventSender;
use crate::gate::{Approval, ApprovalRequest, Approver, Gate};
use crate::hooks::HookEvent;
use crate::memory::FolderMemory;
use crate::prompt::{Environment, SystemPromptBuilder};
use crate::subagents::AgentDefinition;

/// What a subagent takes from its parent, as the parent's current run sees it.
#[derive(Clone)]
pub(crate) struct ParentView {
    client: Arc<dyn ModelClient>,
    config: AgentConfig,
    gate: Gate,
    tool_ctx: ToolContext,
    /// The parent's checkpoint store: a subagent's file changes are undone with the turn.
    checkpoints: Option<Arc<rein_checkpoint::Checkpoints>>,
    events: EventSender,
    session_id: String,
    recorder: Option<Arc<std::sync::Mutex<crate::session::SessionWriter>>>,
    deferred: super::tool_search::Deferred,
}

impl ParentView {
    /// The parent's workspace root.
    pub(crate) fn workspace(&self) -> std::path::PathBuf {
        self.tool_ctx.guard.root().to_path_buf()
    }

    /// What a new worktree starts from (`worktree_base`).
    pub(crate) fn worktree_base(&self) -> crate::worktree::BaseRef {
        self.config.worktree_base
    }

    pub(crate) fn model(&self) -> &str {
        &self.config.model
    }

    pub(crate) fn client(&self) -> Arc<dyn ModelClient> {
        Arc::clone(&self.client)
    }

    pub(crate) fn events(&self) -> EventSender {
        self.events.clone()
    }

    /// The parent as an agent working in the worktree at `path` sees it: a guard rooted
    /// there (the session's sensitive list and deny rules, its saved outputs readable), no
    /// checkpoints (the work stays on the worktree's branch).
    pub(crate) fn in_worktree(&self, path: &std::path::Path) -> Result<Self, crate::EngineError> {
        let policy = self.gate.policy().clone();
        let mut guard = super::workspace_guard(path, &[], self.config.sensitive.as_ref(), &policy)?;
        if let Some(dir) = self.tool_ctx.budget.save_dir() {
            guard = guard
                .with_read_root(dir)
                .map_err(|e| crate::EngineError::Workspace {
                    path: dir.to_path_buf(),
                    message: e.to_string(),
                })?;
        }
        let mut view = self.clone();
        view.tool_ctx.guard = guard;
        view.config.workspace = path.to_path_buf();
        view.checkpoints = None;
        Ok(view)
    }

    /// The session file's writer, when the session is recorded.
    pub(crate) fn recorder(&self) -> Option<Arc<std::sync::Mutex<crate::session::SessionWriter>>> {
        self.recorder.clone()
    }

    /// The session's task board.
    pub(crate) fn board(&self) -> rein_board::Board {
        self.tool_ctx.services.get::<rein_board::Board>().clone()
    }

    /// Runs the `SubagentStop` hooks for the subagent that ran call `call_id`.
    pub(crate) async fn subagent_stopped(&self, agent: &str, call_id: &str, last: &str) {
        let mut fields = serde_json::Map::new();
        fields.insert("stop_hook_active".into(), false.into());
        fields.insert("agent_id".into(), call_id.into());
        fields.insert("agent_type".into(), agent.into());
        fields.insert("last_assistant_message".into(), last.into());
        let mode = self.gate.hook_mode();
        self.gate
            .hooks
            .run(HookEvent::SubagentStop, None, mode, fields, &self.events)
            .await;
    }
}

/// Passes a subagent's permission questions to the parent's approver, saying whose they are.
struct Labelled {
    inner: Arc<dyn Approver>,
    agent: String,
}

#[async_trait]
impl Approver for Labelled {
    async fn approve(&self, mut request: ApprovalRequest) -> Approval {
        request.agent = Some(self.agent.clone());
        self.inner.approve(request).await
    }
}

impl Agent {
    /// Makes this subagent teammate `name`: it acts on the board under that name, its plan
    /// (in `mode` `plan`) goes to the lead, its other questions to the user labelled with
    /// its name; with a `mode` of its own it gets its own copy of the session's policy.
    pub(crate) fn join_team(
        &mut self,
        name: &str,
        team: &Arc<crate::subagents::Team>,
        parent: &ParentView,
        mode: Option<rein_policy::PermissionMode>,
    ) {
        self.tool_ctx.agent_name = Arc::from(name);
        self.delegation.subagent_name = Some(name.to_string());
        if let Some(mode) = mode {
            let mut policy = parent.gate.policy().clone();
            // Derived ≤ parent, whatever asked for it (a call, a restored session's record).
            policy.mode = mode.at_most(policy.mode);
            self.gate.policy = Arc::new(std::sync::Mutex::new(policy));
        }
        self.gate.approver = Some(Arc::new(crate::subagents::PlanToLead {
            team: Arc::clone(team),
            name: name.to_string(),
            user: parent.gate.approver.clone(),
            session: Arc::clone(&parent.gate.policy),
        }));
    }

    /// The session's scheduled jobs (shared: the controller runs what falls due and lists
    /// them).
    pub fn schedule(&self) -> rein_schedule::Schedule {
        self.schedule.clone()
    }

    /// The session's background shells and subagents, for a front end's `/tasks`.
    pub fn background(&self) -> crate::subagents::Background {
        crate::subagents::Background {
            jobs: self.tool_ctx.services.get::<rein_tools::Jobs>().clone(),
            terminals: self.toolset.registry.terminals().clone(),
            agents: self.delegation.spawner.clone(),
            hidden: self.tool_ctx.hidden_env.clone(),
        }
    }

    /// The parent's state a subagent started during the coming run needs.
    pub(super) fn parent_view(&self, events: &EventSender) -> ParentView {
        ParentView {
            client: Arc::clone(&self.client),
            config: self.config.clone(),
            gate: self.gate.clone(),
            tool_ctx: self.tool_ctx.clone(),
            checkpoints: self.checkpointing.store.clone(),
            events: events.clone(),
            session_id: self.session_id.clone(),
            recorder: self.recording.writer.clone(),
            deferred: self.toolset.deferred.clone(),
        }
    }

    /// A fresh agent for one `task` call: `definition`'s prompt and `tools`, the parent's
    /// guard, policy, hooks, approver (labelled), output budget and path locks. Its records
    /// go into the parent's session file as a side chain; it runs no session or prompt hooks.
    pub(crate) fn subagent(
        parent: &ParentView,
        definition: &AgentDefinition,
        tools: ToolRegistry,
        (model, client): (String, Arc<dyn ModelClient>),
        call_id: &str,
        max_turns: u32,
        cancel: tokio_util::sync::CancellationToken,
    ) -> Self {
        let mut config = parent.config.clone();
        config.model = model;
        config.max_turns = max_turns;
        config.subagents = None;
        // The parent's budget stops the parent, which counts what its subagents spend.
        config.max_budget_usd = None;
        // Its tools are chosen once, from the parent's, by its definition.
        config.tool_source = None;
        let guard = &parent.tool_ctx.guard;
        let mut builder = SystemPromptBuilder::new(Environment::detect(guard.root()), guard)
            .identity(&definition.prompt)
            .tools(tools.names())
            .profile(config.tools_profile)
            .skills(&config.commands);
        for dir in config
            .user_memory_dir
            .iter()
            .chain(&config.claude_memory_dir)
        {
            builder = builder.user_memory(dir);
        }
        let gate = subagent_gate(&parent.gate, &definition.name);
        Self {
            client,
            // Its `tool_search` (from the parent's tools) loads into the parent's list.
            toolset: Toolset::for_subagent(tools, parent.deferred.clone(), config.tools_profile),
            system: builder.build(),
            transcript: Default::default(),
            // Its own prompt-cache key; the parent's id shows whose it is.
            session_id: format!("{}-{call_id}", parent.session_id),
            opening: Opening {
                started: true,
                ..Default::default()
            },
            recording: Recording {
                writer: parent.recorder.clone(),
                problem: None,
                sidechain: Some((call_id.to_string(), definition.name.clone())),
            },
            totals: Default::default(),
            folder_memory: FolderMemory::default(),
            gate,
            tool_ctx: ToolContext {
                cancel,
                // The session's board, shared; it acts under its definition's name.
                agent_name: std::sync::Arc::from(definition.name.as_str()),
                call_id: None,
                facts: None,
                progress: None,
                ..parent.tool_ctx.clone()
            },
            delegation: Delegation {
                spawner: None,
                subagent_name: Some(definition.name.clone()),
            },
            checkpointing: super::undo::Checkpointing {
                store: parent.checkpoints.clone(),
                ..Default::default()
            },
            watch: Default::default(),
            // Its question tool is the parent's, answered by the parent's front end.
            answerer: Default::default(),
            // Its work ends with its run: it has no scheduling tools.
            schedule: rein_schedule::Schedule::in_memory(
                Arc::clone(&config.clock),
                "a subagent schedules nothing",
            ),
            notes: Default::default(),
            config,
        }
    }
}

/// A subagent's gate: the parent's policy, hooks and approver (its questions labelled with
/// the agent's name), a stop of its own.
fn subagent_gate(parent: &Gate, agent: &str) -> Gate {
    Gate {
        policy: Arc::clone(&parent.policy),
        approver: parent.approver.as_ref().map(|inner| {
            Arc::new(Labelled {
                inner: Arc::clone(inner),
                agent: agent.to_string(),
            }) as Arc<dyn Approver>
        }),
        hooks: Arc::clone(&parent.hooks),
        stop: Arc::default(),
        sandboxed: parent.sandboxed,
    }
}
