//! The shapes of configuration files, as serde reads them: rein's TOML, and the parts of a
//! Claude Code `settings.json` that rein honours (`permissions`, `hooks`).

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

/// One rein TOML file. Every key is optional; unknown keys are errors (typos must not pass
/// silently).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TomlFile {
    pub model: Option<Spanned<String>>,
    /// The model of the built-in `explore` subagent (an alias or a name; default: the
    /// session's).
    pub explore_model: Option<Spanned<String>>,
    /// The model asked when the first is overloaded or not found.
    pub fallback_model: Option<Spanned<String>>,
    /// MCP servers, with codex's keys.
    pub mcp_servers: Option<std::collections::BTreeMap<String, rein_mcp::TomlServer>>,
    /// Variables a workspace's MCP configuration may read (`${VAR}` in `.mcp.json`,
    /// `env_vars`…); only the user's own file sets it, and provider keys are never read.
    pub mcp_env_allow: Option<Vec<Spanned<String>>>,
    pub provider: Option<Spanned<String>>,
    pub base_url: Option<Spanned<String>>,
    pub api_key_env: Option<Spanned<String>>,
    pub max_turns: Option<Spanned<u32>>,
    pub context_window: Option<Spanned<u64>>,
    /// `[context_windows]`: a model-name prefix → its window in tokens.
    #[serde(default)]
    pub context_windows: BTreeMap<String, Spanned<u64>>,
    /// Output tokens per request, whatever the model.
    pub max_tokens: Option<Spanned<u32>>,
    /// `[max_output_tokens]`: a model-name prefix → its output limit in tokens.
    #[serde(default)]
    pub max_output_tokens: BTreeMap<String, Spanned<u32>>,
    pub permission_mode: Option<Spanned<String>>,
    /// How long Anthropic keeps prompt-cache entries: `5m` or `1h`.
    pub cache_ttl: Option<Spanned<String>>,
    /// How hard the model thinks: `minimal`, `low`, `medium` or `high`.
    pub effort: Option<Spanned<String>>,
    /// Whose shapes the JSON output formats print: `rein` or `claude`.
    pub output_dialect: Option<Spanned<String>>,
    /// How much of the tool definitions requests carry: `full` or `lean` (default: lean for
    /// windows up to 16k tokens).
    pub tools_profile: Option<Spanned<String>>,
    #[serde(default)]
    pub permissions: Permissions,
    #[serde(default)]
    pub tools: Tools,
    #[serde(default)]
    pub hooks: BTreeMap<Spanned<String>, Vec<HookGroup>>,
    /// Seconds a model stream may send nothing before it fails (default 120).
    pub idle_timeout_secs: Option<Spanned<u64>>,
    /// Seconds a model stream may send only keep-alives, no content, before it fails (300).
    pub no_progress_timeout_secs: Option<Spanned<u64>>,
    /// Longest wait before a retry a server may ask for that is waited out (default 300; a
    /// longer one fails at once).
    pub max_retry_wait_secs: Option<Spanned<u64>>,
    /// Days a stored session may stay untouched before start-up removes it (default 30).
    pub cleanup_period_days: Option<Spanned<u64>>,
    /// A command whose first line the status line shows (Claude Code's `statusLine`).
    pub status_line: Option<Spanned<String>>,
    /// Folders added to the workspace, absolute or `~/…` (`--add-dir`).
    pub additional_directories: Option<Vec<Spanned<String>>>,
    /// The OS sandbox policy of shell commands: `read-only`, `workspace-write` or `off`.
    pub sandbox: Option<Spanned<String>>,
    #[serde(default)]
    pub sandbox_settings: SandboxSettings,
    /// `[web]`: the web tools.
    #[serde(default)]
    pub web: super::web::WebFile,
    /// `[vision]`: a model-name prefix → whether it reads images.
    #[serde(default)]
    pub vision: BTreeMap<String, Spanned<bool>>,
    /// `[serve]`: `rein serve`'s chats.
    pub serve: Option<super::serve::ServeFile>,
    /// `[lsp]`: the language servers.
    #[serde(default)]
    pub lsp: super::lsp::LspFile,
    /// `[telemetry]`: where traces and metrics go.
    #[serde(default)]
    pub telemetry: super::telemetry::TelemetryFile,
}

