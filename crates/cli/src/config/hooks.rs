//! `[hooks]` of a TOML config file: Claude Code's groups (`matcher`, `hooks: [{type, command,
//! timeout}]`) or rein's flat form, checked and added (held back in an untrusted workspace).

use std::time::Duration;

use rein_engine::hooks::{DEFAULT_HOOK_TIMEOUT, HookEvent, HookSpec};
use toml::Spanned;

use super::{Config, ConfigError, Reader, Scope, Why, event_names, file::TomlFile, ignore};

/// Adds the hooks of `file` to `config`; a file of an untrusted workspace's are held back.
pub(super) fn merge(
    config: &mut Config,
    file: &TomlFile,
    reader: &Reader<'_>,
    scope: Scope,
) -> Result<(), ConfigError> {
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
                if scope == Scope::UntrustedWorkspace {
                    let what = format!("{} hook: {}", event.name(), command.get_ref());
                    ignore(config, what, reader.at(command), Why::Untrusted);
                    continue;
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
