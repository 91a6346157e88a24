//! `--trace FILE`: the spans as JSON lines, one per span as it ends, for looking at a session
//! without a collector (`rein trace FILE` prints them as a tree).

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use serde_json::Map;

use crate::record::{KeyValue, SpanRecord, Value};
use crate::wire::nanos;

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
    pub(crate) fn of(span: &SpanRecord) -> Self {
        Self {
            trace_id: hex(&span.trace_id),
            span_id: hex(&span.span_id),
            parent_span_id: span.parent_span_id.as_ref().map(|p| hex(p)),
            name: span.name.clone(),
            start_unix_nano: nanos(span.start),
            end_unix_nano: nanos(span.end),
            attributes: attributes(&span.attributes),
            events: span
                .events
                .iter()
                .map(|e| SpanEventLine {
                    name: e.name.clone(),
                    time_unix_nano: nanos(e.at),
                    attributes: attributes(&e.attributes),
                })
                .collect(),
            status: span.error.as_ref().map(|_| "error".to_string()),
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn attributes(list: &[KeyValue]) -> Map<String, serde_json::Value> {
    list.iter()
        .map(|kv| (kv.key.to_string(), json_value(&kv.value)))
        .collect()
}

fn json_value(value: &Value) -> serde_json::Value {
    match value {
        Value::Bool(b) => (*b).into(),
        Value::Int(n) => (*n).into(),
        Value::Float(x) => (*x).into(),
        Value::Str(s) => s.as_str().into(),
        Value::Strs(items) => items
            .iter()
            .map(|s| serde_json::Value::from(s.as_str()))
            .collect(),
    }
}

/// `--trace FILE`: each span written as a line as it ends.
#[derive(Debug)]
pub(crate) struct TraceFile {
    file: Mutex<std::fs::File>,
}

impl TraceFile {
    /// Creates (or empties) `path`.
    pub fn create(path: &Path) -> std::io::Result<Self> {
        Ok(Self {
            file: Mutex::new(std::fs::File::create(path)?),
        })
    }

    /// Appends `span` (a write that fails loses the line, not the session).
    pub fn write(&self, span: &SpanRecord) {
        let Ok(mut line) = serde_json::to_string(&SpanLine::of(span)) else {
            return;
        };
        line.push('\n');
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        let _ = file.write_all(line.as_bytes()).and_then(|()| file.flush());
    }
}
