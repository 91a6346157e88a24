//! `permission_mode` and `[permissions]` of a TOML file, and the checks Claude Code's
//! `settings.json` shares: a rule's syntax, a mode's name, and what an untrusted workspace may
//! set (deny and ask rules and the modes that grant nothing, never an allow rule).

use rein_policy::{PermissionMode, Rule, RuleError};

use super::file::TomlFile;
use super::{Config, ConfigError, Ignored, Reader, Scope, Sourced, Why, ignore};

/// Adds the permission mode and rules of `file` to `config`; an untrusted workspace's allow
/// rules and granting modes are held back.
pub(super) fn merge(
    config: &mut Config,
    file: &TomlFile,
    reader: &Reader<'_>,
) -> Result<(), ConfigError> {
    let untrusted = reader.source.scope == Scope::UntrustedWorkspace;
    if let Some(mode) = &file.permission_mode {
        let parsed = parse_mode(mode.get_ref(), || reader.at(mode))
            .map_err(|e| reader.error(mode, "permission_mode", e.to_string()))?;
        set_mode(config, parsed, reader.source.scope);
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
            check_rule(rule.get_ref()).map_err(|e| reader.error(rule, key, e.to_string()))?;
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
    Ok(())
}

/// An untrusted file may only pick a mode that grants nothing (`default`, `plan`).
pub(super) fn set_mode(config: &mut Config, mode: Sourced<PermissionMode>, scope: Scope) {
    if scope == Scope::UntrustedWorkspace
        && !matches!(mode.value, PermissionMode::Default | PermissionMode::Plan)
    {
        let what = format!("permission mode {}", mode.value.name());
        ignore(config, what, mode.source, Why::Untrusted);
        return;
    }
    config.permission_mode = Some(mode);
}

pub(super) fn parse_mode(
    name: &str,
    at: impl Fn() -> String,
) -> Result<Sourced<PermissionMode>, UnknownMode> {
    // Claude Code's `default` spelling and ours coincide; its `dontAsk` has no equivalent.
    match PermissionMode::parse(name) {
        Some(value) => Ok(Sourced {
            value,
            source: at(),
        }),
        None => Err(UnknownMode(name.to_string())),
    }
}

/// A permission mode rein does not have.
#[derive(Debug)]
pub(super) struct UnknownMode(String);

impl std::fmt::Display for UnknownMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown permission mode {:?}; expected default, accept-edits, auto, plan or bypass",
            self.0
        )
    }
}

/// Checks a rule's syntax (the real parse, anchored at the workspace, happens at run time).
pub(super) fn check_rule(text: &str) -> Result<(), RuleError> {
    Rule::parse(text, std::path::Path::new("/"), None).map(|_| ())
}
