//! The settings the user changes from the UI: the rules editor of `/permissions` (a picker to
//! add or remove rules, and `/permissions allow|ask|deny|remove RULE`), `/config set|unset`
//! and `/statusline`. The host writes the files ([`crate::SessionHost::change_settings`]);
//! what applies now (the live rules, the status line) is applied by the runner.

use rein_policy::{PermissionMode, Policy, RuleList};

use super::{Action, App, PickKind, Picker};
use crate::settings::{SettingsChange, SettingsScope};

/// How the rules commands are used.
const RULES_USAGE: &str = "/permissions [MODE | allow|ask|deny RULE | remove RULE] \
[--scope user|workspace|local]";
/// How `/config` changes a setting.
const CONFIG_USAGE: &str = "/config [set KEY VALUE | unset KEY] [--scope user|workspace|local]";
/// Where a rule goes when no scope is given: the workspace's own file, the user's alone.
const RULE_SCOPE: SettingsScope = SettingsScope::Local;

impl App {
    /// `/permissions ARGS`: switch the mode, or add or remove a rule.
    pub(super) fn permissions_command(&mut self, args: &str) -> Vec<Action> {
        if let Some(mode) = PermissionMode::parse(args) {
            return vec![Action::SetMode(mode)];
        }
        let (args, scope) = match split_scope(args) {
            Ok(split) => split,
            Err(message) => return self.refuse(message),
        };
        let (verb, rule) = args.split_once(char::is_whitespace).unwrap_or((args, ""));
        let rule = rule.trim().to_string();
        if rule.is_empty() {
            return self.refuse(format!("unknown mode or rule command: {RULES_USAGE}"));
        }
        let change = match (verb, RuleList::parse(verb)) {
            (_, Some(list)) => SettingsChange::AddRule {
                list,
                rule,
                scope: scope.unwrap_or(RULE_SCOPE),
            },
            ("remove", None) => SettingsChange::RemoveRule { rule, scope },
            _ => return self.refuse(format!("unknown mode or rule command: {RULES_USAGE}")),
        };
        vec![Action::ChangeSettings(change)]
    }

    /// `/config ARGS`: set or remove a setting (the user's file unless a scope is given).
    pub(super) fn config_command(&mut self, args: &str) -> Vec<Action> {
        let (args, scope) = match split_scope(args) {
            Ok(split) => split,
            Err(message) => return self.refuse(message),
        };
        let scope = scope.unwrap_or(SettingsScope::User);
        let mut words = args.splitn(3, char::is_whitespace);
        let change = match (words.next(), words.next(), words.next()) {
            (Some("set"), Some(key), Some(value)) if !value.trim().is_empty() => {
                SettingsChange::Set {
                    key: key.to_string(),
                    value: value.trim().to_string(),
                    scope,
                }
            }
            (Some("unset"), Some(key), None) => SettingsChange::Unset {
                key: key.to_string(),
                scope,
            },
            _ => return self.refuse(format!("usage: {CONFIG_USAGE}")),
        };
        vec![Action::ChangeSettings(change)]
    }

    /// `/statusline [COMMAND|off]`: set the user's status line command, or go back to the
    /// built-in line.
    pub(super) fn statusline_command(&mut self, args: Option<String>) -> Vec<Action> {
        let key = "status_line".to_string();
        let scope = SettingsScope::User;
        match args.as_deref().map(str::trim) {
            None => {
                self.info(
                    "/statusline COMMAND shows the first line COMMAND prints, given the session \
                     as JSON on its standard input (Claude Code's statusLine); /statusline off \
                     shows the built-in line again",
                );
                Vec::new()
            }
            Some("off") => vec![Action::ChangeSettings(SettingsChange::Unset { key, scope })],
            Some(command) => {
                // Always a string, whatever it looks like (`true` is a command too).
                let value = serde_json::Value::from(command).to_string();
                vec![Action::ChangeSettings(SettingsChange::Set {
                    key,
                    value,
                    scope,
                })]
            }
        }
    }

