//! Second stage of argument handling: flags plus environment become ready-to-use settings.
//! Pure functions of their inputs (the environment is passed in), so they are unit-tested.

use std::path::{Path, PathBuf};

use rein_engine::AgentConfig;
use rein_llm::ProviderKind;
use rein_policy::Policy;

use crate::Exit;
use crate::config::{Config, Sourced};
use crate::overrides::{Limits, PromptTexts, Route};

mod data;
mod layered;
mod policy;
mod schedule;
pub(crate) mod web;
pub use layered::layered;
pub use policy::{config_policy, permission_mode, policy};

/// Model used when neither `--model` nor `REIN_MODEL` names one.
pub const DEFAULT_MODEL: &str = "claude-sonnet-4-5";

/// Where and how to reach the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderSettings {
    pub kind: ProviderKind,
    pub model: String,
    pub base_url: String,
    pub api_key: Option<String>,
    pub key_env: String,
}

/// Which provider, model, base URL and key variable the flags, the environment and the config
/// files choose, each with where it came from (`--model`, `env REIN_MODEL`, `path:line`,
/// `default`), before the URL is checked or the key read. The one place their precedence is
/// written: runs use it through [`provider`], `rein config show` to say what a run would use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Routing {
    /// The model as written (an alias stays an alias; see [`Routing::model_name`]); `None` for
    /// `openai-chat` with no model named, which has no default.
    pub model: Option<Sourced<String>>,
    pub kind: Sourced<ProviderKind>,
    /// As written: not yet trimmed, checked or normalised.
    pub base_url: Sourced<String>,
    pub key_env: Sourced<String>,
}

pub use crate::config::DEFAULT;
/// Where a provider guessed from the model name comes from.
pub const GUESSED: &str = "guessed from the model name";

impl Routing {
    /// The model's real name: an alias (`sonnet`) resolved.
    pub fn model_name(&self) -> Option<String> {
        let model = &self.model.as_ref()?.value;
        Some(model_alias(model).map_or_else(|| model.clone(), str::to_string))
    }
}

/// The flags that choose the provider: `--provider`, `--model`, `--base-url`, `--api-key-env`.
#[derive(Debug, Clone, Copy, Default)]
pub struct RoutingFlags<'a> {
    pub provider: Option<ProviderKind>,
    pub model: Option<&'a str>,
    pub base_url: Option<&'a str>,
    pub api_key_env: Option<&'a str>,
}

impl<'a> RoutingFlags<'a> {
    /// The routing flags of `route`.
    pub fn of(route: &'a Route) -> Self {
        Self {
            provider: route.provider,
            model: route.model.as_deref(),
            base_url: route.base_url.as_deref(),
            api_key_env: route.api_key_env.as_deref(),
        }
    }
}

/// The provider settings as [`Routing`] says: flags over the environment over the config
/// files over the defaults.
pub fn routing(route: &Route, env: &dyn Fn(&str) -> Option<String>, config: &Config) -> Routing {
    routing_of(RoutingFlags::of(route), env, config)
}

