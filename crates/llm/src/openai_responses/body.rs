//! The body of a Responses request, serialised straight from the [`ModelRequest`] it borrows
//! (no `serde_json::Value` copy of the transcript per request).

use rein_protocol::{ContentBlock, ImageSource, Media, Message, Role, ToolSpec};
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;

use crate::ModelRequest;
use crate::wire::{DataUrl, JsonText};

/// A Responses request body.
#[derive(Serialize)]
pub(crate) struct Body<'a> {
    model: &'a str,
    input: Vec<Item<'a>>,
    stream: bool,
    store: bool,
    include: [&'static str; 1],
    max_output_tokens: u32,
    /// Caching is automatic by prefix; the key routes a session to the cache holding it.
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_cache_key: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning: Option<Reasoning>,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    tools: Vec<Tool<'a>>,
}

/// The Responses API's own web search tool.
#[derive(Serialize)]
struct WebSearch<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    filters: Option<Filters<'a>>,
}

/// Its domain filter.
#[derive(Serialize)]
struct Filters<'a> {
    allowed_domains: &'a [String],
}

impl<'a> Body<'a> {
    pub(crate) fn new(request: &'a ModelRequest) -> Self {
        Self {
            model: &request.model,
            input: input_items(&request.messages),
            stream: true,
            store: false,
            include: ["reasoning.encrypted_content"],
            max_output_tokens: request.max_tokens,
            prompt_cache_key: request.cache.key.as_deref(),
            reasoning: request.effort.map(|effort| Reasoning {
                effort: effort.name(),
                summary: "auto",
            }),
            instructions: (!request.system.is_empty()).then_some(request.system.as_str()),
            tools: request
                .tools
                .iter()
                .map(Tool::new)
                .chain(request.web_search.as_ref().map(Tool::web_search))
                .collect(),
        }
    }
}

/// `reasoning`: the effort, and summaries of the reasoning streamed back.
#[derive(Serialize)]
struct Reasoning {
    effort: &'static str,
    summary: &'static str,
}

/// A tool: a function, or the API's web search.
#[derive(Serialize)]
#[serde(untagged)]
enum Tool<'a> {
    Function(Function<'a>),
    WebSearch(WebSearch<'a>),
}

/// A function tool.
#[derive(Serialize)]
struct Function<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
    strict: bool,
}

impl<'a> Tool<'a> {
    fn new(spec: &'a ToolSpec) -> Self {
        Self::Function(Function {
            kind: "function",
            name: &spec.name,
            description: &spec.description,
            parameters: &spec.input_schema,
            strict: false,
        })
    }

    fn web_search(search: &'a crate::HostedSearch) -> Self {
        Self::WebSearch(WebSearch {
            kind: "web_search",
            filters: (!search.allowed_domains.is_empty()).then_some(Filters {
                allowed_domains: &search.allowed_domains,
            }),
        })
    }
}

/// An input item: a message of text and image parts (with the phase OpenAI gave it), or a
/// block that is an item of its own (a tool call, a tool result, reasoning).
pub(crate) enum Item<'a> {
    Message {
        role: Role,
        parts: Vec<Part<'a>>,
        phase: Option<&'a str>,
    },
    Own(&'a ContentBlock),
}

/// A part of a message item.
pub(crate) enum Part<'a> {
    Text { kind: &'static str, text: &'a str },
    Image(&'a ImageSource),
}

/// The transcript as input items, in order. Consecutive text and image blocks of a message
/// form one message item; tool calls, tool results and reasoning are items of their own.
pub(crate) fn input_items<'a>(messages: &'a [Message]) -> Vec<Item<'a>> {
    let mut items = Vec::new();
    for message in messages {
        let text_type = match message.role {
            Role::User => "input_text",
            Role::Assistant => "output_text",
        };
        let mut parts: Vec<Part<'a>> = Vec::new();
        let flush = |parts: &mut Vec<Part<'a>>, items: &mut Vec<Item<'a>>| {
            if !parts.is_empty() {
                items.push(Item::Message {
                    role: message.role,
                    parts: std::mem::take(parts),
                    phase: None,
                });
            }
        };
        for block in &message.content {
            match block {
                ContentBlock::Text { text } if text.is_empty() => {}
                ContentBlock::Text { text } => parts.push(Part::Text {
                    kind: text_type,
                    text,
                }),
                ContentBlock::Image { source } if message.role == Role::User => {
                    parts.push(Part::Image(source));
                }
                // The phase of the message item just before (`commentary`, `final_answer`),
                // which OpenAI asks clients to send back.
                ContentBlock::Provider { protocol, block } if protocol == "openai" => {
                    flush(&mut parts, &mut items);
                    if let (Some(phase), Some(Item::Message { phase: slot, .. })) =
                        (block["phase"].as_str(), items.last_mut())
                    {
                        *slot = Some(phase);
                    }
                }
                other if has_own_item(other) => {
                    flush(&mut parts, &mut items);
                    items.push(Item::Own(other));
                }
                _ => {}
            }
        }
        flush(&mut parts, &mut items);
    }
    items
}

