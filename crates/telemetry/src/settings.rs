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
    /// The full URL to send to (over HTTP, the general endpoint with `/v1/traces` or
    /// `/v1/metrics` added, as specified; a signal's own endpoint as it is).
    pub endpoint: String,
    /// The transport.
    pub protocol: Protocol,
    /// The endpoint is `http://`: no TLS, so no root certificates to load.
    pub plain: bool,
    /// Headers sent with each export (`OTEL_EXPORTER_OTLP_HEADERS`, the signal's own after).
    pub headers: Vec<(String, String)>,
    /// How long one export may take (`OTEL_EXPORTER_OTLP_TIMEOUT`, default 10 s).
    pub timeout: Duration,
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
    /// How long ended spans wait for others to join their batch (`OTEL_BSP_SCHEDULE_DELAY`,
    /// default 5 s; a full batch of 512 goes at once, and the exit sends the rest).
    pub batch_delay: Duration,
    /// rein's version, for the resource.
    pub version: String,
    /// The resource's attributes: `service.name` (`OTEL_SERVICE_NAME`, else `rein`),
    /// `service.version`, and `OTEL_RESOURCE_ATTRIBUTES`.
    pub resource: Vec<(String, String)>,
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
            let own = set(&format!("OTEL_EXPORTER_OTLP_{upper}_ENDPOINT"));
            let base = set("OTEL_EXPORTER_OTLP_ENDPOINT")
                .or_else(|| section.endpoint.clone().filter(|e| !e.trim().is_empty()));
            let endpoint = match (own, base) {
                (Some(url), _) => url.trim().to_string(),
                (None, Some(base)) => {
                    let base = base.trim().trim_end_matches('/');
                    match protocol {
                        Protocol::Grpc => base.to_string(),
                        Protocol::HttpProtobuf => format!("{base}{path}"),
                    }
                }
                (None, None) => return Ok(None),
            };
            let mut headers = pairs(set("OTEL_EXPORTER_OTLP_HEADERS").as_deref());
            for (key, value) in
                pairs(set(&format!("OTEL_EXPORTER_OTLP_{upper}_HEADERS")).as_deref())
            {
                headers.retain(|(k, _)| !k.eq_ignore_ascii_case(&key));
                headers.push((key, value));
            }
            let timeout = set(&format!("OTEL_EXPORTER_OTLP_{upper}_TIMEOUT"))
                .or_else(|| set("OTEL_EXPORTER_OTLP_TIMEOUT"))
                .and_then(|ms| ms.trim().parse::<u64>().ok())
                .filter(|ms| *ms > 0)
                .map_or(Duration::from_secs(10), Duration::from_millis);
            Ok(Some(Export {
                plain: plain(&endpoint),
                endpoint,
                protocol,
                headers,
                timeout,
            }))
        };
        let millis = |key: &str, default: Duration| {
            set(key)
                .and_then(|ms| ms.trim().parse::<u64>().ok())
                .filter(|ms| *ms > 0)
                .map_or(default, Duration::from_millis)
        };
        let interval = millis("OTEL_METRIC_EXPORT_INTERVAL", Duration::from_secs(60));
        let batch_delay = millis("OTEL_BSP_SCHEDULE_DELAY", Duration::from_secs(5));
        let log_content = set("OTEL_LOG_USER_PROMPTS").is_some_and(|v| v.trim() == "1")
            || section.log_content == Some(true);
        Ok(Self {
            traces: signal("traces", "/v1/traces")?,
            metrics: signal("metrics", "/v1/metrics")?,
            trace_file,
            log_content,
            flush_timeout: Duration::from_secs(2),
            metric_interval: interval,
            batch_delay,
            version: version.to_string(),
            resource: resource(
                set("OTEL_SERVICE_NAME").as_deref(),
                set("OTEL_RESOURCE_ATTRIBUTES").as_deref(),
                version,
            ),
        })
    }
}

/// `service.name`, `service.version`, then the listed attributes (a name listed again, or
/// given by `OTEL_SERVICE_NAME`, takes the later value).
fn resource(service: Option<&str>, listed: Option<&str>, version: &str) -> Vec<(String, String)> {
    let mut attributes = vec![
        ("service.name".to_string(), "rein".to_string()),
        ("service.version".to_string(), version.to_string()),
        ("telemetry.sdk.language".to_string(), "rust".to_string()),
    ];
    let mut set = |key: String, value: String| {
        attributes.retain(|(k, _)| *k != key);
        attributes.push((key, value));
    };
    for (key, value) in pairs(listed) {
        set(key, value);
    }
    if let Some(name) = service {
        set("service.name".to_string(), name.trim().to_string());
    }
    attributes
}

