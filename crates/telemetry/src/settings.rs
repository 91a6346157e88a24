//! Where telemetry goes: the standard `OTEL_*` variables and rein's `[telemetry]` section,
//! resolved once. Nothing is exported unless an endpoint is configured; `OTEL_SDK_DISABLED`
//! turns export off whatever else says.

use std::path::PathBuf;
use std::time::Duration;

/// OTLP's transports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// OTLP/gRPC (default port 4317).
    Grpc,
    /// OTLP/HTTP with protobuf bodies (default port 4318; the specification's default).
    HttpProtobuf,
}

impl Protocol {
    /// Reads `grpc` or `http/protobuf`.
    pub fn parse(text: &str) -> Result<Self, SettingsError> {
        match text.trim() {
            "grpc" => Ok(Self::Grpc),
            "http/protobuf" => Ok(Self::HttpProtobuf),
            other => Err(SettingsError(format!(
                "OTLP protocol {other:?}: rein exports with grpc or http/protobuf"
            ))),
        }
    }

    /// The name the variables use.
    pub fn name(self) -> &'static str {
        match self {
            Self::Grpc => "grpc",
            Self::HttpProtobuf => "http/protobuf",
        }
    }
}

/// A setting that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("telemetry: {0}")]
pub struct SettingsError(pub String);

/// The `[telemetry]` section of rein's config (the user's own file only: a workspace must not
/// send the session somewhere else).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Section {
    /// The collector's base URL (`http://localhost:4318`), for both signals.
    pub endpoint: Option<String>,
    /// `grpc` or `http/protobuf`.
    pub protocol: Option<String>,
    /// Attach prompts, answers, tool arguments and results (provider keys redacted).
    pub log_content: Option<bool>,
}

/// One signal's export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    /// The full URL to send to; `None` lets the exporter read the `OTEL_*` endpoint
    /// variables itself (adding `/v1/traces` to the general one over HTTP, as specified).
    pub endpoint: Option<String>,
    /// The transport.
    pub protocol: Protocol,
    /// The endpoint is `http://`: no TLS, so no root certificates to load.
    pub plain: bool,
}

/// Everything the telemetry of one process needs to start.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Where spans go, when anywhere.
    pub traces: Option<Export>,
    /// Where metrics go, when anywhere.
    pub metrics: Option<Export>,
    /// The same spans as JSON lines (`--trace FILE`).
    pub trace_file: Option<PathBuf>,
    /// Content (prompts, answers, tool input and output) attached to spans.
    pub log_content: bool,
    /// The longest the exit waits for what is still queued.
    pub flush_timeout: Duration,
    /// How often metrics are exported (`OTEL_METRIC_EXPORT_INTERVAL`, default 60 s).
    pub metric_interval: Duration,
    /// rein's version, for the resource.
    pub version: String,
}

impl Settings {
    /// Whether anything is recorded at all.
    pub fn any(&self) -> bool {
        self.traces.is_some() || self.metrics.is_some() || self.trace_file.is_some()
    }

