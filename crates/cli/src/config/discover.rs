//! Where configuration comes from: the files of each layer, and the environment.

use std::path::{Path, PathBuf};

use super::{ConfigError, Format, Scope, Source};

/// The configuration files that exist, least specific first: the user's
/// `$XDG_CONFIG_HOME/rein/config.toml` (default `~/.config/rein/config.toml`), the workspace's
/// Claude Code `.claude/settings.json` and `.claude/settings.local.json`, then
/// `.rein/config.toml` and `.rein/config.local.toml`. A missing file is skipped; one that
/// exists but cannot be read is an error. The workspace's files get `workspace_scope`
/// (whether the user trusts them).
pub fn sources(
    workspace: &Path,
    env: &dyn Fn(&str) -> Option<String>,
    workspace_scope: Scope,
) -> Result<Vec<Source>, ConfigError> {
    let mut candidates: Vec<(PathBuf, Format, Scope)> = Vec::new();
    if let Some(dir) = user_config_dir(env) {
        candidates.push((dir.join("rein/config.toml"), Format::Toml, Scope::User));
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
    let mut sources = Vec::new();
    for (path, format, scope) in candidates {
        match std::fs::read_to_string(&path) {
            Ok(text) => sources.push(Source {
                path: path.display().to_string(),
                text,
                format,
                scope,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(ConfigError {
                    path: path.display().to_string(),
                    line: None,
                    key: None,
                    message: format!("cannot read it: {e}"),
                });
            }
        }
    }
    Ok(sources)
}

/// `$XDG_CONFIG_HOME`, else `~/.config`.
pub fn user_config_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let absolute = |v: Option<String>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    absolute(env("XDG_CONFIG_HOME")).or_else(|| absolute(env("HOME")).map(|h| h.join(".config")))
}
