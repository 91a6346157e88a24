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
mod mcp;
pub mod missing_tools;
mod sandbox;
mod scalars;
mod show;
pub mod trust;

use std::collections::BTreeMap;
use std::fmt;

use rein_engine::hooks::{HookEvent, HookSpec};
use rein_engine::permissions::{PermissionMode, Rule};
use toml::Spanned;

pub use mcp::McpTable;

pub use show::render;

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
    pub permission_mode: Option<Sourced<PermissionMode>>,
    /// Lifetime of Anthropic's prompt-cache entries.
    pub cache_ttl: Option<Sourced<rein_llm::CacheTtl>>,
    /// How hard the model thinks.
    pub effort: Option<Sourced<rein_llm::Effort>>,
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
    /// Paths added to the built-in sensitive list (never a replacement of it).
    pub sensitive_paths: Vec<Sourced<String>>,
    pub hooks: Vec<HookSpec>,
    /// Seconds a model stream may send nothing.
    pub idle_timeout_secs: Option<Sourced<u64>>,
    /// Seconds a model stream may send only keep-alives.
    pub no_progress_timeout_secs: Option<Sourced<u64>>,
    /// Days a stored session may stay untouched before start-up removes it (user config).
    pub cleanup_period_days: Option<Sourced<u64>>,
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
    for source in sources {
        let before = scalars::scalars(&config);
        match source.format {
            Format::Toml => merge_toml(&mut config, source)?,
            Format::ClaudeSettings => claude::merge_claude(&mut config, source)?,
        }
        let replaced = scalars::replaced(before, &scalars::scalars(&config));
        config.replaced.extend(replaced);
    }
    Ok(config)
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

fn merge_toml(config: &mut Config, source: &Source) -> Result<(), ConfigError> {
    let reader = Reader { source };
    let file: file::TomlFile = toml::from_str(&source.text).map_err(|e| ConfigError {
        path: source.path.clone(),
        line: e.span().map(|span| reader.line(span.start)),
        key: None,
        message: e.message().trim().to_string(),
    })?;
    let scope = source.scope;
    let untrusted = scope == Scope::UntrustedWorkspace;
    set(&mut config.model, file.model.as_ref(), &reader);
    set(
        &mut config.explore_model,
        file.explore_model.as_ref(),
        &reader,
    );
    set(
        &mut config.fallback_model,
        file.fallback_model.as_ref(),
        &reader,
    );
    mcp::merge(config, &file, &reader);
    if let Some(provider) = &file.provider {
        if !matches!(
            provider.get_ref().as_str(),
            "anthropic" | "openai" | "openai-chat"
        ) {
            return Err(reader.error(
                provider,
                "provider",
                format!(
                    "unknown provider {:?}; expected anthropic, openai or openai-chat",
                    provider.get_ref()
                ),
            ));
        }
        config.provider = Some(reader.sourced(provider));
    }
    if let Some(url) = &file.base_url {
        if !(url.get_ref().starts_with("http://") || url.get_ref().starts_with("https://")) {
            return Err(reader.error(url, "base_url", "must start with http:// or https://"));
        }
        if scope == Scope::User {
            config.base_url = Some(reader.sourced(url));
        } else {
            let what = format!("base_url = {:?}", url.get_ref());
            ignore(config, what, reader.at(url), Why::Credentials);
        }
    }
    if let Some(key_env) = &file.api_key_env {
        if scope == Scope::User {
            config.api_key_env = Some(reader.sourced(key_env));
        } else {
            let what = format!("api_key_env = {:?}", key_env.get_ref());
            ignore(config, what, reader.at(key_env), Why::Credentials);
        }
    }
    if let Some(turns) = &file.max_turns
        && *turns.get_ref() == 0
    {
        return Err(reader.error(turns, "max_turns", "a run needs at least 1 turn"));
    }
    set(&mut config.max_turns, file.max_turns.as_ref(), &reader);
    set(
        &mut config.context_window,
        file.context_window.as_ref(),
        &reader,
    );
    for (prefix, window) in &file.context_windows {
        let key = format!("context_windows.{prefix}");
        if prefix.trim().is_empty() {
            return Err(reader.error(window, &key, "the model name prefix is empty"));
        }
        if *window.get_ref() == 0 {
            return Err(reader.error(window, &key, "a context window must be above 0 tokens"));
        }
        config
            .context_windows
            .insert(prefix.to_ascii_lowercase(), reader.sourced(window));
    }
    set(&mut config.max_tokens, file.max_tokens.as_ref(), &reader);
    if let Some(limit) = &file.max_tokens
        && *limit.get_ref() == 0
    {
        return Err(reader.error(
            limit,
            "max_tokens",
            "an output limit must be above 0 tokens",
        ));
    }
    for (prefix, limit) in &file.max_output_tokens {
        let key = format!("max_output_tokens.{prefix}");
        if prefix.trim().is_empty() {
            return Err(reader.error(limit, &key, "the model name prefix is empty"));
        }
        if *limit.get_ref() == 0 {
            return Err(reader.error(limit, &key, "an output limit must be above 0 tokens"));
        }
        config
            .max_output_tokens
            .insert(prefix.to_ascii_lowercase(), reader.sourced(limit));
    }
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
    if let Some(effort) = &file.effort {
        let value = rein_llm::Effort::parse(effort.get_ref())
            .map_err(|message| reader.error(effort, "effort", message.to_string()))?;
        config.effort = Some(Sourced {
            value,
            source: reader.at(effort),
        });
    }
    if let Some(mode) = &file.permission_mode {
        let parsed = parse_mode(mode.get_ref(), || reader.at(mode))
            .map_err(|message| reader.error(mode, "permission_mode", message))?;
        set_mode(config, parsed, untrusted);
    }
    let lists = [
        (
            "permissions.allow",
            &file.permissions.allow,
            &mut config.allow,
        ),
        ("permissions.ask", &file.permissions.ask, &mut config.ask),
        ("permissions.deny", &file.permissions.deny, &mut config.deny),
    ];
    for (key, rules, into) in lists {
        for rule in rules {
            check_rule(rule.get_ref()).map_err(|m| reader.error(rule, key, m))?;
            if untrusted && key == "permissions.allow" {
                let what = format!("allow rule {}", rule.get_ref());
                config.ignored.push(Ignored {
                    what,
                    source: reader.at(rule),
                    why: Why::Untrusted,
                });
                continue;
            }
            into.push(reader.sourced(rule));
        }
    }
    set(
        &mut config.output_limit,
        file.tools.output_limit.as_ref(),
        &reader,
    );
    set(
        &mut config.call_timeout_secs,
        file.tools.call_timeout_secs.as_ref(),
        &reader,
    );
    set(
        &mut config.checkpoint_cap_mb,
        file.tools.checkpoint_cap_mb.as_ref(),
        &reader,
    );
    set(
        &mut config.max_parallel,
        file.tools.max_parallel.as_ref(),
        &reader,
    );
    set(
        &mut config.repeat_warn,
        file.tools.repeat_warn.as_ref(),
        &reader,
    );
    set(
        &mut config.repeat_stop,
        file.tools.repeat_stop.as_ref(),
        &reader,
    );
    set(
        &mut config.compact_tool,
        file.tools.compact.as_ref(),
        &reader,
    );
    sandbox::merge(config, &file, &reader, scope)?;
    for (key, value, slot) in [
        (
            "idle_timeout_secs",
            &file.idle_timeout_secs,
            &mut config.idle_timeout_secs,
        ),
        (
            "no_progress_timeout_secs",
            &file.no_progress_timeout_secs,
            &mut config.no_progress_timeout_secs,
        ),
    ] {
        if let Some(secs) = value {
            if *secs.get_ref() == 0 {
                return Err(reader.error(secs, key, "a timeout must be at least 1 second"));
            }
            *slot = Some(reader.sourced(secs));
        }
    }
    if let Some(days) = &file.cleanup_period_days {
        if scope == Scope::User {
            config.cleanup_period_days = Some(reader.sourced(days));
        } else {
            let what = format!("cleanup_period_days = {}", days.get_ref());
            ignore(config, what, reader.at(days), Why::UserOnly);
        }
    }
    for path in file.tools.sensitive_paths.iter().flatten() {
        config.sensitive_paths.push(reader.sourced(path));
    }
    hooks::merge(config, &file, &reader, scope)?;
    Ok(())
}

