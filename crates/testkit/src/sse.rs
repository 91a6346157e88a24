//! Server-sent-event frames as the three protocols put them on the wire.

use serde_json::Value;

/// One SSE frame: an optional `event:` line and one `data:` line, ended by a blank line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseFrame {
    event: Option<String>,
    data: String,
}

impl SseFrame {
    /// A frame with an event name (`event: NAME\ndata: JSON\n\n`), as Anthropic and the
    /// OpenAI Responses API send them.
    pub(crate) fn named(event: &str, data: &Value) -> Self {
        Self {
            event: Some(event.to_string()),
            data: data.to_string(),
        }
    }

    /// A frame with only a data line (`data: JSON\n\n`), as Chat Completions sends them.
    pub(crate) fn data(data: &Value) -> Self {
        Self {
            event: None,
            data: data.to_string(),
        }
    }

    /// The Chat Completions end-of-stream marker, `data: [DONE]`.
    pub(crate) fn done() -> Self {
        Self {
            event: None,
            data: "[DONE]".to_string(),
        }
    }

    /// The `data:` payload.
    pub(crate) fn payload(&self) -> &str {
        &self.data
    }

    /// The frame's bytes. Serialized JSON never contains a raw newline, so one `data:` line
    /// always suffices.
    pub(crate) fn encode(&self) -> String {
        match &self.event {
            Some(event) => format!("event: {event}\ndata: {}\n\n", self.data),
            None => format!("data: {}\n\n", self.data),
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    #[test]
    fn named_frame_has_event_and_data_lines_and_blank_line() {
        let frame = SseFrame::named("ping", &json!({"type": "ping"}));
        assert_eq!(frame.encode(), "event: ping\ndata: {\"type\":\"ping\"}\n\n");
    }

    #[test]
    fn data_frame_has_no_event_line() {
        assert_eq!(
            SseFrame::data(&json!({"a": 1})).encode(),
            "data: {\"a\":1}\n\n"
        );
        assert_eq!(SseFrame::done().encode(), "data: [DONE]\n\n");
    }

    #[test]
    fn newlines_inside_json_strings_stay_escaped() {
        let frame = SseFrame::data(&json!({"text": "a\nb"}));
        assert_eq!(frame.encode(), "data: {\"text\":\"a\\nb\"}\n\n");
    }
}
