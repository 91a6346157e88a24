//! The permission policy of a run: the mode and the rules from the flags, the environment
//! and the configuration.

use std::path::Path;

use rein_policy::{PermissionMode, Policy, Rule, SourcedRule};

use super::{non_empty, sourced};
use crate::Exit;
use crate::config::{Config, Sourced};
use crate::overrides::{Mode, RuleTexts};

/// The policy the config files alone give (no flags, no environment but `HOME`, which rules
/// starting with `~/` name).
pub fn config_policy(
    root: &Path,
    config: &Config,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Policy, Exit> {
    let home = |key: &str| if key == "HOME" { env(key) } else { None };
    policy((None, &RuleTexts::default()), root, &home, config)
}

/// The permission mode `flag` sets (`--permission-mode`), else `$REIN_PERMISSION_MODE`
/// (source `env REIN_PERMISSION_MODE`), else the config names; `None` when none does.
pub fn permission_mode(
    flag: Option<Mode>,
    env: &dyn Fn(&str) -> Option<String>,
    config: &Config,
) -> Result<Option<Sourced<PermissionMode>>, Exit> {
    if let Some(flag) = flag {
        return Ok(Some(sourced(flag.mode(), flag.flag())));
    }
    match non_empty(env("REIN_PERMISSION_MODE")) {
        Some(name) => PermissionMode::parse(&name)
            .map(|mode| Some(sourced(mode, "env REIN_PERMISSION_MODE")))
            .ok_or_else(|| {
                Exit::usage(format!(
                    "REIN_PERMISSION_MODE: unknown permission mode {name:?}"
                ))
            }),
        None => Ok(config.permission_mode.clone()),
    }
}

/// The permission policy: the mode from `--permission-mode`, `$REIN_PERMISSION_MODE` or the
/// config; rules from the config files followed by `--allowed-tools` and `--disallowed-tools`.
pub fn policy(
    (mode, rules): (Option<Mode>, &RuleTexts),
    root: &Path,
    env: &dyn Fn(&str) -> Option<String>,
    config: &Config,
) -> Result<Policy, Exit> {
    let mut policy = Policy::default();
    if let Some(mode) = permission_mode(mode, env, config)? {
        policy.mode = mode.value;
    }
    let home = crate::env::home(env);
    let parse = |text: &str, source: &str| -> Result<SourcedRule, Exit> {
        Rule::parse(text, root, home.as_deref())
            .map(|rule| SourcedRule {
                rule,
                source: source.to_string(),
            })
            .map_err(|e| Exit::usage(format!("{source}: {e}")))
    };
    let from_config = |list: &[Sourced<String>]| -> Result<Vec<SourcedRule>, Exit> {
        list.iter().map(|s| parse(&s.value, &s.source)).collect()
    };
    let from_flag = |values: &[String], flag: &str| -> Result<Vec<SourcedRule>, Exit> {
        split_rules(values).iter().map(|t| parse(t, flag)).collect()
    };
    policy.rules.allow = from_config(&config.allow)?;
    policy
        .rules
        .allow
        .extend(from_flag(&rules.allow, "--allowed-tools")?);
    policy.rules.ask = from_config(&config.ask)?;
    policy.rules.deny = from_config(&config.deny)?;
    policy
        .rules
        .deny
        .extend(from_flag(&rules.deny, "--disallowed-tools")?);
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
