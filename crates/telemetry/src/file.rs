//! `--trace FILE`: the spans as JSON lines, one per span as it ends, for looking at a session
//! without a collector (`rein trace FILE` prints them as a tree).

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use opentelemetry::trace::Status;
use opentelemetry::{KeyValue, Value};
use opentelemetry_sdk::error::{OTelSdkError, OTelSdkResult};
use opentelemetry_sdk::trace::{SpanData, SpanExporter};
use serde::{Deserialize, Serialize};
use serde_json::Map;

/// One span as a line of the file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpanLine {
    /// The trace (hex).
    pub trace_id: String,
    /// The span (hex).
    pub span_id: String,
    /// Its parent, absent at the root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_span_id: Option<String>,
    /// The span's name (`chat claude-sonnet-4-5`, `execute_tool bash`…).
    pub name: String,
    /// Start, in nanoseconds since the Unix epoch.
    pub start_unix_nano: u64,
    /// End, in nanoseconds since the Unix epoch.
    pub end_unix_nano: u64,
    /// Its attributes.
    pub attributes: Map<String, serde_json::Value>,
    /// Its events (retries, errors).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<SpanEventLine>,
    /// `error` when the span failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

/// An event of a span.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpanEventLine {
    /// Its name.
    pub name: String,
    /// When, in nanoseconds since the Unix epoch.
    pub time_unix_nano: u64,
    /// Its attributes.
    pub attributes: Map<String, serde_json::Value>,
}

impl SpanLine {
    fn of(span: &SpanData) -> Self {
        let parent = span.parent_span_id;
        Self {
            trace_id: span.span_context.trace_id().to_string(),
            span_id: span.span_context.span_id().to_string(),
            parent_span_id: (parent != opentelemetry::trace::SpanId::INVALID)
                .then(|| parent.to_string()),
            name: span.name.to_string(),
            start_unix_nano: nanos(span.start_time),
            end_unix_nano: nanos(span.end_time),
            attributes: attributes(&span.attributes),
            events: span
                .events
                .iter()
                .map(|e| SpanEventLine {
                    name: e.name.to_string(),
                    time_unix_nano: nanos(e.timestamp),
                    attributes: attributes(&e.attributes),
                })
                .collect(),
            status: match &span.status {
                Status::Error { .. } => Some("error".to_string()),
                _ => None,
            },
        }
    }
}

fn nanos(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

fn attributes(list: &[KeyValue]) -> Map<String, serde_json::Value> {
    list.iter()
        .map(|kv| (kv.key.to_string(), json_value(&kv.value)))
        .collect()
}

fn json_value(value: &Value) -> serde_json::Value {
    match value {
        Value::Bool(b) => (*b).into(),
        Value::I64(n) => (*n).into(),
        Value::F64(x) => (*x).into(),
        Value::String(s) => s.as_str().into(),
        Value::Array(opentelemetry::Array::String(items)) => items
            .iter()
            .map(|s| serde_json::Value::from(s.as_str()))
            .collect(),
        Value::Array(opentelemetry::Array::I64(items)) => items.iter().copied().collect(),
        Value::Array(opentelemetry::Array::F64(items)) => items.iter().copied().collect(),
        Value::Array(opentelemetry::Array::Bool(items)) => items.iter().copied().collect(),
        _ => value.to_string().into(),
    }
}

/// Writes each batch of spans to a file, a line per span.
#[derive(Debug)]
pub struct FileExporter {
    file: Mutex<std::fs::File>,
}

impl FileExporter {
    /// Creates (or empties) `path`.
    pub fn create(path: &Path) -> std::io::Result<Self> {
        Ok(Self {
            file: Mutex::new(std::fs::File::create(path)?),
        })
    }
}

impl SpanExporter for FileExporter {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let mut text = String::new();
        for span in &batch {
            let line = serde_json::to_string(&SpanLine::of(span))
                .map_err(|e| OTelSdkError::InternalFailure(e.to_string()))?;
            text.push_str(&line);
            text.push('\n');
        }
        let mut file = self
            .file
            .lock()
            .map_err(|_| OTelSdkError::InternalFailure("the trace file's lock".into()))?;
        file.write_all(text.as_bytes())
            .and_then(|()| file.flush())
            .map_err(|e| OTelSdkError::InternalFailure(e.to_string()))
    }
}