/// `k1=v1,k2=v2` (values percent-encoded, as the OTLP variables are) as pairs; malformed
/// entries are skipped.
fn pairs(text: Option<&str>) -> Vec<(String, String)> {
    text.unwrap_or_default()
        .split(',')
        .filter_map(|pair| {
            let (key, value) = pair.split_once('=')?;
            let key = key.trim();
            (!key.is_empty()).then(|| (key.to_string(), percent_decoded(value.trim())))
        })
        .collect()
}

fn percent_decoded(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
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
            endpoint: "http://c:4317".into(),
            protocol: Protocol::Grpc,
            plain: true,
            headers: Vec::new(),
            timeout: Duration::from_secs(10),
        };
        assert_eq!(env.traces, Some(export.clone()));
        assert_eq!(env.metrics, Some(export));
        let http = resolve(
            &[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "https://c:4318/"),
                ("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://m/own"),
                ("OTEL_EXPORTER_OTLP_HEADERS", "a=1,b=x%20y"),
                ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "A=2"),
                ("OTEL_EXPORTER_OTLP_TIMEOUT", "2500"),
            ],
            &Section::default(),
        )
        .unwrap();
        let traces = http.traces.unwrap();
        assert_eq!(traces.endpoint, "https://c:4318/v1/traces");
        assert!(!traces.plain);
        assert_eq!(
            traces.headers,
            [
                ("b".to_string(), "x y".to_string()),
                ("A".to_string(), "2".to_string())
            ]
        );
        assert_eq!(traces.timeout, Duration::from_millis(2500));
        assert_eq!(http.metrics.unwrap().endpoint, "http://m/own");
        let section = Section {
            endpoint: Some("http://c:4318/".into()),
            ..Section::default()
        };
        let config = resolve(&[("OTEL_METRICS_EXPORTER", "none")], &section).unwrap();
        assert_eq!(
            config.traces,
            Some(Export {
                endpoint: "http://c:4318/v1/traces".into(),
                protocol: Protocol::HttpProtobuf,
                plain: true,
                headers: Vec::new(),
                timeout: Duration::from_secs(10),
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

    #[test]
    fn the_resource_names_rein_unless_the_variables_say_otherwise() {
        let plain = resolve(&[], &Section::default()).unwrap().resource;
        assert_eq!(plain[0], ("service.name".into(), "rein".into()));
        assert_eq!(plain[1], ("service.version".into(), "0.1.0".into()));
        let named = resolve(
            &[
                ("OTEL_RESOURCE_ATTRIBUTES", "team=infra,service.name=ci"),
                ("OTEL_SERVICE_NAME", "agent"),
            ],
            &Section::default(),
        )
        .unwrap()
        .resource;
        assert!(named.contains(&("team".into(), "infra".into())));
        assert!(named.contains(&("service.name".into(), "agent".into())));
        assert_eq!(named.iter().filter(|(k, _)| k == "service.name").count(), 1);
    }

    #[test]
    fn the_batch_delay_and_metric_interval_follow_the_standard_variables() {
        let defaults = resolve(&[], &Section::default()).unwrap();
        assert_eq!(defaults.batch_delay, Duration::from_secs(5));
        assert_eq!(defaults.metric_interval, Duration::from_secs(60));
        let set = resolve(
            &[
                ("OTEL_BSP_SCHEDULE_DELAY", "250"),
                ("OTEL_METRIC_EXPORT_INTERVAL", "1500"),
            ],
            &Section::default(),
        )
        .unwrap();
        assert_eq!(set.batch_delay, Duration::from_millis(250));
        assert_eq!(set.metric_interval, Duration::from_millis(1500));
        let nonsense = resolve(&[("OTEL_BSP_SCHEDULE_DELAY", "soon")], &Section::default());
        assert_eq!(nonsense.unwrap().batch_delay, Duration::from_secs(5));
    }

    #[test]
    fn header_values_are_percent_decoded() {
        let settings = resolve(
            &[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"),
                (
                    "OTEL_EXPORTER_OTLP_HEADERS",
                    "authorization=Bearer%20abc,x=%zz",
                ),
            ],
            &Section::default(),
        )
        .unwrap();
        let headers = settings.traces.unwrap().headers;
        assert!(headers.contains(&("authorization".into(), "Bearer abc".into())));
        assert!(headers.contains(&("x".into(), "%zz".into())));
    }
}
