//! Folding a stream of [`ModelEvent`]s into the finished assistant message.

use rein_protocol::{ContentBlock, Message, Role, StopReason, Usage};
use serde_json::Value;

use crate::{LlmError, LlmErrorKind, ModelEvent};

/// A complete model response.
#[derive(Debug, Clone, PartialEq)]
pub struct AssembledResponse {
    /// The assistant message: the completed blocks, in order.
    pub message: Message,
    /// Why the model stopped.
    pub stop_reason: StopReason,
    /// Usage of the request.
    pub usage: Usage,
}

/// Collects [`ModelEvent`]s; deltas are for display, the message is built from
/// [`ModelEvent::BlockComplete`]s.
///
/// ```
/// use rein_llm::{ModelEvent, ResponseAssembler};
/// use rein_protocol::{ContentBlock, StopReason, Usage};
///
/// let mut assembler = ResponseAssembler::new();
/// assembler.push(&ModelEvent::TextDelta("Hi".into()));
/// assembler.push(&ModelEvent::BlockComplete(ContentBlock::Text { text: "Hi".into() }));
/// assembler.push(&ModelEvent::Completed { stop_reason: StopReason::EndTurn, usage: Usage::default() });
/// let response = assembler.finish().unwrap();
/// assert_eq!(response.message.text(), "Hi");
/// ```
#[derive(Debug, Default)]
pub struct ResponseAssembler {
    blocks: Vec<ContentBlock>,
    completed: Option<(StopReason, Usage)>,
}

impl ResponseAssembler {
    /// An empty assembler.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes in one event.
    pub fn push(&mut self, event: &ModelEvent) {
        match event {
            ModelEvent::BlockComplete(block) => self.blocks.push(block.clone()),
            ModelEvent::Completed { stop_reason, usage } => {
                self.completed = Some((stop_reason.clone(), *usage));
            }
            ModelEvent::Retry { .. }
            | ModelEvent::Citation { .. }
            | ModelEvent::TextDelta(_)
            | ModelEvent::ThinkingDelta(_)
            | ModelEvent::ToolCallStart { .. }
            | ModelEvent::ToolCallDelta { .. } => {}
        }
    }

    /// The response, or a protocol error when the stream never completed.
    pub fn finish(self) -> Result<AssembledResponse, LlmError> {
        let Some((stop_reason, usage)) = self.completed else {
            return Err(LlmError::new(
                LlmErrorKind::Protocol,
                "model",
                "the response stream ended before the response completed",
            ));
        };
        Ok(AssembledResponse {
            message: Message {
                role: Role::Assistant,
                content: self.blocks,
            },
            stop_reason,
            usage,
        })
    }
}

/// Parses a tool call's accumulated JSON arguments: empty means `{}`. Invalid JSON (cut off
/// or malformed by the model) is not an error of the stream: the input becomes
/// `{INVALID_ARGUMENTS: "<what is wrong>: <text>"}`, which the engine answers with an error
/// result for the model to fix.
pub(crate) fn parse_tool_input(json: &str) -> Value {
    if json.trim().is_empty() {
        return Value::Object(serde_json::Map::new());
    }
    serde_json::from_str(json).unwrap_or_else(|e| {
        let problem = format!("{e}: {}", crate::error::truncate(json, 200));
        serde_json::json!({ rein_protocol::INVALID_ARGUMENTS: problem })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn message_is_the_completed_blocks_in_order() {
        let mut assembler = ResponseAssembler::new();
        let thinking = ContentBlock::Thinking {
            thinking: "hm".into(),
            signature: Some("s".into()),
        };
        let tool = ContentBlock::ToolUse {
            id: "t".into(),
            name: "bash".into(),
            input: json!({"command": "ls"}),
        };
        let usage = Usage {
            input_tokens: 3,
            output_tokens: 4,
            ..Usage::default()
        };
        for event in [
            ModelEvent::ThinkingDelta("hm".into()),
            ModelEvent::BlockComplete(thinking.clone()),
            ModelEvent::ToolCallStart {
                id: "t".into(),
                name: "bash".into(),
            },
            ModelEvent::BlockComplete(tool.clone()),
            ModelEvent::Completed {
                stop_reason: StopReason::ToolUse,
                usage,
            },
        ] {
            assembler.push(&event);
        }
        assert_eq!(
            assembler.finish().unwrap(),
            AssembledResponse {
                message: Message {
                    role: Role::Assistant,
                    content: vec![thinking, tool],
                },
                stop_reason: StopReason::ToolUse,
                usage,
            }
        );
    }

    #[test]
    fn a_stream_without_completion_is_an_error() {
        let mut assembler = ResponseAssembler::new();
        assembler.push(&ModelEvent::TextDelta("partial".into()));
        assert_eq!(assembler.finish().unwrap_err().kind, LlmErrorKind::Protocol);
    }

    #[test]
    fn tool_arguments_parse_with_empty_as_object_and_invalid_naming_the_tool() {
        assert_eq!(parse_tool_input(""), json!({}));
        assert_eq!(parse_tool_input(r#"{"a":1}"#), json!({"a": 1}));
        let cut = parse_tool_input(r#"{"a":"#);
        let problem = cut[rein_protocol::INVALID_ARGUMENTS].as_str().unwrap();
        assert!(problem.ends_with(r#": {"a":"#), "{problem}");
    }
}