/// [`routing`] from the routing flags alone.
pub fn routing_of(
    args: RoutingFlags<'_>,
    env: &dyn Fn(&str) -> Option<String>,
    config: &Config,
) -> Routing {
    let explicit_kind = match args.provider {
        Some(kind) => Some(sourced(kind, "--provider")),
        None => config.provider.as_ref().map(|p| Sourced {
            value: match p.value.as_str() {
                "anthropic" => ProviderKind::Anthropic,
                "openai" => ProviderKind::Openai,
                _ => ProviderKind::OpenaiChat,
            },
            source: p.source.clone(),
        }),
    };
    let model = first_set(
        args.model.map(|m| sourced(m.to_string(), "--model")),
        "REIN_MODEL",
        env,
        &config.model,
    )
    .or_else(|| match explicit_kind.as_ref().map(|k| k.value) {
        None | Some(ProviderKind::Anthropic) => Some(sourced(DEFAULT_MODEL.into(), DEFAULT)),
        Some(ProviderKind::Openai) => Some(sourced("gpt-5".into(), DEFAULT)),
        Some(ProviderKind::OpenaiChat) => None,
    });
    let kind = explicit_kind.unwrap_or_else(|| {
        let name = model.as_ref().map_or(DEFAULT_MODEL, |m| m.value.as_str());
        let name = model_alias(name).unwrap_or(name);
        sourced(rein_llm::infer_provider(name), GUESSED)
    });
    let base_env = match kind.value {
        ProviderKind::Anthropic => "ANTHROPIC_BASE_URL",
        ProviderKind::Openai | ProviderKind::OpenaiChat => "OPENAI_BASE_URL",
    };
    let base_url = first_set(
        args.base_url.map(|u| sourced(u.to_string(), "--base-url")),
        base_env,
        env,
        &config.base_url,
    )
    .unwrap_or_else(|| sourced(rein_llm::default_base_url(kind.value).into(), DEFAULT));
    let key_env = args
        .api_key_env
        .map(|k| sourced(k.to_string(), "--api-key-env"))
        .or_else(|| config.api_key_env.clone())
        .unwrap_or_else(|| sourced(rein_llm::default_key_env(kind.value).into(), DEFAULT));
    Routing {
        model,
        kind,
        base_url,
        key_env,
    }
}

/// The flag's value, else the environment variable's (named `env VAR`), else the file's.
fn first_set(
    flag: Option<Sourced<String>>,
    var: &str,
    env: &dyn Fn(&str) -> Option<String>,
    file: &Option<Sourced<String>>,
) -> Option<Sourced<String>> {
    flag.or_else(|| non_empty(env(var)).map(|value| sourced(value, &format!("env {var}"))))
        .or_else(|| file.clone())
}

fn sourced<T>(value: T, source: &str) -> Sourced<T> {
    Sourced {
        value,
        source: source.to_string(),
    }
}

/// Resolves provider, model, base URL and key from flags, the environment and the config
/// files, in that order of precedence ([`routing`]), and checks them.
pub fn provider(
    route: &Route,
    env: &dyn Fn(&str) -> Option<String>,
    config: &Config,
) -> Result<ProviderSettings, Exit> {
    provider_of(RoutingFlags::of(route), env, config)
}

/// [`provider`] from the routing flags alone.
pub fn provider_of(
    args: RoutingFlags<'_>,
    env: &dyn Fn(&str) -> Option<String>,
    config: &Config,
) -> Result<ProviderSettings, Exit> {
    let routing = routing_of(args, env, config);
    let Some(model) = routing.model_name() else {
        return Err(Exit::usage(
            "--provider openai-chat needs a model name: pass --model NAME",
        ));
    };
    let kind = routing.kind.value;
    // Said in any error the guess may explain; a mistyped alias is named first.
    let guessed = match (routing.kind.source == GUESSED, alias_meant(&model)) {
        (true, Some(alias)) => format!(
            " (did you mean --model {alias}? `{model}` is no model rein knows, so it was taken \
             for an {} model by its name)",
            kind.name()
        ),
        (true, None) => format!(
            " (`{model}` → {}, guessed from the model name; --provider chooses)",
            kind.name()
        ),
        (false, _) => String::new(),
    };
    let default_base = rein_llm::default_base_url(kind);
    let base_url = routing.base_url.value.trim_end_matches('/').to_string();
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        return Err(Exit::usage(format!(
            "base URL {base_url:?} must start with http:// or https://"
        )));
    }
    let base_url = normalise_v1(kind, base_url);
    let key_env = routing.key_env.value;
    let api_key = non_empty(env(&key_env));
    if api_key.is_none() && base_url == default_base {
        return Err(Exit::usage(format!(
            "{key_env} is not set: export your {} API key in it (or use --base-url for a \
             server that needs no key){guessed}",
            kind.name()
        )));
    }
    Ok(ProviderSettings {
        kind,
        model,
        base_url,
        api_key,
        key_env,
    })
}

