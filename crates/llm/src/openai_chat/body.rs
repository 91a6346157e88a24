//! The body of a Chat Completions request, serialised straight from the [`ModelRequest`] it
//! borrows (no `serde_json::Value` copy of the transcript per request).

use std::fmt;

use rein_protocol::{ContentBlock, ImageSource, Media, Message, Role, ToolSpec};
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;

use super::ChatFields;
use crate::ModelRequest;
use crate::wire::{DataUrl, JsonText};

/// A Chat Completions request body with the optional fields [`ChatFields`] allows.
#[derive(Serialize)]
pub(crate) struct Body<'a> {
    model: &'a str,
    messages: Vec<ChatMessage<'a>>,
    stream: bool,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_cache_key: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<&'static str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    tools: Vec<Tool<'a>>,
}

impl<'a> Body<'a> {
    pub(crate) fn new(request: &'a ModelRequest, fields: ChatFields) -> Self {
        let mut messages = Vec::new();
        if !request.system.is_empty() {
            messages.push(ChatMessage::System(&request.system));
        }
        for message in &request.messages {
            push_message(message, &mut messages);
        }
        Self {
            model: &request.model,
            messages,
            stream: true,
            max_tokens: request.max_tokens,
            stream_options: fields.usage_in_stream.then_some(StreamOptions {
                include_usage: true,
            }),
            prompt_cache_key: request
                .cache
                .key
                .as_deref()
                .filter(|_| fields.prompt_cache_key),
            reasoning_effort: request
                .effort
                .filter(|_| fields.reasoning_effort)
                .map(|effort| effort.name()),
            tools: request.tools.iter().map(Tool).collect(),
        }
    }
}

/// `stream_options`: ask for the usage chunk.
#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

/// A function tool.
struct Tool<'a>(&'a ToolSpec);

impl Serialize for Tool<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Function<'a> {
            name: &'a str,
            description: &'a str,
            parameters: &'a Value,
        }
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("type", "function")?;
        map.serialize_entry(
            "function",
            &Function {
                name: &self.0.name,
                description: &self.0.description,
                parameters: &self.0.input_schema,
            },
        )?;
        map.end()
    }
}

/// A message on the wire.
enum ChatMessage<'a> {
    System(&'a str),
    /// A tool's result, right after the assistant message that called it.
    Tool {
        call_id: &'a str,
        /// Its text, then the text of each PDF it read (this protocol gets no documents).
        content: Joined<'a>,
    },
    User {
        text: Joined<'a>,
        images: Vec<&'a ImageSource>,
    },
    Assistant {
        text: Joined<'a>,
        /// OpenRouter's `reasoning_details`, sent back so it keeps a model's reasoning.
        reasoning_details: Vec<&'a Value>,
        tool_calls: Vec<ToolCall<'a>>,
        /// Reasoning this protocol streamed (sent with tool calls only).
        reasoning: Joined<'a>,
    },
}

/// A tool call of an assistant message.
struct ToolCall<'a> {
    id: &'a str,
    name: &'a str,
    input: &'a Value,
}

/// Texts sent as one string, joined with a separator, written without building it.
struct Joined<'a> {
    parts: Vec<&'a str>,
    separator: &'static str,
}

impl Joined<'_> {
    fn new(separator: &'static str) -> Self {
        Self {
            parts: Vec::new(),
            separator,
        }
    }

    fn is_empty(&self) -> bool {
        self.parts.iter().all(|part| part.is_empty())
    }
}

impl fmt::Display for Joined<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, part) in self.parts.iter().enumerate() {
            if index > 0 {
                f.write_str(self.separator)?;
            }
            f.write_str(part)?;
        }
        Ok(())
    }
}

impl Serialize for Joined<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// The text before the images of tool results, in the user message after the results.
const TOOL_IMAGES: &str = "The images the tool results above returned:";

