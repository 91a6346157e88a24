//! Raw command-line flags of `rein exec` (and the UI), `rein tool` and the small subcommands,
//! as clap parses them; `exec::overrides` turns `rein exec`'s into the settings' overrides.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use crate::arg_values::{InputFormat, OutputDialect, OutputFormat, ProviderArg, positive_usd};

/// `rein undo`.
#[derive(Debug, Args)]
pub struct UndoArgs {
    /// Workspace directory (default: the current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// The session whose turns are undone (default: this workspace's latest).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// How many of the session's last turns that changed files (and are not undone yet).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub turns: u32,
    /// Show what would change; change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Also restore files changed since rein wrote them (otherwise they are kept).
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Subcommand)]
pub enum SandboxCommand {
    /// Print whether this machine can sandbox commands, and with what.
    Check {
        /// Workspace directory (default: the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
pub enum LspCommand {
    /// Print the language servers rein knows, which are installed, and their settings.
    Check {
        /// Workspace directory (default: the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the merged configuration, each value with where it was set.
    Show {
        /// Workspace directory (default: the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
    },
    /// Set KEY (dotted: tools.max_parallel) to VALUE (TOML when it reads as TOML:
    /// true, 30, ["a"]; else a string), checked before the file is written.
    Set {
        /// The key.
        key: String,
        /// The value.
        value: String,
        #[command(flatten)]
        at: SettingsAt,
    },
    /// Remove KEY from a settings file.
    Unset {
        /// The key.
        key: String,
        #[command(flatten)]
        at: SettingsAt,
    },
    /// Add a permission rule (Claude Code's notation: 'Bash(cargo test *)', 'Edit(src/**)').
    Allow {
        /// The rule.
        rule: String,
        #[command(flatten)]
        at: RuleAt,
    },
    /// Add a rule whose calls always ask.
    Ask {
        /// The rule.
        rule: String,
        #[command(flatten)]
        at: RuleAt,
    },
    /// Add a rule whose calls never run.
    Deny {
        /// The rule.
        rule: String,
        #[command(flatten)]
        at: RuleAt,
    },
    /// Remove a permission rule from the one rein settings file that has it.
    RemoveRule {
        /// The rule as written.
        rule: String,
        /// Which file, when several have it.
        #[arg(long, value_enum)]
        scope: Option<ScopeArg>,
        /// Workspace directory (default: the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
    },
}

/// Where `rein config set` and `unset` write.
#[derive(Debug, Args)]
pub struct SettingsAt {
    /// Which file.
    #[arg(long, value_enum, default_value = "user")]
    pub scope: ScopeArg,
    /// Workspace directory (default: the current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
}

/// Where `rein config allow|ask|deny` write.
#[derive(Debug, Args)]
pub struct RuleAt {
    /// Which file.
    #[arg(long, value_enum, default_value = "local")]
    pub scope: ScopeArg,
    /// Workspace directory (default: the current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
}

/// A settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScopeArg {
    /// The user's config.toml: every workspace.
    User,
    /// The workspace's .rein/config.toml, shared with the team.
    Workspace,
    /// The workspace's .rein/config.local.toml, this user's own.
    Local,
}

impl From<ScopeArg> for rein_tui::settings::SettingsScope {
    fn from(scope: ScopeArg) -> Self {
        match scope {
            ScopeArg::User => Self::User,
            ScopeArg::Workspace => Self::Workspace,
            ScopeArg::Local => Self::Local,
        }
    }
}

#[derive(Debug, Clone, Default, Args)]
pub struct ExecArgs {
    /// The prompt; `-` or nothing reads it from standard input.
    pub prompt: Option<String>,
    /// A picture (or PDF) in the workspace to attach to the prompt, as `@FILE` in it would
    /// (repeatable; codex's `--image`).
    #[arg(long, short = 'i', value_name = "FILE")]
    pub image: Vec<String>,
    /// Model name (default: claude-sonnet-4-5, or $REIN_MODEL).
    #[arg(long, short = 'm')]
    pub model: Option<String>,
    /// The model asked instead when the first is overloaded or not found (config:
    /// `fallback_model`).
    #[arg(long, value_name = "MODEL")]
    pub fallback_model: Option<String>,
    /// Wire protocol; inferred from the model name when absent.
    #[arg(long, value_enum)]
    pub provider: Option<ProviderArg>,
    /// API base URL (Anthropic: without /v1; OpenAI-style: ending in /v1).
    #[arg(long)]
    pub base_url: Option<String>,
    /// Environment variable holding the API key (default: ANTHROPIC_API_KEY or OPENAI_API_KEY).
    #[arg(long)]
    pub api_key_env: Option<String>,
    /// Maximum model requests for this run (default 50; at least 1).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: Option<u32>,
    /// Workspace directory (default: the current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// How to read the prompt: text, or stream-json (messages on standard input).
    #[arg(long, value_enum, default_value_t = InputFormat::Text)]
    pub input_format: InputFormat,
    /// Whose shapes stream-json and json print: rein's own (schema v1) or Claude Code's
    /// (`system`/`init`, `assistant`, `user`, `result`), for tools written against Claude Code.
    /// (config: `output_dialect`; default rein).
    #[arg(long, value_enum)]
    pub output_dialect: Option<OutputDialect>,
    /// How to print the run.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub output_format: OutputFormat,
    /// Permission mode: default (read-only tools run; edits and shell commands need approval,
    /// which a headless run cannot give), accept-edits, auto (edits and commands run, the
    /// commands in the workspace-write OS sandbox), plan (read-only), bypass.
    #[arg(long, value_parser = ["default", "accept-edits", "auto", "plan", "bypass", "acceptEdits", "bypassPermissions"])]
    pub permission_mode: Option<String>,
    /// OS sandbox of shell commands: read-only, workspace-write or off (default: the
    /// config's `sandbox`, else off; proven read-only commands always run read-only).
    #[arg(long, value_parser = ["read-only", "workspace-write", "off"])]
    pub sandbox: Option<String>,
    /// Trust this workspace's own config files as they are now (like `rein trust`) and apply
    /// them.
    #[arg(long)]
    pub trust_workspace: bool,
    /// Rules for calls that run without approval, e.g. 'Bash(cargo test *)' 'Read' 'Edit(src/**)'
    /// (repeatable; several per value separated by commas or spaces).
    #[arg(long, alias = "allowedTools", value_name = "RULES")]
    pub allowed_tools: Vec<String>,
    /// Rules for calls that never run, e.g. 'Bash(rm *)' (repeatable, like --allowed-tools).
    #[arg(long, alias = "disallowedTools", value_name = "RULES")]
    pub disallowed_tools: Vec<String>,
    /// Continue the stored session with this id (see `rein sessions`); `-r` alone opens the
    /// session picker of the terminal UI.
    #[arg(
        long,
        short = 'r',
        value_name = "ID",
        num_args = 0..=1,
        default_missing_value = "",
        conflicts_with = "continue_latest"
    )]
    pub resume: Option<String>,
    /// Continue the latest session of this workspace.
    #[arg(long = "continue", short = 'c')]
    pub continue_latest: bool,
    /// With --resume/--continue: start a new session from a copy of that one.
    #[arg(long)]
    pub fork_session: bool,
    /// The model's context window in tokens (default: from the model's name).
    #[arg(long, value_name = "TOKENS")]
    pub context_window: Option<u64>,
    /// How hard the model thinks: minimal, low, medium or high (default: the model's own).
    #[arg(long, value_name = "LEVEL", value_parser = rein_llm::Effort::parse)]
    pub effort: Option<rein_llm::Effort>,
    /// Compact the (resumed) transcript now, before the prompt if one is given.
    #[arg(long)]
    pub compact: bool,
    /// After the prompt, keep the session alive to run its scheduled jobs and wake-ups
    /// (`cron_create`, `schedule_wakeup`, `/loop`, durable jobs of the workspace) until none
    /// is left, or Ctrl-C.
    #[arg(long)]
    pub stay: bool,
    /// With --compact: what the summary should focus on.
    #[arg(long, value_name = "TEXT", requires = "compact")]
    pub focus: Option<String>,
    /// Answers to the model's questions for a run without a terminal: a JSON object from each
    /// question (its text, header or id) to the label chosen, or a list of labels.
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,
    /// Stop before the next model request once the session has cost this much (USD).
    #[arg(long, value_name = "USD", value_parser = positive_usd)]
    pub max_budget_usd: Option<f64>,
    /// A settings file applied over every other (Claude Code's `settings.json`, or rein's
    /// `config.toml` when it ends in `.toml`), or the JSON itself (repeatable).
    #[arg(long, value_name = "FILE|JSON")]
    pub settings: Vec<String>,
    /// MCP servers from a file in `.mcp.json`'s format, or that JSON itself (repeatable).
    #[arg(long, value_name = "FILE|JSON")]
    pub mcp_config: Vec<String>,
    /// Start only the servers of --mcp-config, none of the configured ones.
    #[arg(long)]
    pub strict_mcp_config: bool,
    /// Add a folder to the workspace (repeatable): the file tools, grep and glob read and
    /// write it like the workspace, under the same sensitive-path rules; sandboxed shell
    /// commands see it read-only.
    #[arg(long = "add-dir", value_name = "DIR")]
    pub add_dir: Vec<PathBuf>,
    /// Run headless and print the answer, as `rein exec` does (Claude Code's `-p`).
    #[arg(long = "print", short = 'p')]
    pub print: bool,
    /// Skip every permission check: `--permission-mode bypass`, with a warning.
    #[arg(long, conflicts_with = "permission_mode")]
    pub dangerously_skip_permissions: bool,
    /// Replace rein's opening instructions (who the agent is and its rules) with TEXT; the
    /// environment, the tool notes, memory files and skills are still sent.
    #[arg(long, value_name = "TEXT", conflicts_with = "system_prompt_file")]
    pub system_prompt: Option<String>,
    /// Like --system-prompt, with the text of FILE.
    #[arg(long, value_name = "FILE")]
    pub system_prompt_file: Option<PathBuf>,
    /// Add TEXT at the end of the system prompt.
    #[arg(long, value_name = "TEXT")]
    pub append_system_prompt: Option<String>,
    /// Write the session's spans (model requests, tool calls, subagents…) to FILE as JSON
    /// lines, as they would go to an OpenTelemetry collector; `rein trace FILE` shows them.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Accepted for Claude Code's scripts (`-p --output-format stream-json --verbose`):
    /// rein's stream-json carries every event anyway, and text mode shows each tool call.
    #[arg(long)]
    pub verbose: bool,
}

#[derive(Debug, Args)]
pub struct ToolArgs {
    /// Tool name (e.g. bash, read_file); `--list` shows them all.
    #[arg(required_unless_present = "list", default_value = "")]
    pub name: String,
    /// List the tools with their descriptions and argument schemas.
    #[arg(long)]
    pub list: bool,
    /// Arguments as a JSON object; read from standard input when absent.
    #[arg(long)]
    pub args: Option<String>,
    /// Print `{"output": …, "is_error": …}` instead of the bare result.
    #[arg(long)]
    pub json: bool,
    /// Workspace directory (default: the current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
}