/// The model an alias Claude Code users type stands for.
pub fn model_alias(name: &str) -> Option<&'static str> {
    match name {
        "sonnet" => Some("claude-sonnet-4-5"),
        "opus" => Some("claude-opus-4-1"),
        "haiku" => Some("claude-haiku-4-5"),
        // Sonnet carries the work out; Opus plans (`PLAN_MODEL_OF_OPUSPLAN`).
        "opusplan" => Some("claude-sonnet-4-5"),
        _ => None,
    }
}

/// The alias `name` was probably meant to be (`sonet` → `sonnet`): one or two letters off.
pub fn alias_meant(name: &str) -> Option<&'static str> {
    const ALIASES: [&str; 4] = ["sonnet", "opus", "haiku", "opusplan"];
    let lower = name.to_ascii_lowercase();
    if ALIASES.contains(&lower.as_str()) {
        return None;
    }
    ALIASES
        .into_iter()
        .map(|alias| (strsim::damerau_levenshtein(&lower, alias), alias))
        .filter(|(distance, alias)| *distance <= 2.min(alias.len() / 3))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, alias)| alias)
}

/// The model `opusplan` asks in plan mode.
pub const PLAN_MODEL_OF_OPUSPLAN: &str = "claude-opus-4-1";

/// `base_url` without a `/v1` the client adds itself: Anthropic's endpoint is `/v1/messages`
/// below the base, so a base ending in `/v1` would ask for `/v1/v1/messages`; an OpenAI-style
/// base ending in `/v1/v1` is doubled. Both are fixed, with a note; a base that may lack
/// `/v1` is left alone (some servers serve elsewhere) and a 404 says what to try.
fn normalise_v1(kind: ProviderKind, base_url: String) -> String {
    let fixed = match kind {
        ProviderKind::Anthropic => base_url.strip_suffix("/v1"),
        ProviderKind::Openai | ProviderKind::OpenaiChat => base_url
            .strip_suffix("/v1/v1")
            .map(|_| &base_url[..base_url.len() - 3]),
    };
    match fixed {
        Some(fixed) => {
            eprintln!(
                "rein: note: using base URL {fixed} ({base_url} would double the /v1 the {} \
                 protocol adds)",
                kind.name()
            );
            fixed.to_string()
        }
        None => base_url,
    }
}

/// The workspace directory: `--cwd` or the current directory, canonicalized.
pub fn workspace(cwd: Option<&Path>) -> Result<PathBuf, Exit> {
    let dir = match cwd {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir()
            .map_err(|e| Exit::usage(format!("cannot read the current directory: {e}")))?,
    };
    let dir = dir
        .canonicalize()
        .map_err(|e| Exit::usage(format!("workspace {}: {e}", dir.display())))?;
    if !dir.is_dir() {
        return Err(Exit::usage(format!(
            "workspace {} is not a directory",
            dir.display()
        )));
    }
    Ok(dir)
}

fn non_empty(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

#[cfg(test)]
#[path = "resolve_tests.rs"]
mod tests;

/// The paths tools may not touch beyond the built-in list: the configured ones, and rein's
/// own config and data folders wherever `$XDG_*` puts them (the session's saved outputs stay
/// readable: the guard grants its read roots).
pub fn sensitive_paths(config: &Config, env: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    Folders::of(env).sensitive_paths(config)
}

/// Where Claude Code keeps managed settings on Linux.
pub const MANAGED_SETTINGS: &str = "/etc/claude-code/managed-settings.json";

/// The user's folders, found once: rein's config and data folders, and Claude Code's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Folders {
    /// `$XDG_CONFIG_HOME/rein` (default `~/.config/rein`): the user's config, agents, memory.
    pub config: Option<PathBuf>,
    /// `$CLAUDE_CONFIG_DIR`, else `~/.claude` (when absolute): Claude Code's user settings,
    /// memory (`CLAUDE.md`), agents, commands and skills.
    pub claude: Option<PathBuf>,
    /// Claude Code's managed settings: `$REIN_MANAGED_SETTINGS`, else
    /// `/etc/claude-code/managed-settings.json`.
    pub managed: Option<PathBuf>,
    /// [`data_dir`]: sessions, outputs, checkpoints, trust, history.
    pub data: Option<PathBuf>,
}

