//! Layered configuration: user, Claude Code project settings, project and
//! project-local TOML, environment, flags. Scalars take the most specific value; lists merge.
//!
//! Loading is a pure function ([`load`]) from file texts to a typed [`Config`]; every value
//! remembers where it came from, so errors name the file, line and key, and `rein config show`
//! can say where each setting was set. Finding the files is [`discover::sources`].

mod claude;
pub mod discover;
mod file;
mod hooks;
mod limits;
pub mod lsp;
mod mcp;
pub mod missing_tools;
mod permissions;
mod routing;
mod sandbox;
mod scalars;
pub mod serve;
mod show;
mod telemetry;
mod tools;
pub mod trust;
mod web;

use std::collections::BTreeMap;
use std::fmt;

use rein_engine::hooks::{HookEvent, HookSpec};
use rein_policy::PermissionMode;
use toml::Spanned;

pub use mcp::McpTable;
pub use web::WebConfig;

pub use show::render;

/// Where a value nobody set comes from.
pub const DEFAULT: &str = "default";

/// What a configuration text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// rein's `config.toml`.
    Toml,
    /// A Claude Code `settings.json` (only `permissions` and `hooks` are read).
    ClaudeSettings,
}

/// Whose file a configuration text is, which bounds what it may set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The user's own file: everything applies (it routes the user's credentials, too).
    User,
    /// A workspace file the user trusts: everything but credential routing applies.
    TrustedWorkspace,
    /// A workspace file the user has not trusted: only what makes rein stricter applies
    /// (deny and ask rules, sensitive paths, the `plan` and `default` modes) and harmless
    /// settings (model, limits); hooks, allow rules and other modes are ignored.
    UntrustedWorkspace,
}

/// One configuration text and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The file, as shown in messages.
    pub path: String,
    /// Its contents.
    pub text: String,
    /// How to read it.
    pub format: Format,
    /// Whose it is.
    pub scope: Scope,
}

/// A setting a workspace file made that was not applied, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignored {
    /// What it would have done: `hook PreToolUse: ./x.sh`, `allow rule Bash(*)`.
    pub what: String,
    /// Where it was written.
    pub source: String,
    /// Why it was not applied.
    pub why: Why,
}

/// Why a workspace setting was not applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// The workspace is not trusted; trusting it applies the setting.
    Untrusted,
    /// Credentials are never routed by a workspace file, trusted or not.
    Credentials,
    /// A setting of the user's whole store (retention), never a workspace's.
    UserOnly,
    /// A Claude Code setting rein does not have (named, not dropped in silence).
    Unsupported,
}

/// A value and where it was set (`path:line`, `env REIN_MODEL`, `--model`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sourced<T> {
    pub value: T,
    pub source: String,
}

