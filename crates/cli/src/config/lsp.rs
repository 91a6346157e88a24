//! `[lsp]`: the language servers — whether they run, how long a change waits for their
//! diagnostics, which are shown — and `[lsp.servers.NAME]`, a server added to the built-in
//! table or a built-in one changed (command, file types, root markers, initialisation
//! options) or turned off. A server entry of an untrusted workspace is held back: it names a
//! program to run.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use super::file::TomlFile;
use super::{Config, ConfigError, Reader, Scope, Sourced, Why, ignore, set};

/// `[lsp]` as a file writes it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LspFile {
    /// `false` starts no language server.
    pub enabled: Option<Spanned<bool>>,
    /// Milliseconds a change waits for the servers' diagnostics (2000).
    pub settle_ms: Option<Spanned<u64>>,
    /// `errors` (default) or `warnings`: what a change reports.
    pub show: Option<Spanned<String>>,
    /// The most diagnostics one result lists (20).
    pub max_diagnostics: Option<Spanned<usize>>,
    /// Servers added or changed, by name.
    #[serde(default)]
    pub servers: BTreeMap<String, ServerFile>,
}

/// `[lsp.servers.NAME]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerFile {
    /// The program and its arguments.
    pub command: Option<Spanned<Vec<String>>>,
    /// File extensions it reads.
    pub extensions: Option<Vec<String>>,
    /// Files marking a project's root.
    pub root_markers: Option<Vec<String>>,
    /// Sent as `initializationOptions`.
    pub init_options: Option<toml::Value>,
    /// Leave the server out.
    #[serde(default)]
    pub disabled: bool,
}

/// `[lsp]` merged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LspConfig {
    pub enabled: Option<Sourced<bool>>,
    pub settle_ms: Option<Sourced<u64>>,
    pub show: Option<Sourced<String>>,
    pub max_diagnostics: Option<Sourced<usize>>,
    /// The server entries, in the order the files gave them.
    pub servers: Vec<rein_code::lsp::ServerEntry>,
}

/// The values `[lsp] show` takes.
pub const SHOW: [&str; 2] = ["errors", "warnings"];

impl LspConfig {
    /// Whether servers run (on unless turned off).
    pub fn enabled(&self) -> bool {
        self.enabled.as_ref().is_none_or(|e| e.value)
    }

    /// The settings the servers are used with.
    pub fn settings(&self) -> rein_code::lsp::LspSettings {
        let mut settings = rein_code::lsp::LspSettings::default();
        if let Some(ms) = &self.settle_ms {
            settings.settle = Duration::from_millis(ms.value);
        }
        if self.show.as_ref().is_some_and(|s| s.value == "warnings") {
            settings.shown = rein_code::lsp::Shown::Warnings;
        }
        if let Some(max) = &self.max_diagnostics {
            settings.max_diagnostics = max.value;
        }
        settings
    }
}

/// Adds `[lsp]` of `file` to `config`.
pub(super) fn merge(
    config: &mut Config,
    file: &TomlFile,
    reader: &Reader<'_>,
    scope: Scope,
) -> Result<(), ConfigError> {
    let section = &file.lsp;
    if let Some(show) = &section.show
        && !SHOW.contains(&show.get_ref().as_str())
    {
        let expected = SHOW.join(", ");
        return Err(reader.error(show, "lsp.show", format!("expected one of {expected}")));
    }
    set(&mut config.lsp.enabled, section.enabled.as_ref(), reader);
    set(
        &mut config.lsp.settle_ms,
        section.settle_ms.as_ref(),
        reader,
    );
    set(&mut config.lsp.show, section.show.as_ref(), reader);
    set(
        &mut config.lsp.max_diagnostics,
        section.max_diagnostics.as_ref(),
        reader,
    );
    for (name, server) in &section.servers {
        let key = format!("lsp.servers.{name}");
        if let Some(command) = &server.command
            && command
                .get_ref()
                .first()
                .is_none_or(|p| p.trim().is_empty())
        {
            return Err(reader.error(command, &key, "the command is empty"));
        }
        if scope == Scope::UntrustedWorkspace && !server.disabled {
            let at = match &server.command {
                Some(command) => reader.at(command),
                None => reader.source.path.clone(),
            };
            ignore(
                config,
                format!("language server {name}"),
                at,
                Why::Untrusted,
            );
            continue;
        }
        let init_options = match &server.init_options {
            Some(options) => Some(serde_json::to_value(options).map_err(|e| ConfigError {
                path: reader.source.path.clone(),
                line: None,
                key: Some(key.clone()),
                message: format!("init_options: {e}"),
            })?),
            None => None,
        };
        config.lsp.servers.push(rein_code::lsp::ServerEntry {
            name: name.clone(),
            command: server.command.as_ref().map(|c| c.get_ref().clone()),
            extensions: server.extensions.clone(),
            root_markers: server.root_markers.clone(),
            init_options,
            disabled: server.disabled,
        });
    }
    Ok(())
}