impl Folders {
    /// The folders `env` names.
    pub fn of(env: &dyn Fn(&str) -> Option<String>) -> Self {
        Self {
            config: crate::config::discover::user_config_dir(env).map(|dir| dir.join("rein")),
            claude: env("CLAUDE_CONFIG_DIR")
                .map(PathBuf::from)
                .filter(|dir| dir.is_absolute())
                .or_else(|| {
                    env("HOME")
                        .map(PathBuf::from)
                        .filter(|home| home.is_absolute())
                        .map(|home| home.join(".claude"))
                }),
            managed: Some(
                env("REIN_MANAGED_SETTINGS")
                    .map(PathBuf::from)
                    .filter(|p| p.is_absolute())
                    .unwrap_or_else(|| PathBuf::from(MANAGED_SETTINGS)),
            ),
            data: crate::env::data_dir(env),
        }
    }

    /// The configured sensitive paths and these folders (see [`sensitive_paths`]).
    pub fn sensitive_paths(&self, config: &Config) -> Vec<String> {
        let own = [self.config.clone(), self.data.clone()];
        config
            .sensitive_paths
            .iter()
            .map(|s| s.value.clone())
            .chain(
                own.into_iter()
                    .flatten()
                    .map(|dir| dir.display().to_string()),
            )
            .collect()
    }
}

/// The folders `--add-dir` names, canonical (relative ones from the current directory).
pub fn added_dirs(dirs: &[PathBuf]) -> Result<Vec<PathBuf>, Exit> {
    dirs.iter()
        .map(|dir| {
            std::fs::canonicalize(dir)
                .map_err(|e| Exit::usage(format!("--add-dir {}: {e}", dir.display())))
        })
        .collect()
}

/// The folders the configuration adds (`additional_directories`): `~/` is the home folder,
/// a relative path is the workspace's; one that does not exist is said and skipped.
pub fn configured_dirs(config: &Config, workspace: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    config
        .additional_directories
        .iter()
        .filter_map(|dir| {
            let path = match (dir.value.strip_prefix("~/"), home) {
                (Some(rest), Some(home)) => home.join(rest),
                _ => workspace.join(&dir.value),
            };
            std::fs::canonicalize(&path)
                .map_err(|e| {
                    eprintln!(
                        "rein: additional directory {} ({}) skipped: {e}",
                        dir.value, dir.source
                    );
                })
                .ok()
        })
        .collect()
}

/// The user's system prompt text: `--system-prompt` or the file `--system-prompt-file`
/// names (replacing rein's opening), and `--append-system-prompt`.
pub fn prompt_text(texts: &PromptTexts) -> Result<rein_engine::PromptText, Exit> {
    let replace = match (&texts.system, &texts.system_file) {
        (Some(text), _) => Some(text.clone()),
        (None, Some(path)) => Some(std::fs::read_to_string(path).map_err(|e| {
            Exit::usage(format!(
                "--system-prompt-file: cannot read {}: {e}",
                path.display()
            ))
        })?),
        (None, None) => None,
    };
    Ok(rein_engine::PromptText {
        replace,
        append: texts.append.clone(),
        // Set by the set-up of each agent, which knows the map's tool.
        repo_map: None,
    })
}