    /// `/permissions`: after the rules are shown, a picker to add a rule or remove one of
    /// those rein's own settings files hold.
    pub fn open_rules_editor(&mut self, policy: &Policy) {
        let mut items: Vec<(String, String)> = RuleList::ALL
            .iter()
            .map(|list| {
                let name = list.name();
                (format!("add\t{name}"), format!("+ add an {name} rule…"))
            })
            .collect();
        for list in RuleList::ALL {
            for rule in policy.rules.list(list) {
                let Some(scope) = scope_of(&rule.source) else {
                    continue;
                };
                items.push((
                    format!("remove\t{}\t{}", scope.name(), rule.rule.text),
                    format!(
                        "− remove {} {}  ({})",
                        list.name(),
                        rule.rule.text,
                        rule.source
                    ),
                ));
            }
        }
        self.picker = Some(Picker::new(PickKind::Rules, "Edit the rules", items));
    }

    /// What picking `id` in the rules editor does.
    pub(super) fn picked_rule(&mut self, id: &str) -> Vec<Action> {
        let mut parts = id.splitn(3, '\t');
        match (parts.next(), parts.next(), parts.next()) {
            (Some("add"), Some(list), None) => {
                self.input.set_text(&format!("/permissions {list} "));
                self.info(
                    "type the rule (Bash(cargo test *), Edit(src/**), Read(./.env), \
                     mcp__server__tool) and press Enter; it goes to .rein/config.local.toml \
                     unless you add --scope user or --scope workspace",
                );
                Vec::new()
            }
            (Some("remove"), Some(scope), Some(rule)) => {
                vec![Action::ChangeSettings(SettingsChange::RemoveRule {
                    rule: rule.to_string(),
                    scope: SettingsScope::parse(scope),
                })]
            }
            _ => Vec::new(),
        }
    }

    /// Runs `command` for the status line from now on (`None`: the built-in line).
    pub fn replace_status_command(&mut self, command: Option<crate::StatusCommand>) {
        self.custom_status = None;
        self.new_status_command = Some(command);
    }

    /// The status line command to start, once after [`App::replace_status_command`].
    pub fn take_status_command(&mut self) -> Option<Option<crate::StatusCommand>> {
        self.new_status_command.take()
    }

    fn refuse(&mut self, message: String) -> Vec<Action> {
        self.error(message);
        Vec::new()
    }
}

/// `ARGS --scope NAME` → (`ARGS`, the scope); no scope → `None`.
fn split_scope(args: &str) -> Result<(&str, Option<SettingsScope>), String> {
    let args = args.trim();
    let Some((rest, name)) = args.rsplit_once("--scope") else {
        return Ok((args, None));
    };
    let name = name.trim();
    // Inside a rule (`Bash(x --scope y)`), not a scope.
    if name.contains(|c: char| c.is_whitespace() || c == ')') {
        return Ok((args, None));
    }
    match SettingsScope::parse(name) {
        Some(scope) if rest.ends_with(char::is_whitespace) || rest.is_empty() => {
            Ok((rest.trim(), Some(scope)))
        }
        _ => Err(format!("unknown scope {name:?}: user, workspace or local")),
    }
}

/// Which of rein's settings files a rule's source is (`path:line`); `None` for anything else
/// (flags, Claude Code's files).
fn scope_of(source: &str) -> Option<SettingsScope> {
    let path = source
        .rsplit_once(':')
        .filter(|(_, line)| line.chars().all(|c| c.is_ascii_digit()))
        .map_or(source, |(path, _)| path);
    if path.ends_with("/.rein/config.local.toml") {
        Some(SettingsScope::Local)
    } else if path.ends_with("/.rein/config.toml") {
        Some(SettingsScope::Workspace)
    } else if path.ends_with("/config.toml") {
        Some(SettingsScope::User)
    } else {
        None
    }
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
