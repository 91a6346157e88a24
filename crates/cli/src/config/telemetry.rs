//! `[telemetry]`: where traces and metrics go (an OTLP collector) and whether content is
//! attached. The user's own file only: a workspace must not send the session elsewhere.

use serde::Deserialize;
use toml::Spanned;

use super::file::TomlFile;
use super::{Config, ConfigError, Reader, Scope, Sourced, Why, ignore, set};

/// `[telemetry]` as a file writes it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelemetryFile {
    /// The collector's base URL (`http://localhost:4318`; the `OTEL_*` variables win).
    pub endpoint: Option<Spanned<String>>,
    /// `grpc` or `http/protobuf`.
    pub protocol: Option<Spanned<String>>,
    /// Attach prompts, answers, tool arguments and results (provider keys redacted).
    pub log_content: Option<Spanned<bool>>,
}

/// `[telemetry]` merged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TelemetryConfig {
    pub endpoint: Option<Sourced<String>>,
    pub protocol: Option<Sourced<String>>,
    pub log_content: Option<Sourced<bool>>,
}

impl TelemetryConfig {
    /// The section as the telemetry crate takes it.
    pub fn section(&self) -> rein_telemetry::Section {
        rein_telemetry::Section {
            endpoint: self.endpoint.as_ref().map(|s| s.value.clone()),
            protocol: self.protocol.as_ref().map(|s| s.value.clone()),
            log_content: self.log_content.as_ref().map(|s| s.value),
        }
    }
}

/// Adds `[telemetry]` of `file` to `config` (from the user's own file only).
pub(super) fn merge(
    config: &mut Config,
    file: &TomlFile,
    reader: &Reader<'_>,
) -> Result<(), ConfigError> {
    let section = &file.telemetry;
    if let Some(protocol) = &section.protocol
        && let Err(e) = rein_telemetry::Protocol::parse(protocol.get_ref())
    {
        return Err(reader.error(protocol, "telemetry.protocol", e.0));
    }
    if reader.source.scope != Scope::User {
        let mut said = |key: &str, at: String| {
            ignore(config, key.to_string(), at, Why::UserOnly);
        };
        if let Some(value) = &section.endpoint {
            said("telemetry.endpoint", reader.at(value));
        }
        if let Some(value) = &section.protocol {
            said("telemetry.protocol", reader.at(value));
        }
        if let Some(value) = &section.log_content {
            said("telemetry.log_content", reader.at(value));
        }
        return Ok(());
    }
    set(
        &mut config.telemetry.endpoint,
        section.endpoint.as_ref(),
        reader,
    );
    set(
        &mut config.telemetry.protocol,
        section.protocol.as_ref(),
        reader,
    );
    set(
        &mut config.telemetry.log_content,
        section.log_content.as_ref(),
        reader,
    );
    Ok(())
}
