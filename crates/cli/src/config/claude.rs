//! Claude Code's `settings.json`: only its `permissions` (rules, `defaultMode`) and command
//! `hooks` are read; events and hook kinds rein does not have are skipped, not errors.

use std::collections::BTreeMap;
use std::time::Duration;

use rein_engine::hooks::{DEFAULT_HOOK_TIMEOUT, HookEvent, HookSpec};

use super::permissions::{check_rule, parse_mode, set_mode};
use super::{Config, ConfigError, Ignored, Scope, Source, Sourced, Why, file, ignore};

pub(super) fn merge_claude(config: &mut Config, source: &Source) -> Result<(), ConfigError> {
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
    let untrusted = source.scope == Scope::UntrustedWorkspace;
    let permissions = settings.permissions;
    let mut held_back = Vec::new();
    let lists = [
        ("permissions.allow", permissions.allow, &mut config.allow),
        ("permissions.ask", permissions.ask, &mut config.ask),
        ("permissions.deny", permissions.deny, &mut config.deny),
    ];
    for (key, rules, into) in lists {
        for rule in rules {
            // Rules for tools rein does not have (WebFetch…) are kept: they simply never match.
            check_rule(&rule).map_err(|e| located(key, e.to_string()))?;
            if untrusted && key == "permissions.allow" {
                held_back.push(Ignored {
                    what: format!("allow rule {rule}"),
                    source: at.clone(),
                    why: Why::Untrusted,
                });
                continue;
            }
            into.push(Sourced {
                value: rule,
                source: at.clone(),
            });
        }
    }
    config.ignored.extend(held_back);
    for dir in &permissions.additional_directories {
        super::merge_added_dir(config, dir, at.clone(), source.scope);
    }
    if let Some(mode) = permissions.default_mode {
        let parsed = parse_mode(&mode, || at.clone())
            .map_err(|e| located("permissions.defaultMode", e.to_string()))?;
        set_mode(config, parsed, source.scope);
    }
    merge_claude_model_env(
        config,
        settings.model,
        settings.env.keys(),
        (&at, untrusted),
    );
    merge_claude_hooks(
        config,
        settings.status_line,
        settings.hooks,
        &at,
        source.scope,
    );
    Ok(())
}

/// A Claude Code file's `model` (held back from an untrusted workspace) and its `env`, named
/// as a setting rein does not have.
fn merge_claude_model_env<'a>(
    config: &mut Config,
    model: Option<String>,
    env: impl Iterator<Item = &'a String>,
    (at, untrusted): (&str, bool),
) {
    if let Some(model) = model.filter(|m| !m.trim().is_empty()) {
        match untrusted {
            true => config.ignored.push(Ignored {
                what: format!("model {model}"),
                source: at.to_string(),
                why: Why::Untrusted,
            }),
            false => {
                config.model = Some(Sourced {
                    value: model,
                    source: at.to_string(),
                });
            }
        }
    }
    for name in env {
        config.ignored.push(Ignored {
            what: format!("env.{name}"),
            source: at.to_string(),
            why: Why::Unsupported,
        });
    }
}

/// The status line command and the hooks of a Claude Code settings file, held back from an
/// untrusted workspace.
fn merge_claude_hooks(
    config: &mut Config,
    status_line: Option<file::ClaudeStatusLine>,
    hooks: BTreeMap<String, Vec<file::ClaudeHookGroup>>,
    at: &str,
    scope: Scope,
) {
    let untrusted = scope == Scope::UntrustedWorkspace;
    if let Some(line) = status_line.filter(|l| l.kind.as_deref().is_none_or(|k| k == "command")) {
        super::merge_status_line(config, &line.command, at.to_string(), scope);
    }
    for (event_name, groups) in hooks {
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
                if untrusted {
                    let what = format!("{} hook: {}", event.name(), hook.command);
                    ignore(config, what, at.to_string(), Why::Untrusted);
                    continue;
                }
                config.hooks.push(HookSpec {
                    event,
                    matcher: group.matcher.clone(),
                    command: hook.command,
                    timeout: hook
                        .timeout
                        .map_or(DEFAULT_HOOK_TIMEOUT, Duration::from_secs),
                    source: at.to_string(),
                });
            }
        }
    }
}
