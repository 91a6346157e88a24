//! What a front end asks of a session's settings, typed: `rein exec`'s and the UI's flags,
//! `mcp serve`'s server flags narrowed by a call, an editor's `session/new`, a chat's place.
//! Each front end turns what it reads into [`Overrides`] in its own argument code (the only
//! place its flags are read); [`crate::settings::Settings::new`] reads nothing else, and no
//! front end fabricates another's flags.

use std::path::PathBuf;

use rein_llm::ProviderKind;
use rein_policy::PermissionMode;

use crate::arg_values::OutputDialect;

/// Everything a front end may set over the environment and the configuration files.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// The workspace (default: the current directory).
    pub cwd: Option<PathBuf>,
    /// Which provider and model, and how to reach it.
    pub route: Route,
    /// The model used when the run's own is overloaded.
    pub fallback_model: Option<String>,
    /// The permission mode, over `$REIN_PERMISSION_MODE` and the config.
    pub mode: Option<Mode>,
    /// The OS sandbox's policy, over the config's.
    pub sandbox: Option<rein_sandbox::Policy>,
    /// Whether the workspace was trusted for this run (`--trust-workspace`).
    pub trust: TrustFlag,
    /// Rules added after the configuration's.
    pub rules: RuleTexts,
    /// Folders added to the workspace, as given (made canonical when the settings are read).
    pub added_dirs: Vec<PathBuf>,
    /// `--settings` sources (files or JSON text), over every other source.
    pub settings_sources: Vec<String>,
    /// MCP servers named for this run.
    pub mcp: McpServers,
    /// How the session starts: new, or a stored one continued.
    pub start: SessionStart,
    /// Limits over the configuration's.
    pub limits: Limits,
    /// The user's system prompt text.
    pub prompt: PromptTexts,
    /// A file the session's spans are written to (`--trace`).
    pub trace: Option<PathBuf>,
    /// Whose shapes the JSON output formats print.
    pub output_dialect: Option<OutputDialect>,
}

/// The flags that choose the provider: `--provider`, `--model`, `--base-url`, `--api-key-env`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Route {
    /// The wire protocol (guessed from the model's name when absent).
    pub provider: Option<ProviderKind>,
    /// The model's name or alias.
    pub model: Option<String>,
    /// The API's base URL.
    pub base_url: Option<String>,
    /// The variable holding the API key.
    pub api_key_env: Option<String>,
}

/// A permission mode a front end sets, and how the user asked for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `--permission-mode` (or a caller's narrower mode).
    Named(PermissionMode),
    /// `--dangerously-skip-permissions`: bypass, with a warning.
    SkipPermissions,
}

impl Mode {
    /// The mode itself.
    pub fn mode(self) -> PermissionMode {
        match self {
            Self::Named(mode) => mode,
            Self::SkipPermissions => PermissionMode::Bypass,
        }
    }

    /// The flag it is named after in messages and in `config show`.
    pub fn flag(self) -> &'static str {
        match self {
            Self::Named(_) => "--permission-mode",
            Self::SkipPermissions => "--dangerously-skip-permissions",
        }
    }
}

/// Permission rules as the user typed them (a value may hold several, comma-separated).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleTexts {
    /// Calls that run without asking (`--allowed-tools`).
    pub allow: Vec<String>,
    /// Calls that never run (`--disallowed-tools`).
    pub deny: Vec<String>,
}

/// MCP servers a run names beyond the configured ones.
#[derive(Debug, Clone, Default)]
pub struct McpServers {
    /// `--mcp-config` values: files, or `.mcp.json` text.
    pub configs: Vec<String>,
    /// Servers given whole (an editor's `session/new`), started after every other.
    pub servers: Vec<rein_mcp::ServerConfig>,
    /// Only these servers start (`--strict-mcp-config`).
    pub strict: bool,
}

/// How a session starts: where, and whether a stored one goes on in a file of its own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionStart {
    /// New, or the stored session continued.
    pub at: StartAt,
    /// The stored session continued in a new file (`--fork-session`).
    pub fork: bool,
}

/// Where a session starts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum StartAt {
    /// A new session.
    #[default]
    New,
    /// The workspace's latest stored session (`--continue`).
    Latest,
    /// The stored session of this id (`--resume ID`; empty: the UI offers a list).
    Resume(String),
}

impl StartAt {
    /// The stored session named, if any (`--resume`'s id).
    pub fn resumed(&self) -> Option<&str> {
        match self {
            Self::Resume(id) => Some(id),
            Self::New | Self::Latest => None,
        }
    }
}

/// Limits a front end sets over the configuration's.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Limits {
    /// Most model requests per prompt.
    pub max_turns: Option<u32>,
    /// The context window, in tokens.
    pub context_window: Option<u64>,
    /// How hard the model thinks.
    pub effort: Option<rein_llm::Effort>,
    /// The session stops before its next request once it has cost this much (USD).
    pub max_budget_usd: Option<f64>,
}

/// The user's system prompt text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptTexts {
    /// Replaces rein's opening (`--system-prompt`).
    pub system: Option<String>,
    /// A file whose text replaces rein's opening (`--system-prompt-file`).
    pub system_file: Option<PathBuf>,
    /// Added at the end (`--append-system-prompt`).
    pub append: Option<String>,
}

/// Whether `--trust-workspace` was passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TrustFlag {
    /// Not passed: the stored decision (or the question) settles the trust.
    #[default]
    Absent,
    /// Passed: the workspace is trusted, and the trust recorded.
    Given,
}
