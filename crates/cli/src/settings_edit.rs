//! Changing a setting or a permission rule at the user's word (`rein config set|unset|allow|
//! ask|deny|remove-rule`, and from the UI `/config set`, `/permissions allow …`,
//! `/statusline …`): one of rein's TOML files edited with the rest kept as it was, checked by
//! reading it as rein will before it is written (a bad key or rule changes nothing), and the
//! workspace's trust kept when the user changed one of its own files.

use std::path::{Path, PathBuf};

use rein_policy::{Rule, RuleEdit, RuleList, SourcedRule};
use rein_tui::settings::{SettingsChange, SettingsScope};

use crate::Exit;
use crate::args::{ConfigCommand, RuleAt};
use crate::config::{Format, Scope, Source};
use crate::edit_files::{read_toml, retrust, trusted, write};

/// What a change did.
#[derive(Debug)]
pub struct Changed {
    /// One line for the user.
    pub message: String,
    /// The change to the live rules, when one applies now.
    pub rules: Option<RuleEdit>,
}

/// `rein config set|unset|allow|ask|deny|remove-rule`: the change made, and said.
pub fn command(command: ConfigCommand) -> Result<(), Exit> {
    let (cwd, edit) = match command {
        ConfigCommand::Show { .. } => return Err(Exit::failed("internal: config show")),
        ConfigCommand::Set { key, value, at } => (
            at.cwd,
            SettingsChange::Set {
                key,
                value,
                scope: at.scope.into(),
            },
        ),
        ConfigCommand::Unset { key, at } => (
            at.cwd,
            SettingsChange::Unset {
                key,
                scope: at.scope.into(),
            },
        ),
        ConfigCommand::Allow { rule, at } => rule_change(RuleList::Allow, rule, at),
        ConfigCommand::Ask { rule, at } => rule_change(RuleList::Ask, rule, at),
        ConfigCommand::Deny { rule, at } => rule_change(RuleList::Deny, rule, at),
        ConfigCommand::RemoveRule { rule, scope, cwd } => (
            cwd,
            SettingsChange::RemoveRule {
                rule,
                scope: scope.map(Into::into),
            },
        ),
    };
    let workspace = crate::resolve::workspace(cwd.as_deref())?;
    println!("{}", change(&edit, &workspace)?.message);
    Ok(())
}

fn rule_change(list: RuleList, rule: String, at: RuleAt) -> (Option<PathBuf>, SettingsChange) {
    let change = SettingsChange::AddRule {
        list,
        rule,
        scope: at.scope.into(),
    };
    (at.cwd, change)
}

/// The file a scope names.
pub fn file(scope: SettingsScope, workspace: &Path) -> Result<PathBuf, Exit> {
    match scope {
        SettingsScope::User => crate::resolve::Folders::of(&crate::env::process)
            .config
            .map(|dir| dir.join("config.toml"))
            .ok_or_else(|| Exit::usage("cannot find the user config: set HOME or XDG_CONFIG_HOME")),
        SettingsScope::Workspace => Ok(workspace.join(".rein/config.toml")),
        SettingsScope::Local => Ok(workspace.join(".rein/config.local.toml")),
    }
}

/// Makes `change` in its file.
pub fn change(change: &SettingsChange, workspace: &Path) -> Result<Changed, Exit> {
    match change {
        SettingsChange::Set { key, value, scope } => {
            let path = file(*scope, workspace)?;
            let mut doc = read_toml(&path)?;
            set(&mut doc, key, typed(value))?;
            let shown = doc_value(&doc, key);
            let note = save(&path, *scope, &doc, workspace)?;
            Ok(said(format!(
                "Set {key} = {shown} in {}{note}",
                path.display()
            )))
        }
        SettingsChange::Unset { key, scope } => {
            let path = file(*scope, workspace)?;
            let mut doc = read_toml(&path)?;
            if !unset(&mut doc, key) {
                return Err(Exit::usage(format!(
                    "{key} is not set in {}",
                    path.display()
                )));
            }
            let note = save(&path, *scope, &doc, workspace)?;
            Ok(said(format!("Removed {key} from {}{note}", path.display())))
        }
        SettingsChange::AddRule { list, rule, scope } => add_rule(*list, rule, *scope, workspace),
        SettingsChange::RemoveRule { rule, scope } => remove_rule(rule, *scope, workspace),
    }
}

