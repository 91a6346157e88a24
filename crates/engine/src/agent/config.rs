//! The settings an agent is built with.

use std::path::PathBuf;

use crate::dispatch::DispatchLimits;
use crate::hooks::HookSpec;
use rein_policy::Policy;

/// Settings of an agent.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// Model name.
    pub model: String,
    /// Workspace root; tools are confined to it.
    pub workspace: PathBuf,
    /// Model requests allowed per run.
    pub max_turns: u32,
    /// The model's context window in tokens; `None` uses the built-in table.
    pub context_window: Option<u64>,
    /// Windows of models by name prefix, from the user's config; they beat the built-in
    /// table (see [`crate::context::context_window_with`]) and follow `/model` switches.
    pub context_windows: Vec<(String, u64)>,
    /// Output token limit per request; `None` uses the model's (see [`rein_llm::models`]).
    pub max_tokens: Option<u32>,
    /// Output limits of models by name prefix, from the user's config; they beat the
    /// built-in table and follow `/model` switches.
    pub max_output_tokens: Vec<(String, u32)>,
    /// Which models read images, by name prefix, from the user's config (`[vision]`); they
    /// beat the built-in table (see [`rein_llm::models::sees_images`]).
    pub vision: Vec<(String, bool)>,
    /// How long Anthropic keeps the prompt cache's entries (`1h` for slow sessions).
    pub cache_ttl: rein_llm::CacheTtl,
    /// How hard the model should think (`--effort`); `None` leaves the model's default.
    pub effort: Option<rein_llm::Effort>,
    /// Concurrency and timeout of tool calls.
    pub dispatch: DispatchLimits,
    /// Permission mode and rules.
    pub policy: Policy,
    /// Paths no tool may touch: the built-in list (which nothing replaces) and the configured
    /// patterns, compiled (`SensitivePaths::new`); `None`: the built-in list alone.
    pub sensitive: Option<rein_tools::SensitivePaths>,
    /// The session's cost (USD) at which the run stops before its next request
    /// (`--max-budget-usd`); it cannot apply to a model whose price rein does not know.
    pub max_budget_usd: Option<f64>,
    /// Folders added to the workspace (`--add-dir`): the file tools read and write them like
    /// the workspace; sandboxed commands see them read-only.
    pub added_dirs: Vec<PathBuf>,
    /// The model asked while the mode is `plan` (Claude Code's `opusplan`: Opus plans, the
    /// session's model carries the plan out); the same provider serves both.
    pub plan_model: Option<String>,
    /// Whether tool calls' end events carry Claude Code's shape of the result
    /// (`--output-dialect claude`).
    pub claude_results: bool,
    /// The user's own system prompt text (`--system-prompt`, `--append-system-prompt`).
    pub prompt_text: PromptText,
    /// Hook commands.
    pub hooks: Vec<HookSpec>,
    /// Variables no tool process or hook inherits, besides the built-in provider keys (the
    /// configured key variable).
    pub hidden_env: Vec<String>,
    /// The session id to use (resuming); `None` makes a new one.
    pub session_id: Option<String>,
    /// Folder of the user's own memory file (`AGENTS.md`, else `CLAUDE.md`), if any.
    pub user_memory_dir: Option<PathBuf>,
    /// Claude Code's folder (`~/.claude`), whose `CLAUDE.md` is the user's memory too.
    pub claude_memory_dir: Option<PathBuf>,
    /// Bytes one tool result may put in the transcript.
    pub output_limit: usize,
    /// Folder under which each session saves its over-long tool outputs in full, in
    /// `<workspace key>/<session id>/` (the key of [`crate::session::workspace_key`]), which
    /// `read_file` may read; `None` keeps only their head and tail.
    pub outputs_root: Option<PathBuf>,
    /// Folder under which each session keeps the earlier state of the files its file tools
    /// change, in `<workspace key>/<session id>/` (`rein undo`); `None` keeps nothing.
    pub checkpoints_root: Option<PathBuf>,
    /// Folder under which each session keeps its task board, in `<workspace key>/<session
    /// id>/` (its files survive `--continue`); `None` keeps the board in memory.
    pub tasks_root: Option<PathBuf>,
    /// Folder under which each workspace keeps its memory across sessions (`<workspace
    /// key>/`, the `memory` tool's `/memories`); `None`: no memory.
    pub memory_root: Option<PathBuf>,
    /// Where the workspace's durable scheduled jobs are kept (`None`: every job ends with
    /// the session).
    pub schedule_place: Option<rein_schedule::DurablePlace>,
    /// The clock scheduled jobs run on (a test's fake clock; the system's otherwise).
    pub clock: rein_schedule::SharedClock,
    /// What a new worktree starts from (`worktree_base`: `head`, or `working-tree` to carry
    /// uncommitted changes of tracked files).
    pub worktree_base: crate::worktree::BaseRef,
    /// Most bytes of file contents one session's checkpoints keep.
    pub checkpoint_cap: u64,
    /// The OS sandbox, when this machine has one (proven read-only shell lines always run in
    /// it, read-only; `auto` mode needs it).
    pub sandbox: Option<std::sync::Arc<rein_sandbox::Sandbox>>,
    /// The policy of other shell commands (`auto` raises it to `workspace-write`).
    pub sandbox_policy: rein_sandbox::Policy,
    /// Where outside files (PDFs, pictures) are parsed (in a child under limits in rein).
    pub parsers: rein_sandbox::bounded::Parsers,
    /// The subagents the `task` tool offers; `None`: no `task` tool.
    pub subagents: Option<crate::subagents::Subagents>,
    /// The web tools (`web_fetch`); `None`: not offered.
    pub web: Option<crate::web::WebTools>,
    /// Offer the `compact` tool, with which the model compacts its own transcript.
    pub compact_tool: bool,
    /// How much of the tool definitions and the system prompt requests carry: the lean
    /// profile (small windows) offers the everyday tools briefly and caps the memory files
    /// and the skill list. The CLI chooses it from the window unless configured.
    pub tools_profile: rein_tools::ToolsProfile,
    /// The model asked instead when the configured one is overloaded or not found.
    pub fallback: Option<Fallback>,
    /// Custom slash commands and skills (`/name args` expands; the `skill` tool is offered
    /// when the model may load one).
    pub commands: crate::commands::Catalog,
    /// When identical calls with identical results earn a reminder, and end the run.
    pub repeat_limits: super::RepeatLimits,
    /// Tools beside the built-in ones that may change during the session (MCP servers').
    pub tool_source: Option<std::sync::Arc<dyn rein_tools::ToolSource>>,
    /// Where the text of a fetched command (an MCP server's prompt) comes from.
    pub prompt_source: Option<std::sync::Arc<dyn crate::commands::PromptSource>>,
    /// The editor whose buffers the file tools read and write (`rein acp`, when the editor
    /// offers them).
    pub editor: rein_tools::Editor,
    /// The session's language servers (shared by its agents; none when none was found).
    pub code: rein_tools::Code,
}