/// The merged configuration. `None` means "not set anywhere": the built-in default applies.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    pub model: Option<Sourced<String>>,
    /// The built-in `explore` subagent's model.
    pub explore_model: Option<Sourced<String>>,
    /// The model asked when the first is overloaded or not found.
    pub fallback_model: Option<Sourced<String>>,
    /// MCP servers of `[mcp_servers]` tables, a later file's replacing an earlier one's of
    /// the same name.
    pub mcp_servers: Vec<McpTable>,
    /// `.mcp.json`-format texts `--mcp-config` gave (the user's own), each with its source.
    pub mcp_flag_files: Vec<Sourced<String>>,
    /// MCP servers a front end gave whole (an editor's), started after every other.
    pub mcp_given: Vec<rein_mcp::ServerConfig>,
    /// `--strict-mcp-config`: only the servers of [`Config::mcp_flag_files`] start.
    pub mcp_strict: bool,
    /// Variables a workspace's MCP configuration may read (the user's own config only).
    pub mcp_env_allow: Vec<Sourced<String>>,
    pub provider: Option<Sourced<String>>,
    pub base_url: Option<Sourced<String>>,
    pub api_key_env: Option<Sourced<String>>,
    pub max_turns: Option<Sourced<u32>>,
    pub context_window: Option<Sourced<u64>>,
    /// Windows of models by name prefix (`[context_windows]`), lower-cased; a later file's
    /// entry replaces an earlier one's.
    pub context_windows: BTreeMap<String, Sourced<u64>>,
    /// Output tokens per request whatever the model (`max_tokens`).
    pub max_tokens: Option<Sourced<u32>>,
    /// Output limits of models by name prefix (`[max_output_tokens]`), lower-cased.
    pub max_output_tokens: BTreeMap<String, Sourced<u32>>,
    /// Which models read images, by name prefix (`[vision]`), lower-cased.
    pub vision: BTreeMap<String, Sourced<bool>>,
    /// `[web]`.
    pub web: WebConfig,
    /// `[telemetry]`.
    pub telemetry: telemetry::TelemetryConfig,
    /// `[lsp]`: the language servers.
    pub lsp: lsp::LspConfig,
    /// `[serve]`: `rein serve`'s chats.
    pub serve: serve::ServeConfig,
    pub permission_mode: Option<Sourced<PermissionMode>>,
    /// Lifetime of Anthropic's prompt-cache entries.
    pub cache_ttl: Option<Sourced<rein_llm::CacheTtl>>,
    /// How hard the model thinks.
    pub effort: Option<Sourced<rein_llm::Effort>>,
    /// Whose shapes `stream-json` and `json` print (`--output-dialect`).
    pub output_dialect: Option<Sourced<crate::arg_values::OutputDialect>>,
    /// Which tool definitions requests carry (`tools_profile`); unset, the window decides.
    pub tools_profile: Option<Sourced<rein_tools::ToolsProfile>>,
    pub allow: Vec<Sourced<String>>,
    pub ask: Vec<Sourced<String>>,
    pub deny: Vec<Sourced<String>>,
    pub output_limit: Option<Sourced<usize>>,
    pub call_timeout_secs: Option<Sourced<u64>>,
    pub max_parallel: Option<Sourced<usize>>,
    /// Megabytes of file contents one session's checkpoints keep.
    pub checkpoint_cap_mb: Option<Sourced<u64>>,
    /// Loop detection: the reminder's and the stop's counts of identical calls.
    pub repeat_warn: Option<Sourced<u32>>,
    pub repeat_stop: Option<Sourced<u32>>,
    /// Offer the model the `compact` tool.
    pub compact_tool: Option<Sourced<bool>>,
    /// Most teammates running at once.
    pub max_teammates: Option<Sourced<usize>>,
    /// Most interactive sessions running at once.
    pub max_terminals: Option<Sourced<usize>>,
    /// Tokens the repository map may take (0: no `repo_map` tool).
    pub repo_map_tokens: Option<Sourced<usize>>,
    /// The repository map in the system prompt from the session's start.
    pub repo_map_at_start: Option<Sourced<bool>>,
    /// What a new worktree starts from (`head`, `working-tree`).
    pub worktree_base: Option<Sourced<String>>,
    /// Paths added to the built-in sensitive list (never a replacement of it).
    pub sensitive_paths: Vec<Sourced<String>>,
    pub hooks: Vec<HookSpec>,
    /// Seconds a model stream may send nothing.
    pub idle_timeout_secs: Option<Sourced<u64>>,
    /// Seconds a model stream may send only keep-alives.
    pub no_progress_timeout_secs: Option<Sourced<u64>>,
    /// Longest server-requested wait before a retry that is waited out.
    pub max_retry_wait_secs: Option<Sourced<u64>>,
    /// Days a stored session may stay untouched before start-up removes it (user config).
    pub cleanup_period_days: Option<Sourced<u64>>,
    /// The status line's command (`status_line`, Claude Code's `statusLine`); a workspace's
    /// only once trusted, since it runs code.
    pub status_line: Option<Sourced<String>>,
    /// Folders added to the workspace (`additional_directories`, Claude Code's
    /// `permissions.additionalDirectories`); a workspace's only once trusted.
    pub additional_directories: Vec<Sourced<String>>,
    /// The OS sandbox: policy, network, roots.
    pub sandbox: sandbox::SandboxConfig,
    /// Single values a later source set again, oldest first: (key as shown, the value as
    /// shown and where it was set). `rein config show` lists them after the value that won.
    pub replaced: Vec<(String, Sourced<String>)>,
    /// What workspace files set that was not applied.
    pub ignored: Vec<Ignored>,
    /// Files skipped unread (not a regular file, too large), as warnings naming them.
    pub unread: Vec<String>,
    /// Whether the workspace's own files were read as trusted (the workspace is trusted or
    /// has no configuration): only then are its agent definitions loaded.
    pub workspace_trusted: bool,
}

