//! The canonical transcript: messages made of content blocks. Providers translate to and from
//! their wire formats; nothing above `rein-llm` knows a wire format.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who wrote a message. Tool results travel in `User` messages, as in the Anthropic model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The user, or the harness on the user's behalf (tool results).
    User,
    /// The model.
    Assistant,
}

/// One message of the transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Author of the message.
    pub role: Role,
    /// Content blocks, in order.
    pub content: Vec<ContentBlock>,
}

/// An image carried inline as base64.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageSource {
    /// MIME type, e.g. `image/png`.
    pub media_type: String,
    /// Base64-encoded bytes.
    pub data: String,
}

/// Something a tool result shows the model besides its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Media {
    /// A picture (PNG, JPEG, GIF or WebP), already fitted to what the APIs accept.
    Image {
        /// The image bytes.
        source: ImageSource,
    },
    /// A PDF: Anthropic reads the document itself; the other protocols get `text`, the
    /// text extracted from its pages.
    Pdf {
        /// The document's bytes (`application/pdf`).
        source: ImageSource,
        /// The pages' text, for a protocol that cannot read the document.
        text: String,
    },
}

/// One block of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// The model's visible reasoning. `signature` is the provider's opaque proof (Anthropic's
    /// signature, OpenAI's encrypted reasoning content) and is sent back unchanged.
    Thinking {
        /// Reasoning text (may be a summary).
        thinking: String,
        /// Opaque provider data that must be returned verbatim.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    /// Reasoning the provider redacted; only the opaque data is kept, to be sent back.
    RedactedThinking {
        /// Opaque provider data.
        data: String,
    },
    /// A tool call made by the model.
    ToolUse {
        /// Provider-assigned call id; the matching result carries it.
        id: String,
        /// Tool name.
        name: String,
        /// Arguments as JSON.
        input: Value,
    },
    /// The result of a tool call.
    ToolResult {
        /// Id of the `ToolUse` this answers.
        tool_use_id: String,
        /// Result text shown to the model.
        content: String,
        /// Whether the call failed.
        #[serde(default)]
        is_error: bool,
        /// What the result shows besides its text (an image read, a PDF), in order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        media: Vec<Media>,
    },
    /// An inline image.
    Image {
        /// The image bytes.
        source: ImageSource,
    },
    /// A block only one wire protocol understands, kept as the provider sent it and sent back
    /// verbatim to that protocol (never to another): an Anthropic server-tool call or its
    /// result (`server_tool_use`, `web_search_tool_result`, `mcp_tool_use`…), or the `phase`
    /// of the OpenAI Responses message item before it. Display and compaction skip it.
    Provider {
        /// The protocol it came from (`anthropic`, `openai`).
        protocol: String,
        /// The block as sent.
        block: Value,
    },
}

impl Message {
    /// A user message with one text block.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: vec![ContentBlock::Text { text: text.into() }],
        }
    }

    /// An assistant message with one text block.
    pub fn assistant_text(text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: vec![ContentBlock::Text { text: text.into() }],
        }
    }

    /// The concatenated text blocks of this message.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("")
    }

    /// The tool calls in this message, in order: `(id, name, input)`.
    pub fn tool_uses(&self) -> impl Iterator<Item = (&str, &str, &Value)> {
        self.content.iter().filter_map(|b| match b {
            ContentBlock::ToolUse { id, name, input } => Some((id.as_str(), name.as_str(), input)),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn blocks_serialize_with_snake_case_type_tags() {
        let msg = Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Thinking {
                    thinking: "hmm".into(),
                    signature: Some("sig".into()),
                },
                ContentBlock::ToolUse {
                    id: "t1".into(),
                    name: "bash".into(),
                    input: json!({"command": "ls"}),
                },
            ],
        };
        let value = serde_json::to_value(&msg).unwrap();
        assert_eq!(
            value,
            json!({"role": "assistant", "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                {"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "ls"}},
            ]})
        );
        let back: Message = serde_json::from_value(value).unwrap();
        assert_eq!(back, msg);
    }

    #[test]
    fn text_and_tool_uses_read_the_right_blocks() {
        let msg = Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Text { text: "a".into() },
                ContentBlock::ToolUse {
                    id: "1".into(),
                    name: "x".into(),
                    input: json!({}),
                },
                ContentBlock::Text { text: "b".into() },
            ],
        };
        assert_eq!(msg.text(), "ab");
        assert_eq!(msg.tool_uses().map(|t| t.1).collect::<Vec<_>>(), vec!["x"]);
    }
}