    /// The settings from the environment (`env`), the config `section` and `--trace`.
    pub fn resolve(
        env: &dyn Fn(&str) -> Option<String>,
        section: &Section,
        trace_file: Option<PathBuf>,
        version: &str,
    ) -> Result<Self, SettingsError> {
        let set = |key: &str| env(key).filter(|v| !v.trim().is_empty());
        let disabled = set("OTEL_SDK_DISABLED").is_some_and(|v| v.trim() == "true");
        let signal = |name: &str, path: &str| -> Result<Option<Export>, SettingsError> {
            let upper = name.to_ascii_uppercase();
            if disabled || set(&format!("OTEL_{upper}_EXPORTER")).as_deref() == Some("none") {
                return Ok(None);
            }
            let protocol = match set(&format!("OTEL_EXPORTER_OTLP_{upper}_PROTOCOL"))
                .or_else(|| set("OTEL_EXPORTER_OTLP_PROTOCOL"))
                .or_else(|| section.protocol.clone())
            {
                Some(text) => Protocol::parse(&text)?,
                None => Protocol::HttpProtobuf,
            };
            let from_env = set(&format!("OTEL_EXPORTER_OTLP_{upper}_ENDPOINT"))
                .or_else(|| set("OTEL_EXPORTER_OTLP_ENDPOINT"));
            if let Some(url) = from_env {
                return Ok(Some(Export {
                    endpoint: None,
                    protocol,
                    plain: plain(&url),
                }));
            }
            let Some(base) = section.endpoint.as_deref().filter(|e| !e.trim().is_empty()) else {
                return Ok(None);
            };
            let base = base.trim().trim_end_matches('/');
            let endpoint = match protocol {
                Protocol::Grpc => base.to_string(),
                Protocol::HttpProtobuf => format!("{base}{path}"),
            };
            Ok(Some(Export {
                plain: plain(&endpoint),
                endpoint: Some(endpoint),
                protocol,
            }))
        };
        let interval = set("OTEL_METRIC_EXPORT_INTERVAL")
            .and_then(|ms| ms.trim().parse::<u64>().ok())
            .filter(|ms| *ms > 0)
            .map_or(Duration::from_secs(60), Duration::from_millis);
        let log_content = set("OTEL_LOG_USER_PROMPTS").is_some_and(|v| v.trim() == "1")
            || section.log_content == Some(true);
        Ok(Self {
            traces: signal("traces", "/v1/traces")?,
            metrics: signal("metrics", "/v1/metrics")?,
            trace_file,
            log_content,
            flush_timeout: Duration::from_secs(2),
            metric_interval: interval,
            version: version.to_string(),
        })
    }
}

fn plain(url: &str) -> bool {
    url.trim()
        .get(..7)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("http://"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(vars: &[(&str, &str)], section: &Section) -> Result<Settings, SettingsError> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let env = move |key: &str| vars.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        Settings::resolve(&env, section, None, "0.1.0")
    }

    #[test]
    fn nothing_is_exported_without_an_endpoint() {
        let settings = resolve(&[], &Section::default()).unwrap();
        assert!(!settings.any());
        let settings = resolve(
            &[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")],
            &Section::default(),
        );
        assert!(!settings.unwrap().any());
    }

    #[test]
    fn the_variables_and_the_section_choose_the_endpoint_and_protocol() {
        let env = resolve(
            &[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4317"),
                ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            ],
            &Section::default(),
        )
        .unwrap();
        let export = Export {
            endpoint: None,
            protocol: Protocol::Grpc,
            plain: true,
        };
        assert_eq!(env.traces, Some(export.clone()));
        assert_eq!(env.metrics, Some(export));
        let section = Section {
            endpoint: Some("http://c:4318/".into()),
            ..Section::default()
        };
        let config = resolve(&[("OTEL_METRICS_EXPORTER", "none")], &section).unwrap();
        assert_eq!(
            config.traces,
            Some(Export {
                endpoint: Some("http://c:4318/v1/traces".into()),
                protocol: Protocol::HttpProtobuf,
                plain: true,
            })
        );
        assert_eq!(config.metrics, None);
        let only_traces = resolve(
            &[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://c/t")],
            &Section::default(),
        )
        .unwrap();
        assert!(only_traces.traces.is_some() && only_traces.metrics.is_none());
    }

    #[test]
    fn sdk_disabled_turns_export_off_and_bad_protocols_are_refused() {
        let section = Section {
            endpoint: Some("http://c:4318".into()),
            ..Section::default()
        };
        let off = resolve(&[("OTEL_SDK_DISABLED", "true")], &section).unwrap();
        assert!(!off.any());
        let err = resolve(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")], &section).unwrap_err();
        assert!(err.0.contains("grpc or http/protobuf"), "{err}");
    }

    #[test]
    fn content_is_attached_only_when_asked() {
        let section = Section::default();
        assert!(!resolve(&[], &section).unwrap().log_content);
        assert!(
            resolve(&[("OTEL_LOG_USER_PROMPTS", "1")], &section)
                .unwrap()
                .log_content
        );
        let asked = Section {
            log_content: Some(true),
            ..Section::default()
        };
        assert!(resolve(&[], &asked).unwrap().log_content);
    }
}
