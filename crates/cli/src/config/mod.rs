//! Layered configuration (DESIGN.md §3 Config): user, Claude Code project settings, project and
//! project-local TOML, environment, flags. Scalars take the most specific value; lists merge.
//!
//! Loading is a pure function ([`load`]) from file texts to a typed [`Config`]; every value
//! remembers where it came from, so errors name the file, line and key, and `rein config show`
//! can say where each setting was set. Finding the files is [`discover::sources`].

pub mod discover;
mod file;
mod show;

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use rein_engine::hooks::{DEFAULT_HOOK_TIMEOUT, HookEvent, HookSpec};
use rein_engine::permissions::{PermissionMode, Rule};
use toml::Spanned;

pub use show::render;

/// What a configuration text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// rein's `config.toml`.
    Toml,
    /// A Claude Code `settings.json` (only `permissions` and `hooks` are read).
    ClaudeSettings,
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
    pub provider: Option<Sourced<String>>,
    pub base_url: Option<Sourced<String>>,
    pub api_key_env: Option<Sourced<String>>,
    pub max_turns: Option<Sourced<u32>>,
    pub context_window: Option<Sourced<u64>>,
    /// Windows of models by name prefix (`[context_windows]`), lower-cased; a later file's
    /// entry replaces an earlier one's.
    pub context_windows: BTreeMap<String, Sourced<u64>>,
    pub permission_mode: Option<Sourced<PermissionMode>>,
    pub allow: Vec<Sourced<String>>,
    pub ask: Vec<Sourced<String>>,
    pub deny: Vec<Sourced<String>>,
    pub output_limit: Option<Sourced<usize>>,
    pub call_timeout_secs: Option<Sourced<u64>>,
    pub max_parallel: Option<Sourced<usize>>,
    pub sensitive_paths: Option<Sourced<Vec<String>>>,
    pub hooks: Vec<HookSpec>,
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
        match source.format {
            Format::Toml => merge_toml(&mut config, source)?,
            Format::ClaudeSettings => merge_claude(&mut config, source)?,
        }
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
    set(&mut config.model, file.model.as_ref(), &reader);
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
        config.base_url = Some(reader.sourced(url));
    }
    set(&mut config.api_key_env, file.api_key_env.as_ref(), &reader);
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
    if let Some(mode) = &file.permission_mode {
        config.permission_mode = Some(
            parse_mode(mode.get_ref(), || reader.at(mode))
                .map_err(|message| reader.error(mode, "permission_mode", message))?,
        );
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
        &mut config.max_parallel,
        file.tools.max_parallel.as_ref(),
        &reader,
    );
    if let Some(paths) = &file.tools.sensitive_paths {
        let source = paths
            .first()
            .map_or_else(|| source.path.clone(), |p| reader.at(p));
        config.sensitive_paths = Some(Sourced {
            value: paths.iter().map(|p| p.get_ref().clone()).collect(),
            source,
        });
    }
    for (event_name, groups) in &file.hooks {
        let event = HookEvent::parse(event_name.get_ref()).ok_or_else(|| {
            reader.error(
                event_name,
                "hooks",
                format!(
                    "unknown hook event {:?}; expected one of {}",
                    event_name.get_ref(),
                    event_names()
                ),
            )
        })?;
        for group in groups {
            let matcher = group.matcher.as_ref().map(|m| m.get_ref().clone());
            let mut commands: Vec<(&Spanned<String>, Option<u64>)> = group
                .hooks
                .iter()
                .map(|h| (&h.command, h.timeout.as_ref().map(|t| *t.get_ref())))
                .collect();
            if let Some(command) = &group.command {
                commands.push((command, group.timeout.as_ref().map(|t| *t.get_ref())));
            }
            if let Some(kind) = group
                .hooks
                .iter()
                .find_map(|h| h.kind.as_ref().filter(|k| k.get_ref() != "command"))
            {
                return Err(reader.error(
                    kind,
                    "hooks",
                    "only hooks of type \"command\" are supported",
                ));
            }
            for (command, timeout) in commands {
                if command.get_ref().trim().is_empty() {
                    return Err(reader.error(command, "hooks", "the hook command is empty"));
                }
                config.hooks.push(HookSpec {
                    event,
                    matcher: matcher.clone(),
                    command: command.get_ref().clone(),
                    timeout: timeout.map_or(DEFAULT_HOOK_TIMEOUT, Duration::from_secs),
                    source: reader.at(command),
                });
            }
        }
    }
    Ok(())
}

fn merge_claude(config: &mut Config, source: &Source) -> Result<(), ConfigError> {
    let settings: file::ClaudeSettings =
        serde_json::from_str(&source.text).map_err(|e| ConfigError {
            path: source.path.clone(),
            line: Some(e.line()),
            key: None,
            message: e.to_string(),
        })?;
    let located = |key: &str, message: String| ConfigError {
        path: source.path.clone(),
        line: None,
        key: Some(key.to_string()),
        message,
    };
    let at = format!("{} (Claude Code settings)", source.path);
    let permissions = settings.permissions;
    let lists = [
        ("permissions.allow", permissions.allow, &mut config.allow),
        ("permissions.ask", permissions.ask, &mut config.ask),
        ("permissions.deny", permissions.deny, &mut config.deny),
    ];
    for (key, rules, into) in lists {
        for rule in rules {
            // Rules for tools rein does not have (WebFetch…) are kept: they simply never match.
            check_rule(&rule).map_err(|m| located(key, m))?;
            into.push(Sourced {
                value: rule,
                source: at.clone(),
            });
        }
    }
    if let Some(mode) = permissions.default_mode {
        config.permission_mode = Some(
            parse_mode(&mode, || at.clone()).map_err(|m| located("permissions.defaultMode", m))?,
        );
    }
    for (event_name, groups) in settings.hooks {
        // Events rein does not fire (Notification…) are skipped, not errors: the file is
        // Claude Code's, not ours.
        let Some(event) = HookEvent::parse(&event_name) else {
            continue;
        };
        for group in groups {
            for hook in group.hooks {
                if hook.kind.as_deref().is_some_and(|k| k != "command")
                    || hook.command.trim().is_empty()
                {
                    continue;
                }
                config.hooks.push(HookSpec {
                    event,
                    matcher: group.matcher.clone(),
                    command: hook.command,
                    timeout: hook
                        .timeout
                        .map_or(DEFAULT_HOOK_TIMEOUT, Duration::from_secs),
                    source: at.clone(),
                });
            }
        }
    }
    Ok(())
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
            "unknown permission mode {name:?}; expected default, accept-edits, plan or bypass"
        )),
    }
}

/// Checks a rule's syntax (the real parse, anchored at the workspace, happens at run time).
fn check_rule(text: &str) -> Result<(), String> {
    Rule::parse(text, std::path::Path::new("/"), None).map(|_| ())
}

fn event_names() -> String {
    HookEvent::ALL.map(HookEvent::name).join(", ")
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
