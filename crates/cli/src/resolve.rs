//! Second stage of argument handling: flags plus environment become ready-to-use settings.
//! Pure functions of their inputs (the environment is passed in), so they are unit-tested.

use std::path::{Path, PathBuf};

use rein_engine::permissions::{PermissionMode, Policy, Rule, SourcedRule};
use rein_llm::ProviderKind;

use crate::Exit;
use crate::args::{ExecArgs, ProviderArg};

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

/// Resolves provider, model, base URL and key from flags and the environment.
pub fn provider(
    args: &ExecArgs,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ProviderSettings, Exit> {
    let explicit_kind = args.provider.map(|p| match p {
        ProviderArg::Anthropic => ProviderKind::Anthropic,
        ProviderArg::Openai => ProviderKind::Openai,
        ProviderArg::OpenaiChat => ProviderKind::OpenaiChat,
    });
    let model = match args.model.clone().or_else(|| non_empty(env("REIN_MODEL"))) {
        Some(model) => model,
        None => match explicit_kind {
            None | Some(ProviderKind::Anthropic) => DEFAULT_MODEL.to_string(),
            Some(ProviderKind::Openai) => "gpt-5".to_string(),
            Some(ProviderKind::OpenaiChat) => {
                return Err(Exit::usage(
                    "--provider openai-chat needs a model name: pass --model NAME",
                ));
            }
        },
    };
    let kind = explicit_kind.unwrap_or_else(|| rein_llm::infer_provider(&model));
    let base_env = match kind {
        ProviderKind::Anthropic => "ANTHROPIC_BASE_URL",
        ProviderKind::Openai | ProviderKind::OpenaiChat => "OPENAI_BASE_URL",
    };
    let default_base = rein_llm::default_base_url(kind);
    let base_url = args
        .base_url
        .clone()
        .or_else(|| non_empty(env(base_env)))
        .unwrap_or_else(|| default_base.to_string());
    let base_url = base_url.trim_end_matches('/').to_string();
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        return Err(Exit::usage(format!(
            "base URL {base_url:?} must start with http:// or https://"
        )));
    }
    let key_env = args
        .api_key_env
        .clone()
        .unwrap_or_else(|| rein_llm::default_key_env(kind).to_string());
    let api_key = non_empty(env(&key_env));
    if api_key.is_none() && base_url == default_base {
        return Err(Exit::usage(format!(
            "{key_env} is not set: export your {} API key in it (or use --base-url for a \
             server that needs no key)",
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

/// rein's data folder: `$XDG_DATA_HOME/rein`, else `~/.local/share/rein`; `None` when neither
/// variable gives an absolute path.
pub fn data_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let absolute = |value: Option<String>| value.map(PathBuf::from).filter(|p| p.is_absolute());
    absolute(env("XDG_DATA_HOME"))
        .or_else(|| absolute(env("HOME")).map(|home| home.join(".local/share")))
        .map(|base| base.join("rein"))
}

/// The permission policy from `--permission-mode`, `--allowed-tools` and `--disallowed-tools`.
pub fn policy(args: &ExecArgs, root: &Path) -> Result<Policy, Exit> {
    let mut policy = Policy::default();
    if let Some(name) = &args.permission_mode {
        policy.mode = PermissionMode::parse(name)
            .ok_or_else(|| Exit::usage(format!("unknown permission mode {name:?}")))?;
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let parse = |values: &[String], flag: &str| -> Result<Vec<SourcedRule>, Exit> {
        split_rules(values)
            .into_iter()
            .map(|text| {
                Rule::parse(&text, root, home.as_deref())
                    .map(|rule| SourcedRule {
                        rule,
                        source: flag.to_string(),
                    })
                    .map_err(|e| Exit::usage(format!("{flag}: {e}")))
            })
            .collect()
    };
    policy.rules.allow = parse(&args.allowed_tools, "--allowed-tools")?;
    policy.rules.deny = parse(&args.disallowed_tools, "--disallowed-tools")?;
    Ok(policy)
}

/// Rules from flag values: split on commas and blanks outside parentheses.
pub fn split_rules(values: &[String]) -> Vec<String> {
    let mut rules = Vec::new();
    for value in values {
        let mut depth = 0usize;
        let mut current = String::new();
        for c in value.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ => {}
            }
            if depth == 0 && (c == ',' || c.is_whitespace()) {
                if !current.trim().is_empty() {
                    rules.push(current.trim().to_string());
                }
                current.clear();
            } else {
                current.push(c);
            }
        }
        if !current.trim().is_empty() {
            rules.push(current.trim().to_string());
        }
    }
    rules
}
