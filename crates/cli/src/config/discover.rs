//! Where configuration comes from: the files of each layer, and the environment.

use std::path::{Path, PathBuf};

use rein_tools::{ReadRefusal, read_regular};

use super::{ConfigError, Format, Scope, Source};

/// Most of a configuration or settings file read; a larger one is skipped with a warning.
pub const CONFIG_FILE_CAP: u64 = 1024 * 1024;

/// The configuration texts found, and the files skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    /// The texts, least specific first.
    pub sources: Vec<Source>,
    /// Files that exist but were not read (not a regular file, over [`CONFIG_FILE_CAP`]), as
    /// warnings naming them.
    pub unread: Vec<String>,
}

/// The user's own places of configuration.
#[derive(Debug, Clone, Copy, Default)]
pub struct UserFiles<'a> {
    /// rein's config folder (`$XDG_CONFIG_HOME/rein`, default `~/.config/rein`).
    pub rein: Option<&'a Path>,
    /// Claude Code's (`$CLAUDE_CONFIG_DIR`, default `~/.claude`): its `settings.json`.
    pub claude: Option<&'a Path>,
    /// Claude Code's managed settings (`/etc/claude-code/managed-settings.json`).
    pub managed: Option<&'a Path>,
}

/// The configuration files that exist, least specific first — Claude Code's hierarchy with
/// rein's files beside theirs: the user's Claude Code `settings.json` (in `user.claude`), the
/// user's `config.toml` (in `user.rein`), the workspace's Claude Code `.claude/settings.json`
/// and `.claude/settings.local.json`, then `.rein/config.toml` and `.rein/config.local.toml`,
/// and last the managed settings (an administrator's: their values over every file's, their
/// rules and hooks always applied). A missing file is skipped; so is one that is not a
/// regular file (a FIFO, a link to a device, a folder) or is over [`CONFIG_FILE_CAP`], with a
/// warning in [`Found::unread`]; one that cannot be read or is not UTF-8 is an error. The
/// workspace's files get `workspace_scope` (whether the user trusts them).
pub fn sources(
    workspace: &Path,
    user: UserFiles<'_>,
    workspace_scope: Scope,
) -> Result<Found, ConfigError> {
    let mut candidates: Vec<(PathBuf, Format, Scope)> = Vec::new();
    if let Some(dir) = user.claude {
        candidates.push((
            dir.join("settings.json"),
            Format::ClaudeSettings,
            Scope::User,
        ));
    }
    if let Some(dir) = user.rein {
        candidates.push((dir.join("config.toml"), Format::Toml, Scope::User));
    }
    let files = [
        (".claude/settings.json", Format::ClaudeSettings),
        (".claude/settings.local.json", Format::ClaudeSettings),
        (".rein/config.toml", Format::Toml),
        (".rein/config.local.toml", Format::Toml),
    ];
    for (name, format) in files {
        let path = workspace.join(name);
        // The user's own config folder may be the workspace (`rein` run in ~/.config).
        if !candidates.iter().any(|(p, _, _)| *p == path) {
            candidates.push((path, format, workspace_scope));
        }
    }
    if let Some(managed) = user.managed {
        candidates.push((managed.to_path_buf(), Format::ClaudeSettings, Scope::User));
    }
    let mut found = Found::default();
    for (path, format, scope) in candidates {
        match read_regular(&path, CONFIG_FILE_CAP) {
            Ok(Some(text)) => found.sources.push(Source {
                path: path.display().to_string(),
                text,
                format,
                scope,
            }),
            Ok(None) => {}
            Err(refused @ (ReadRefusal::NotRegular { .. } | ReadRefusal::TooLarge { .. })) => {
                found
                    .unread
                    .push(format!("config file not read: {refused}"));
            }
            // Claude Code's files of the user (a home this user may not read, managed settings
            // readable by root only) are skipped, said, rather than stop rein.
            Err(refused @ ReadRefusal::Io { .. })
                if scope == Scope::User && format == Format::ClaudeSettings =>
            {
                found
                    .unread
                    .push(format!("config file not read: {refused}"));
            }
            Err(refused) => {
                return Err(ConfigError {
                    path: path.display().to_string(),
                    line: None,
                    key: None,
                    message: format!("cannot read it: {refused}"),
                });
            }
        }
    }
    Ok(found)
}

/// `$XDG_CONFIG_HOME`, else `~/.config` (worked out once, by `resolve::Folders::of`).
pub fn user_config_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let absolute = |v: Option<String>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    absolute(env("XDG_CONFIG_HOME")).or_else(|| absolute(env("HOME")).map(|h| h.join(".config")))
}

/// The files (or inline JSON) `--settings` names, as the user's own sources: a `.toml` file is
/// rein's format, anything else Claude Code's `settings.json`; a value starting with `{` is
/// the settings themselves.
pub fn named_sources(values: &[String]) -> Result<Vec<Source>, ConfigError> {
    values
        .iter()
        .map(|value| {
            if value.trim_start().starts_with('{') {
                return Ok(Source {
                    path: "--settings".to_string(),
                    text: value.clone(),
                    format: Format::ClaudeSettings,
                    scope: Scope::User,
                });
            }
            let path = Path::new(value);
            let missing = |message: String| ConfigError {
                path: value.clone(),
                line: None,
                key: None,
                message,
            };
            let text = match read_regular(path, CONFIG_FILE_CAP) {
                Ok(Some(text)) => text,
                Ok(None) => return Err(missing("no such file".to_string())),
                Err(refused) => return Err(missing(format!("cannot read it: {refused}"))),
            };
            let format = match path.extension().is_some_and(|e| e == "toml") {
                true => Format::Toml,
                false => Format::ClaudeSettings,
            };
            Ok(Source {
                path: value.clone(),
                text,
                format,
                scope: Scope::User,
            })
        })
        .collect()
}