fn ignore(config: &mut Config, what: String, source: String, why: Why) {
    config.ignored.push(Ignored { what, source, why });
}

/// An untrusted file may only pick a mode that grants nothing (`default`, `plan`).
fn set_mode(config: &mut Config, mode: Sourced<PermissionMode>, untrusted: bool) {
    if untrusted && !matches!(mode.value, PermissionMode::Default | PermissionMode::Plan) {
        let what = format!("permission mode {}", mode.value.name());
        ignore(config, what, mode.source, Why::Untrusted);
        return;
    }
    config.permission_mode = Some(mode);
}

fn set<T: Clone>(slot: &mut Option<Sourced<T>>, value: Option<&Spanned<T>>, reader: &Reader<'_>) {
    if let Some(value) = value {
        *slot = Some(reader.sourced(value));
    }
}

fn parse_mode(name: &str, at: impl Fn() -> String) -> Result<Sourced<PermissionMode>, String> {
    // Claude Code's `default` spelling and ours coincide; its `dontAsk` has no equivalent.
    match PermissionMode::parse(name) {
        Some(value) => Ok(Sourced {
            value,
            source: at(),
        }),
        None => Err(format!(
            "unknown permission mode {name:?}; expected default, accept-edits, auto, plan or bypass"
        )),
    }
}

/// Checks a rule's syntax (the real parse, anchored at the workspace, happens at run time).
fn check_rule(text: &str) -> Result<(), String> {
    Rule::parse(text, std::path::Path::new("/"), None)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

fn event_names() -> String {
    HookEvent::ALL.map(HookEvent::name).join(", ")
}

#[cfg(test)]
#[path = "show_tests.rs"]
mod show_tests;
#[cfg(test)]
#[path = "tests.rs"]
mod tests;