/// `[sandbox_settings]`: what restricted shell commands may reach besides the workspace.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxSettings {
    /// Whether they may use the network (off by default).
    pub network: Option<Spanned<bool>>,
    /// Extra readable folders (`~/` allowed).
    #[serde(default)]
    pub read_roots: Vec<Spanned<String>>,
    /// Writable folders under `workspace-write` (`~/.cargo/registry`, `~/.npm`).
    #[serde(default)]
    pub writable_roots: Vec<Spanned<String>>,
}

/// `[permissions]`: rule lists.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Permissions {
    #[serde(default)]
    pub allow: Vec<Spanned<String>>,
    #[serde(default)]
    pub ask: Vec<Spanned<String>>,
    #[serde(default)]
    pub deny: Vec<Spanned<String>>,
}

/// `[tools]`: limits.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tools {
    /// Bytes one tool result may put in the transcript.
    pub output_limit: Option<Spanned<usize>>,
    /// Seconds one tool call may run.
    pub call_timeout_secs: Option<Spanned<u64>>,
    /// Read-only calls running at once.
    pub max_parallel: Option<Spanned<usize>>,
    /// Identical calls with identical results in a row before the model is reminded (3).
    pub repeat_warn: Option<Spanned<u32>>,
    /// Identical calls with identical results in a row that end the run (6).
    pub repeat_stop: Option<Spanned<u32>>,
    /// Most megabytes of earlier file contents one session's checkpoints keep (512).
    pub checkpoint_cap_mb: Option<Spanned<u64>>,
    /// Offer the model the `compact` tool (off).
    pub compact: Option<Spanned<bool>>,
    /// Most teammates running at once (8).
    pub max_teammates: Option<Spanned<usize>>,
    /// Most interactive sessions (`bash` with `tty`) running at once (4).
    pub max_terminals: Option<Spanned<usize>>,
    /// Tokens the `repo_map` tool's outline may take (1000; 0 turns the tool off).
    pub repo_map_tokens: Option<Spanned<usize>>,
    /// Add the repository map to the system prompt as each session starts (off).
    pub repo_map_at_start: Option<Spanned<bool>>,
    /// What a new worktree starts from: `head` (default) or `working-tree`.
    pub worktree_base: Option<Spanned<String>>,
    /// Paths no tool may touch, added to the built-in list.
    pub sensitive_paths: Option<Vec<Spanned<String>>>,
}

/// A hook group: Claude Code's `{matcher, hooks: [{type, command, timeout}]}`, or the
/// shorthand `{matcher, command, timeout}`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookGroup {
    pub matcher: Option<Spanned<String>>,
    #[serde(default)]
    pub hooks: Vec<HookCommand>,
    pub command: Option<Spanned<String>>,
    pub timeout: Option<Spanned<u64>>,
}

/// One hook command.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookCommand {
    #[serde(rename = "type")]
    pub kind: Option<Spanned<String>>,
    pub command: Spanned<String>,
    /// Seconds.
    pub timeout: Option<Spanned<u64>>,
}

/// The parts of a Claude Code `settings.json` rein reads; everything else is ignored.
#[derive(Debug, Default, Deserialize)]
pub struct ClaudeSettings {
    #[serde(default)]
    pub permissions: ClaudePermissions,
    /// The model (a user's or a trusted workspace's).
    pub model: Option<String>,
    /// Variables Claude Code sets for its session: named as not supported.
    #[serde(default)]
    pub env: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    pub hooks: BTreeMap<String, Vec<ClaudeHookGroup>>,
    #[serde(default, rename = "statusLine")]
    pub status_line: Option<ClaudeStatusLine>,
}

/// Claude Code's `statusLine`: `{"type": "command", "command": …}`.
#[derive(Debug, Default, Deserialize)]
pub struct ClaudeStatusLine {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub command: String,
}

/// Claude Code's `permissions` block.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaudePermissions {
    #[serde(default)]
    pub allow: Vec<String>,
    #[serde(default)]
    pub ask: Vec<String>,
    #[serde(default)]
    pub deny: Vec<String>,
    pub default_mode: Option<String>,
    /// Folders added to the workspace.
    #[serde(default)]
    pub additional_directories: Vec<String>,
}

/// Claude Code's hook group.
#[derive(Debug, Default, Deserialize)]
pub struct ClaudeHookGroup {
    pub matcher: Option<String>,
    #[serde(default)]
    pub hooks: Vec<ClaudeHookCommand>,
}

/// Claude Code's hook command.
#[derive(Debug, Default, Deserialize)]
pub struct ClaudeHookCommand {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub command: String,
    pub timeout: Option<u64>,
}