/// Appends the wire messages for one canonical message: its tool results first, each as a
/// `tool` message, then the message itself when it has anything to say.
fn push_message<'a>(message: &'a Message, out: &mut Vec<ChatMessage<'a>>) {
    let mut text = Joined::new("\n\n");
    let mut images = Vec::new();
    let mut tool_calls = Vec::new();
    let mut reasoning = Joined::new("");
    let mut reasoning_details = Vec::new();
    // A `tool` message holds text only: the images tool results returned follow them in a
    // user message.
    let mut tool_images = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::Provider { protocol, block } if protocol == "openai-chat" => {
                let details = block["reasoning_details"].as_array().into_iter().flatten();
                reasoning_details.extend(details);
            }
            // Reasoning this protocol streamed (unsigned); another provider's signed
            // thinking is not this server's to read.
            ContentBlock::Thinking {
                thinking,
                signature: None,
            } => reasoning.parts.push(thinking),
            ContentBlock::Text { text: part } if !part.is_empty() => text.parts.push(part),
            ContentBlock::Image { source } => images.push(source),
            ContentBlock::ToolUse { id, name, input } => {
                tool_calls.push(ToolCall { id, name, input })
            }
            // Tool results must directly follow the assistant message that made the calls.
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                media,
                ..
            } => {
                let mut joined = Joined::new("\n\n");
                joined.parts.push(content);
                for item in media {
                    match item {
                        Media::Image { source } => tool_images.push(source),
                        Media::Pdf { text, .. } => joined.parts.push(text),
                    }
                }
                out.push(ChatMessage::Tool {
                    call_id: tool_use_id,
                    content: joined,
                });
            }
            ContentBlock::Text { .. }
            | ContentBlock::Thinking { .. }
            | ContentBlock::RedactedThinking { .. }
            | ContentBlock::Provider { .. } => {}
        }
    }
    if !tool_images.is_empty() {
        text.parts.insert(0, TOOL_IMAGES);
        tool_images.append(&mut images);
        images = tool_images;
    }
    match message.role {
        Role::User if images.is_empty() && text.is_empty() => {}
        Role::User => out.push(ChatMessage::User { text, images }),
        Role::Assistant if text.is_empty() && tool_calls.is_empty() => {}
        Role::Assistant => out.push(ChatMessage::Assistant {
            text,
            reasoning_details,
            tool_calls,
            reasoning,
        }),
    }
}

impl Serialize for ChatMessage<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self {
            ChatMessage::System(text) => {
                map.serialize_entry("role", "system")?;
                map.serialize_entry("content", text)?;
            }
            ChatMessage::Tool { call_id, content } => {
                map.serialize_entry("role", "tool")?;
                map.serialize_entry("tool_call_id", call_id)?;
                map.serialize_entry("content", content)?;
            }
            ChatMessage::User { text, images } if images.is_empty() => {
                map.serialize_entry("role", "user")?;
                map.serialize_entry("content", text)?;
            }
            ChatMessage::User { text, images } => {
                map.serialize_entry("role", "user")?;
                map.serialize_entry("content", &UserParts { text, images })?;
            }
            ChatMessage::Assistant {
                text,
                reasoning_details,
                tool_calls,
                reasoning,
            } => {
                map.serialize_entry("role", "assistant")?;
                match text.is_empty() {
                    true => map.serialize_entry("content", &())?,
                    false => map.serialize_entry("content", text)?,
                }
                if !reasoning_details.is_empty() {
                    map.serialize_entry("reasoning_details", reasoning_details)?;
                }
                if !tool_calls.is_empty() {
                    map.serialize_entry("tool_calls", tool_calls)?;
                    // DeepSeek's thinking mode refuses the next request without the
                    // reasoning of a message with tool calls, and GLM asks for it; others
                    // ignore it. Only servers that streamed reasoning have any to send.
                    if !reasoning.is_empty() {
                        map.serialize_entry("reasoning_content", reasoning)?;
                    }
                }
            }
        }
        map.end()
    }
}

/// A user message's parts: its text, then its images.
struct UserParts<'s, 'a> {
    text: &'s Joined<'a>,
    images: &'s [&'a ImageSource],
}

impl Serialize for UserParts<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(None)?;
        if !self.text.is_empty() {
            seq.serialize_element(&TextPart(self.text))?;
        }
        for image in self.images {
            seq.serialize_element(&ImagePart(image))?;
        }
        seq.end()
    }
}

struct TextPart<'s, 'a>(&'s Joined<'a>);

impl Serialize for TextPart<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("type", "text")?;
        map.serialize_entry("text", self.0)?;
        map.end()
    }
}

struct ImagePart<'a>(&'a ImageSource);

impl Serialize for ImagePart<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Url<'a> {
            url: DataUrl<'a>,
        }
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("type", "image_url")?;
        map.serialize_entry(
            "image_url",
            &Url {
                url: DataUrl(self.0),
            },
        )?;
        map.end()
    }
}

impl Serialize for ToolCall<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Function<'a> {
            name: &'a str,
            arguments: JsonText<'a>,
        }
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("id", self.id)?;
        map.serialize_entry("type", "function")?;
        map.serialize_entry(
            "function",
            &Function {
                name: self.name,
                arguments: JsonText(self.input),
            },
        )?;
        map.end()
    }
}