fn said(message: String) -> Changed {
    Changed {
        message,
        rules: None,
    }
}

fn add_rule(
    list: RuleList,
    text: &str,
    scope: SettingsScope,
    workspace: &Path,
) -> Result<Changed, Exit> {
    let home = crate::env::home(&crate::env::process);
    let rule = Rule::parse(text.trim(), workspace, home.as_deref())
        .map_err(|e| Exit::usage(format!("{text}: {e}")))?;
    let path = file(scope, workspace)?;
    let mut doc = read_toml(&path)?;
    let key = format!("permissions.{}", list.name());
    let mut rules = rules_in(&doc, list);
    if rules.contains(&rule.text) {
        return Ok(said(format!(
            "{} already has the {} rule {}",
            path.display(),
            list.name(),
            rule.text
        )));
    }
    rules.push(rule.text.clone());
    set(
        &mut doc,
        &key,
        toml_edit::Value::Array(rules.iter().collect()),
    )?;
    let note = save(&path, scope, &doc, workspace)?;
    let held_back = list == RuleList::Allow && !note.is_empty();
    Ok(Changed {
        message: format!(
            "Added {} rule {} to {}{note}",
            list.name(),
            rule.text,
            path.display()
        ),
        rules: (!held_back).then(|| RuleEdit::Add {
            list,
            rule: Box::new(SourcedRule {
                rule,
                source: path.display().to_string(),
            }),
        }),
    })
}

fn remove_rule(
    text: &str,
    scope: Option<SettingsScope>,
    workspace: &Path,
) -> Result<Changed, Exit> {
    let text = text.trim();
    let scopes = match scope {
        Some(scope) => vec![scope],
        None => vec![
            SettingsScope::User,
            SettingsScope::Workspace,
            SettingsScope::Local,
        ],
    };
    let mut holding = Vec::new();
    for scope in scopes {
        let path = file(scope, workspace)?;
        let doc = read_toml(&path)?;
        if RuleList::ALL
            .iter()
            .any(|list| rules_in(&doc, *list).iter().any(|r| r == text))
        {
            holding.push((scope, path, doc));
        }
    }
    let (scope, path, mut doc) = match holding.len() {
        0 => {
            return Err(Exit::usage(format!(
                "no rein settings file has the rule {text} (rules from .claude/settings*.json \
                 are Claude Code's: change them there; rules from flags last for the run)"
            )));
        }
        1 => holding.remove(0),
        _ => {
            let names: Vec<&str> = holding.iter().map(|(s, _, _)| s.name()).collect();
            return Err(Exit::usage(format!(
                "the rule {text} is in the {} settings: say which (--scope {})",
                names.join(" and "),
                names.join("|")
            )));
        }
    };
    for list in RuleList::ALL {
        let rules: Vec<String> = rules_in(&doc, list)
            .into_iter()
            .filter(|r| r != text)
            .collect();
        let key = format!("permissions.{}", list.name());
        if rules.is_empty() {
            unset(&mut doc, &key);
        } else {
            set(
                &mut doc,
                &key,
                toml_edit::Value::Array(rules.iter().collect()),
            )?;
        }
    }
    let note = save(&path, scope, &doc, workspace)?;
    Ok(Changed {
        message: format!("Removed the rule {text} from {}{note}", path.display()),
        rules: Some(RuleEdit::Remove {
            text: text.to_string(),
            file: path.display().to_string(),
        }),
    })
}