impl AgentConfig {
    /// Defaults: 50 turns; the model's window and output limit.
    pub fn new(model: impl Into<String>, workspace: PathBuf) -> Self {
        Self {
            model: model.into(),
            workspace,
            max_turns: 50,
            context_window: None,
            context_windows: Vec::new(),
            max_tokens: None,
            max_output_tokens: Vec::new(),
            vision: Vec::new(),
            cache_ttl: rein_llm::CacheTtl::default(),
            effort: None,
            dispatch: DispatchLimits::default(),
            policy: Policy::default(),
            sensitive: None,
            max_budget_usd: None,
            claude_results: false,
            added_dirs: Vec::new(),
            plan_model: None,
            prompt_text: PromptText::default(),
            hooks: Vec::new(),
            hidden_env: Vec::new(),
            session_id: None,
            user_memory_dir: None,
            claude_memory_dir: None,
            output_limit: rein_tools::DEFAULT_OUTPUT_LIMIT,
            outputs_root: None,
            checkpoints_root: None,
            tasks_root: None,
            memory_root: None,
            schedule_place: None,
            clock: std::sync::Arc::new(rein_schedule::SystemClock),
            worktree_base: crate::worktree::BaseRef::Head,
            checkpoint_cap: rein_checkpoint::DEFAULT_CAP_BYTES,
            sandbox: None,
            sandbox_policy: rein_sandbox::Policy::Off,
            parsers: rein_sandbox::bounded::Parsers::in_process(),
            subagents: None,
            web: None,
            editor: rein_tools::Editor::default(),
            code: rein_tools::Code::default(),
            commands: Default::default(),
            fallback: None,
            compact_tool: false,
            tools_profile: rein_tools::ToolsProfile::Full,
            repeat_limits: super::RepeatLimits::default(),
            tool_source: None,
            prompt_source: None,
        }
    }
}

/// A second model for when the first fails (`--fallback-model`).
#[derive(Clone)]
pub struct Fallback {
    /// Its name, as sent.
    pub model: String,
    /// Its provider's client.
    pub client: std::sync::Arc<dyn rein_llm::ModelClient>,
}

impl std::fmt::Debug for Fallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fallback")
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

/// The user's own text in the main agent's system prompt (subagents keep their definitions').
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptText {
    /// Replaces rein's opening (who the agent is and its rules); the environment, tool
    /// notes, memory files and skills stay.
    pub replace: Option<String>,
    /// Added at the end.
    pub append: Option<String>,
    /// The repository map, built as the session starts and kept for its whole length (so the
    /// prompt cache holds): `[tools] repo_map_at_start`.
    pub repo_map: Option<rein_tools::RepoMapTool>,
}