/// A configuration problem, located.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub path: String,
    pub line: Option<usize>,
    pub key: Option<String>,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(key) = &self.key {
            write!(f, ": {key}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Merges `sources`, least specific first.
pub fn load(sources: &[Source]) -> Result<Config, ConfigError> {
    let mut config = Config::default();
    extend(&mut config, sources)?;
    Ok(config)
}

/// Merges `sources` over `config`, least specific first (`--settings` files over the rest).
pub fn extend(config: &mut Config, sources: &[Source]) -> Result<(), ConfigError> {
    for source in sources {
        let before = scalars::scalars(config);
        match source.format {
            Format::Toml => merge_toml(config, source)?,
            Format::ClaudeSettings => claude::merge_claude(config, source)?,
        }
        let replaced = scalars::replaced(before, &scalars::scalars(config));
        config.replaced.extend(replaced);
    }
    Ok(())
}

/// Reads one source, for the `key` of errors and the `path:line` of values.
struct Reader<'a> {
    source: &'a Source,
}

impl Reader<'_> {
    fn line(&self, offset: usize) -> usize {
        let end = offset.min(self.source.text.len());
        self.source.text[..end].matches('\n').count() + 1
    }

    fn at<T>(&self, spanned: &Spanned<T>) -> String {
        format!("{}:{}", self.source.path, self.line(spanned.span().start))
    }

    fn sourced<T: Clone>(&self, spanned: &Spanned<T>) -> Sourced<T> {
        Sourced {
            value: spanned.get_ref().clone(),
            source: self.at(spanned),
        }
    }

    fn error<T>(&self, spanned: &Spanned<T>, key: &str, message: impl Into<String>) -> ConfigError {
        ConfigError {
            path: self.source.path.clone(),
            line: Some(self.line(spanned.span().start)),
            key: Some(key.to_string()),
            message: message.into(),
        }
    }
}

/// Merges one TOML file into `config`, section by section. The order is kept as it was: it
/// decides which error a file with several reports, and the order of [`Config::ignored`].
fn merge_toml(config: &mut Config, source: &Source) -> Result<(), ConfigError> {
    let reader = Reader { source };
    let file = parse_toml(&reader)?;
    let scope = source.scope;
    merge_model_names(config, &file, &reader);
    mcp::merge(config, &file, &reader);
    routing::merge(config, &file, &reader)?;
    limits::merge(config, &file, &reader)?;
    merge_request_options(config, &file, &reader)?;
    permissions::merge(config, &file, &reader)?;
    tools::merge(config, &file, &reader);
    sandbox::merge(config, &file, &reader, scope)?;
    limits::merge_stream_timeouts(config, &file, &reader)?;
    merge_retention(config, &file, &reader);
    hooks::merge(config, &file, &reader, scope)?;
    web::merge(config, &file, &reader)?;
    telemetry::merge(config, &file, &reader)?;
    lsp::merge(config, &file, &reader, scope)?;
    serve::merge(config, &file, &reader)?;
    Ok(())
}

/// The file's TOML, read into its shape; a syntax error or an unknown key names its line.
fn parse_toml(reader: &Reader<'_>) -> Result<file::TomlFile, ConfigError> {
    toml::from_str(&reader.source.text).map_err(|e| ConfigError {
        path: reader.source.path.clone(),
        line: e.span().map(|span| reader.line(span.start)),
        key: None,
        message: e.message().trim().to_string(),
    })
}

/// `model`, `explore_model` and `fallback_model`: names any file may set.
fn merge_model_names(config: &mut Config, file: &file::TomlFile, reader: &Reader<'_>) {
    set(&mut config.model, file.model.as_ref(), reader);
    set(
        &mut config.explore_model,
        file.explore_model.as_ref(),
        reader,
    );
    set(
        &mut config.fallback_model,
        file.fallback_model.as_ref(),
        reader,
    );
}