/// The rules of one list in `doc`, as written.
fn rules_in(doc: &toml_edit::DocumentMut, list: RuleList) -> Vec<String> {
    doc.get("permissions")
        .and_then(|p| p.get(list.name()))
        .and_then(|l| l.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// `text` as a TOML value when it reads as one (`true`, `30`, `["a"]`, `"quoted"`), else as
/// a string.
fn typed(text: &str) -> toml_edit::Value {
    text.trim()
        .parse::<toml_edit::Value>()
        .unwrap_or_else(|_| toml_edit::Value::from(text.trim()))
}

/// The value at dotted `key`, as it will be written.
fn doc_value(doc: &toml_edit::DocumentMut, key: &str) -> String {
    let mut item = doc.as_item();
    for part in key.split('.') {
        match item.get(part) {
            Some(next) => item = next,
            None => return String::new(),
        }
    }
    item.to_string().trim().to_string()
}

/// Sets dotted `key` to `value`, making the tables on the way.
fn set(doc: &mut toml_edit::DocumentMut, key: &str, value: toml_edit::Value) -> Result<(), Exit> {
    let parts = key_parts(key)?;
    let Some((last, tables)) = parts.split_last() else {
        return Err(Exit::usage("no key given"));
    };
    let mut table = doc.as_table_mut() as &mut dyn toml_edit::TableLike;
    for (i, part) in tables.iter().enumerate() {
        let item = table.entry(part).or_insert_with(|| {
            let mut new = toml_edit::Table::new();
            new.set_implicit(true);
            toml_edit::Item::Table(new)
        });
        table = item
            .as_table_like_mut()
            .ok_or_else(|| Exit::usage(format!("{} is not a table", parts[..=i].join("."))))?;
    }
    match table.get_mut(last) {
        // Replaced in place: the key's comments and the value's trailing one stay.
        Some(toml_edit::Item::Value(old)) => {
            let decor = old.decor().clone();
            *old = value;
            *old.decor_mut() = decor;
        }
        _ => {
            table.insert(last, toml_edit::Item::Value(value));
        }
    }
    Ok(())
}

/// Removes dotted `key`; false when it was not there.
fn unset(doc: &mut toml_edit::DocumentMut, key: &str) -> bool {
    let Ok(parts) = key_parts(key) else {
        return false;
    };
    let Some((last, tables)) = parts.split_last() else {
        return false;
    };
    let mut table = doc.as_table_mut() as &mut dyn toml_edit::TableLike;
    for part in tables {
        match table.get_mut(part).and_then(|i| i.as_table_like_mut()) {
            Some(next) => table = next,
            None => return false,
        }
    }
    table.remove(last).is_some()
}

fn key_parts(key: &str) -> Result<Vec<&str>, Exit> {
    let parts: Vec<&str> = key.trim().split('.').collect();
    if parts.iter().any(|p| p.trim().is_empty()) {
        return Err(Exit::usage(format!(
            "`{key}` is not a settings key (a.b.c)"
        )));
    }
    Ok(parts)
}

/// Checks `doc` as rein reads its file, writes it, and keeps the workspace's trust; the
/// note to add to the message (empty, or why it does not apply yet).
fn save(
    path: &Path,
    scope: SettingsScope,
    doc: &toml_edit::DocumentMut,
    workspace: &Path,
) -> Result<String, Exit> {
    let text = doc.to_string();
    let source = Source {
        path: path.display().to_string(),
        text: text.clone(),
        format: Format::Toml,
        scope: match scope {
            SettingsScope::User => Scope::User,
            SettingsScope::Workspace | SettingsScope::Local => Scope::TrustedWorkspace,
        },
    };
    crate::config::load(&[source]).map_err(|e| Exit::usage(format!("nothing changed: {e}")))?;
    if scope == SettingsScope::User {
        write(path, &text)?;
        return Ok(String::new());
    }
    let was_trusted = trusted(workspace);
    write(path, &text)?;
    if was_trusted {
        retrust(workspace)?;
        return Ok(String::new());
    }
    Ok(
        " (this workspace is not trusted: its allow rules, hooks and modes apply after \
        `rein trust`)"
            .to_string(),
    )
}

#[cfg(test)]
#[path = "settings_edit_tests.rs"]
mod tests;