/// The settings every agent of a run starts from, from the flags' limits, the config, the
/// resolved policy and rein's folders; `model` is the run's.
pub fn agent_template(
    args: &Limits,
    model: String,
    workspace: PathBuf,
    policy: Policy,
    folders: &Folders,
    config: &Config,
) -> AgentConfig {
    let mut agent = AgentConfig::new(model, workspace);
    agent.policy = policy;
    agent.max_turns = args
        .max_turns
        .or(config.max_turns.as_ref().map(|s| s.value))
        .unwrap_or(agent.max_turns);
    agent.context_window = args
        .context_window
        .or(config.context_window.as_ref().map(|s| s.value))
        .filter(|w| *w > 0);
    agent.context_windows = config
        .context_windows
        .iter()
        .map(|(prefix, window)| (prefix.clone(), window.value))
        .collect();
    agent.max_tokens = config.max_tokens.as_ref().map(|s| s.value);
    agent.vision = (config.vision.iter())
        .map(|(p, v)| (p.clone(), v.value))
        .collect();
    agent.max_output_tokens = config
        .max_output_tokens
        .iter()
        .map(|(prefix, limit)| (prefix.clone(), limit.value))
        .collect();
    if let Some(ttl) = &config.cache_ttl {
        agent.cache_ttl = ttl.value;
    }
    agent.effort = args.effort.or(config.effort.as_ref().map(|s| s.value));
    if let Some(limit) = &config.output_limit {
        agent.output_limit = limit.value;
    }
    if let Some(secs) = &config.call_timeout_secs {
        agent.dispatch.call_timeout = std::time::Duration::from_secs(secs.value.max(1));
    }
    if let Some(parallel) = &config.max_parallel {
        agent.dispatch.max_parallel = parallel.value.max(1);
    }
    if let Some(warn) = &config.repeat_warn {
        agent.repeat_limits.warn = warn.value.max(1);
    }
    if let Some(stop) = &config.repeat_stop {
        agent.repeat_limits.stop = stop.value.max(1);
    }
    agent.compact_tool = config.compact_tool.as_ref().is_some_and(|c| c.value);
    agent.hooks = config.hooks.clone();
    data::folders(&mut agent, folders, config);
    if let Some(base) = &config.worktree_base {
        agent.worktree_base =
            rein_engine::worktree::BaseRef::parse(&base.value).unwrap_or_else(|| {
                eprintln!(
                    "rein: {}: worktree_base is `head` or `working-tree`, not `{}`; using `head`",
                    base.source, base.value
                );
                rein_engine::worktree::BaseRef::Head
            });
    }
    if let Some(mb) = &config.checkpoint_cap_mb {
        agent.checkpoint_cap = mb.value.saturating_mul(1024 * 1024);
    }
    agent
}

/// The merged configuration for `workspace` and the user's config in `folders`, the
/// workspace's own files read with `scope` (trusted or not); problems are usage errors naming
/// file and line.
pub fn config(
    workspace: &Path,
    folders: &Folders,
    scope: crate::config::Scope,
) -> Result<Config, Exit> {
    let user = crate::config::discover::UserFiles {
        rein: folders.config.as_deref(),
        claude: folders.claude.as_deref(),
        managed: folders.managed.as_deref(),
    };
    let found = crate::config::discover::sources(workspace, user, scope)
        .map_err(|e| Exit::usage(format!("config: {e}")))?;
    let mut config =
        crate::config::load(&found.sources).map_err(|e| Exit::usage(format!("config: {e}")))?;
    config.unread = found.unread;
    config.workspace_trusted = scope != crate::config::Scope::UntrustedWorkspace;
    if !config.workspace_trusted
        && workspace
            .join(crate::config::trust::JOBS_IN_WORKSPACE)
            .exists()
    {
        config.ignored.push(crate::config::Ignored {
            what: "scheduled jobs that run prompts".into(),
            source: crate::config::trust::JOBS_IN_WORKSPACE.into(),
            why: crate::config::Why::Untrusted,
        });
    }
    Ok(config)
}