/// `cache_ttl` and `effort`: how each request asks the model, checked against their names.
fn merge_request_options(
    config: &mut Config,
    file: &file::TomlFile,
    reader: &Reader<'_>,
) -> Result<(), ConfigError> {
    if let Some(ttl) = &file.cache_ttl {
        let value = rein_llm::CacheTtl::parse(ttl.get_ref())
            .map_err(|message| reader.error(ttl, "cache_ttl", message.to_string()))?;
        config.cache_ttl = Some(Sourced {
            value,
            source: reader.at(ttl),
        });
    }
    if let Some(profile) = &file.tools_profile {
        let value = rein_tools::ToolsProfile::parse(profile.get_ref())
            .map_err(|message| reader.error(profile, "tools_profile", message.to_string()))?;
        config.tools_profile = Some(Sourced {
            value,
            source: reader.at(profile),
        });
    }
    if let Some(dialect) = &file.output_dialect {
        let value =
            crate::arg_values::OutputDialect::parse(dialect.get_ref()).ok_or_else(|| {
                reader.error(dialect, "output_dialect", "expected \"rein\" or \"claude\"")
            })?;
        config.output_dialect = Some(Sourced {
            value,
            source: reader.at(dialect),
        });
    }
    if let Some(effort) = &file.effort {
        let value = rein_llm::Effort::parse(effort.get_ref())
            .map_err(|message| reader.error(effort, "effort", message.to_string()))?;
        config.effort = Some(Sourced {
            value,
            source: reader.at(effort),
        });
    }
    Ok(())
}

/// `cleanup_period_days`: a setting of the user's whole session store, so only the user's own
/// file sets it.
fn merge_retention(config: &mut Config, file: &file::TomlFile, reader: &Reader<'_>) {
    if let Some(command) = &file.status_line {
        merge_status_line(
            config,
            command.get_ref(),
            reader.at(command),
            reader.source.scope,
        );
    }
    for dir in file.additional_directories.iter().flatten() {
        merge_added_dir(config, dir.get_ref(), reader.at(dir), reader.source.scope);
    }
    if let Some(days) = &file.cleanup_period_days {
        if reader.source.scope == Scope::User {
            config.cleanup_period_days = Some(reader.sourced(days));
        } else {
            let what = format!("cleanup_period_days = {}", days.get_ref());
            ignore(config, what, reader.at(days), Why::UserOnly);
        }
    }
}

/// A status line command from a file of `scope`: held back from an untrusted workspace.
fn merge_status_line(config: &mut Config, command: &str, source: String, scope: Scope) {
    if command.trim().is_empty() {
        return;
    }
    if scope == Scope::UntrustedWorkspace {
        ignore(
            config,
            format!("status line command: {command}"),
            source,
            Why::Untrusted,
        );
        return;
    }
    config.status_line = Some(Sourced {
        value: command.to_string(),
        source,
    });
}

/// A folder a file of `scope` adds to the workspace: held back from an untrusted workspace,
/// since it widens what the tools reach.
fn merge_added_dir(config: &mut Config, dir: &str, source: String, scope: Scope) {
    if scope == Scope::UntrustedWorkspace {
        ignore(
            config,
            format!("additional directory {dir}"),
            source,
            Why::Untrusted,
        );
        return;
    }
    config.additional_directories.push(Sourced {
        value: dir.to_string(),
        source,
    });
}

fn ignore(config: &mut Config, what: String, source: String, why: Why) {
    config.ignored.push(Ignored { what, source, why });
}

fn set<T: Clone>(slot: &mut Option<Sourced<T>>, value: Option<&Spanned<T>>, reader: &Reader<'_>) {
    if let Some(value) = value {
        *slot = Some(reader.sourced(value));
    }
}

fn event_names() -> String {
    HookEvent::ALL.map(HookEvent::name).join(", ")
}

#[cfg(test)]
#[path = "scoped_tests.rs"]
mod scoped_tests;
#[cfg(test)]
#[path = "show_tests.rs"]
mod show_tests;
#[cfg(test)]
#[path = "load_tests.rs"]
mod tests;