/// Whether a block makes an item of its own: a tool call, a tool result, reasoning with
/// OpenAI's encrypted content. Text and user images go into message items; reasoning
/// without OpenAI's encrypted content, Anthropic's redacted thinking, other protocols'
/// blocks and assistant images have no place in this protocol.
fn has_own_item(block: &ContentBlock) -> bool {
    match block {
        ContentBlock::ToolUse { .. } | ContentBlock::ToolResult { .. } => true,
        ContentBlock::Thinking { signature, .. } => signature.is_some(),
        ContentBlock::Text { .. }
        | ContentBlock::Image { .. }
        | ContentBlock::RedactedThinking { .. }
        | ContentBlock::Provider { .. } => false,
    }
}

impl Serialize for Item<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self {
            Item::Message { role, parts, phase } => {
                map.serialize_entry("type", "message")?;
                let role = match role {
                    Role::User => "user",
                    Role::Assistant => "assistant",
                };
                map.serialize_entry("role", role)?;
                map.serialize_entry("content", parts)?;
                if let Some(phase) = phase {
                    map.serialize_entry("phase", phase)?;
                }
            }
            Item::Own(ContentBlock::ToolUse { id, name, input }) => {
                map.serialize_entry("type", "function_call")?;
                map.serialize_entry("call_id", id)?;
                map.serialize_entry("name", name)?;
                map.serialize_entry("arguments", &JsonText(input))?;
            }
            Item::Own(ContentBlock::ToolResult {
                tool_use_id,
                content,
                media,
                ..
            }) => {
                map.serialize_entry("type", "function_call_output")?;
                map.serialize_entry("call_id", tool_use_id)?;
                if media.is_empty() {
                    map.serialize_entry("output", content)?;
                } else {
                    map.serialize_entry("output", &output_parts(content, media))?;
                }
            }
            Item::Own(ContentBlock::Thinking {
                thinking,
                signature,
            }) => {
                map.serialize_entry("type", "reasoning")?;
                let summary: &[SummaryText<'_>] = if thinking.is_empty() {
                    &[]
                } else {
                    &[SummaryText(thinking)]
                };
                map.serialize_entry("summary", summary)?;
                map.serialize_entry("encrypted_content", signature)?;
            }
            // `has_own_item` keeps other blocks out of `Own`.
            Item::Own(_) => {}
        }
        map.end()
    }
}

/// A tool result with media as the output's content parts: its text (with each PDF's text
/// after it: this protocol gets the pages' text, not the document), then its images.
fn output_parts<'a>(content: &'a str, media: &'a [Media]) -> Vec<Part<'a>> {
    let mut parts = Vec::with_capacity(1 + media.len());
    if !content.is_empty() {
        parts.push(Part::Text {
            kind: "input_text",
            text: content,
        });
    }
    for item in media {
        parts.push(match item {
            Media::Image { source } => Part::Image(source),
            Media::Pdf { text, .. } => Part::Text {
                kind: "input_text",
                text,
            },
        });
    }
    parts
}

/// A reasoning summary's text.
struct SummaryText<'a>(&'a str);

impl Serialize for SummaryText<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("type", "summary_text")?;
        map.serialize_entry("text", self.0)?;
        map.end()
    }
}

impl Serialize for Part<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        match self {
            Part::Text { kind, text } => {
                map.serialize_entry("type", kind)?;
                map.serialize_entry("text", text)?;
            }
            Part::Image(source) => {
                map.serialize_entry("type", "input_image")?;
                map.serialize_entry("image_url", &DataUrl(source))?;
            }
        }
        map.end()
    }
}
