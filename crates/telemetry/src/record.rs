//! Spans as rein records them: ids, times, attributes and events, built by the span tree
//! from the session's events and handed, as each ends, to the export queue and the trace file.
//! The types mirror what OTLP carries ([`crate::export`] turns them into its protobuf
//! messages), so nothing is built that is not sent.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// An attribute's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Text.
    Str(String),
    /// A whole number (OTLP's are signed).
    Int(i64),
    /// A real number.
    Float(f64),
    /// A flag.
    Bool(bool),
    /// A list of texts (finish reasons).
    Strs(Vec<String>),
}

impl Value {
    /// The text of a text value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::Str(s) => Some(s),
            _ => None,
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Self::Str(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Self::Str(s)
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Self {
        Self::Int(n)
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Self {
        Self::Float(x)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Self::Bool(b)
    }
}

impl From<Vec<String>> for Value {
    fn from(items: Vec<String>) -> Self {
        Self::Strs(items)
    }
}

/// A named attribute.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyValue {
    /// Its name (`gen_ai.request.model`).
    pub key: Cow<'static, str>,
    /// Its value.
    pub value: Value,
}

impl KeyValue {
    /// `key` = `value`.
    pub fn new(key: impl Into<Cow<'static, str>>, value: impl Into<Value>) -> Self {
        Self {
            key: key.into(),
            value: value.into(),
        }
    }
}

/// Something that happened during a span (a retry, an error).
#[derive(Debug, Clone, PartialEq)]
pub struct SpanEvent {
    /// Its name.
    pub name: String,
    /// When.
    pub at: SystemTime,
    /// Its attributes.
    pub attributes: Vec<KeyValue>,
}

/// One span.
#[derive(Debug, Clone, PartialEq)]
pub struct SpanRecord {
    /// The trace it belongs to.
    pub trace_id: [u8; 16],
    /// Its id.
    pub span_id: [u8; 8],
    /// Its parent's id, none at a trace's root.
    pub parent_span_id: Option<[u8; 8]>,
    /// Its name (`chat claude-sonnet-4-5`, `execute_tool bash`).
    pub name: String,
    /// A call to another service (a model request) rather than work inside rein.
    pub client: bool,
    /// Its start.
    pub start: SystemTime,
    /// Its end (its start while it is open).
    pub end: SystemTime,
    /// Its attributes, each key once.
    pub attributes: Vec<KeyValue>,
    /// Its events.
    pub events: Vec<SpanEvent>,
    /// Why it failed, when it did.
    pub error: Option<String>,
}

impl SpanRecord {
    fn set(&mut self, attribute: KeyValue) {
        match self.attributes.iter_mut().find(|a| a.key == attribute.key) {
            Some(existing) => existing.value = attribute.value,
            None => self.attributes.push(attribute),
        }
    }
}

/// How a span ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// It failed, for this reason.
    Error(String),
}

impl Status {
    /// A failure.
    pub fn error(why: impl Into<String>) -> Self {
        Self::Error(why.into())
    }
}

/// An open span (or none: the parent of a trace's root), shared by the tree's bookkeeping.
#[derive(Debug, Clone, Default)]
pub struct Context(Option<Arc<Mutex<SpanRecord>>>);

impl Context {
    /// No span: what a trace's root starts under.
    pub fn new() -> Self {
        Self(None)
    }

    /// A new open span under this one (a new trace when this is none).
    pub(crate) fn child(&self, name: String, attributes: Vec<KeyValue>, at: SystemTime) -> Self {
        let ids = uuid::Uuid::new_v4().into_bytes();
        let parent = self.with(|p| (p.trace_id, p.span_id));
        let trace_id = parent.map_or_else(|| uuid::Uuid::new_v4().into_bytes(), |(t, _)| t);
        let mut span_id = [0u8; 8];
        span_id.copy_from_slice(&ids[..8]);
        let client = attributes.iter().any(|kv| kv.value.as_str() == Some("LLM"));
        Self(Some(Arc::new(Mutex::new(SpanRecord {
            trace_id,
            span_id,
            parent_span_id: parent.map(|(_, s)| s),
            name,
            client,
            start: at,
            end: at,
            attributes,
            events: Vec::new(),
            error: None,
        }))))
    }

    /// The span itself (what the SDK's API called it; kept so the tree reads the same).
    pub fn span(&self) -> &Self {
        self
    }

    fn with<T>(&self, f: impl FnOnce(&mut SpanRecord) -> T) -> Option<T> {
        let span = self.0.as_ref()?;
        let mut record = span.lock().unwrap_or_else(|p| p.into_inner());
        Some(f(&mut record))
    }

    /// Sets attributes (a key set again takes the new value).
    pub fn set_attributes(&self, attributes: impl IntoIterator<Item = KeyValue>) {
        self.with(|span| {
            for attribute in attributes {
                span.set(attribute);
            }
        });
    }

    /// Sets one attribute.
    pub fn set_attribute(&self, attribute: KeyValue) {
        self.set_attributes([attribute]);
    }

    /// Adds an event.
    pub fn add_event_with_timestamp(
        &self,
        name: impl Into<String>,
        at: SystemTime,
        attributes: Vec<KeyValue>,
    ) {
        let name = name.into();
        self.with(|span| {
            span.events.push(SpanEvent {
                name,
                at,
                attributes,
            })
        });
    }

    /// Marks it failed.
    pub fn set_status(&self, status: Status) {
        let Status::Error(why) = status;
        self.with(|span| span.error = Some(why));
    }

    /// Ends it at `at`; the finished span, for the export (none for no span). What it
    /// carried moves out; its ids stay for what still refers to it.
    pub(crate) fn end_at(&self, at: SystemTime) -> Option<SpanRecord> {
        self.with(|span| {
            span.end = at.max(span.start);
            SpanRecord {
                name: std::mem::take(&mut span.name),
                attributes: std::mem::take(&mut span.attributes),
                events: std::mem::take(&mut span.events),
                error: span.error.take(),
                ..*span
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_share_the_trace_and_name_their_parent() {
        let at = SystemTime::now();
        let root = Context::new().child("root".into(), vec![], at);
        let child = root.child("chat".into(), vec![KeyValue::new("kind", "LLM")], at);
        child.set_attribute(KeyValue::new("n", 1_i64));
        child.set_attribute(KeyValue::new("n", 2_i64));
        child.set_status(Status::error("failed"));
        let root = root.end_at(at).unwrap();
        let child = child.end_at(at).unwrap();
        assert_eq!(root.parent_span_id, None);
        assert_eq!(child.trace_id, root.trace_id);
        assert_eq!(child.parent_span_id, Some(root.span_id));
        assert_ne!(child.span_id, root.span_id);
        assert!(child.client && !root.client);
        assert_eq!(child.attributes[1], KeyValue::new("n", 2_i64));
        assert_eq!(child.error.as_deref(), Some("failed"));
        assert!(Context::new().end_at(at).is_none());
    }
}
