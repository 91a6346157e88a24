//! The body of a Messages request, serialised straight from the [`ModelRequest`] it borrows:
//! building a `serde_json::Value` first copied every message, tool input and schema of the
//! transcript on every request, and then freed them again.

use rein_protocol::{ContentBlock, Media, Message, Role, ToolSpec};
use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

use super::breakpoints;
use crate::{CacheTtl, ModelRequest};

/// A Messages request body.
#[derive(Serialize)]
pub(crate) struct Body<'a> {
    model: &'a str,
    max_tokens: u32,
    messages: Vec<WireMessage<'a>>,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<Thinking>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<[SystemText<'a>; 1]>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    tools: Vec<WireTool<'a>>,
}

impl<'a> Body<'a> {
    /// The body of `request`, with cache breakpoints on the last tool, the system prompt and
    /// the messages [`breakpoints::mark_messages`] picks.
    pub(crate) fn new(request: &'a ModelRequest) -> Self {
        let ttl = request.cache.ttl;
        let mut messages: Vec<WireMessage<'a>> = request
            .messages
            .iter()
            .filter_map(WireMessage::new)
            .collect();
        breakpoints::mark_messages(&mut messages, ttl);
        let claude = request.model.starts_with("claude");
        let mut tools: Vec<WireTool<'a>> = (request.tools.iter())
            .map(|spec| WireTool::new(spec, claude))
            .collect();
        if let Some(search) = request.web_search.as_ref().filter(|_| claude) {
            tools.push(WireTool::web_search(search));
        }
        if let Some(last) = tools.last_mut() {
            last.cache_control = Some(Marker(ttl));
        }
        Self {
            model: &request.model,
            max_tokens: request.max_tokens,
            messages,
            stream: true,
            thinking: super::thinking_budget(request).map(|budget_tokens| Thinking {
                kind: "enabled",
                budget_tokens,
            }),
            system: (!request.system.is_empty()).then(|| {
                [SystemText {
                    kind: "text",
                    text: &request.system,
                    cache_control: Marker(ttl),
                }]
            }),
            tools,
        }
    }
}

/// `thinking`: extended thinking with a token budget.
#[derive(Serialize)]
struct Thinking {
    #[serde(rename = "type")]
    kind: &'static str,
    budget_tokens: u32,
}

/// The system prompt as one text block, always a breakpoint.
#[derive(Serialize)]
struct SystemText<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
    cache_control: Marker,
}

/// A tool definition: a function rein describes, or a tool the API defines whose shape
/// Claude models are trained on (only the type and name are sent).
#[derive(Serialize)]
struct WireTool<'a> {
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_schema: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_uses: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    allowed_domains: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    blocked_domains: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<Marker>,
}

/// rein's tools that are an Anthropic-defined tool for Claude models: (name, type).
const ANTHROPIC_DEFINED: [(&str, &str); 1] = [("memory", "memory_20250818")];

impl<'a> WireTool<'a> {
    fn new(spec: &'a ToolSpec, claude: bool) -> Self {
        let defined = (ANTHROPIC_DEFINED.iter())
            .find(|(name, _)| claude && *name == spec.name)
            .map(|(_, kind)| *kind);
        Self {
            kind: defined,
            name: &spec.name,
            description: defined.is_none().then_some(spec.description.as_str()),
            input_schema: defined.is_none().then_some(&*spec.input_schema),
            max_uses: None,
            allowed_domains: None,
            blocked_domains: None,
            cache_control: None,
        }
    }

    /// The server's web search tool (Anthropic takes one of the two domain lists).
    fn web_search(search: &'a crate::HostedSearch) -> Self {
        let allowed = !search.allowed_domains.is_empty();
        Self {
            kind: Some("web_search_20250305"),
            name: "web_search",
            description: None,
            input_schema: None,
            max_uses: Some(search.max_uses),
            allowed_domains: allowed.then_some(search.allowed_domains.as_slice()),
            blocked_domains: (!allowed && !search.blocked_domains.is_empty())
                .then_some(search.blocked_domains.as_slice()),
            cache_control: None,
        }
    }
}

/// A `cache_control` breakpoint with its lifetime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Marker(pub(super) CacheTtl);

impl Serialize for Marker {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", "ephemeral")?;
        if self.0 == CacheTtl::OneHour {
            map.serialize_entry("ttl", "1h")?;
        }
        map.end()
    }
}

/// A message on the wire: the blocks of a canonical message that can be sent.
#[derive(Serialize)]
pub(super) struct WireMessage<'a> {
    #[serde(serialize_with = "role_name")]
    pub(super) role: Role,
    pub(super) content: Vec<WireBlock<'a>>,
}

impl<'a> WireMessage<'a> {
    /// `None` when nothing in the message can be sent.
    pub(super) fn new(message: &'a Message) -> Option<Self> {
        let content: Vec<WireBlock<'a>> = message
            .content
            .iter()
            .filter(|block| sendable(block))
            .map(|block| WireBlock {
                block,
                cache_control: None,
            })
            .collect();
        (!content.is_empty()).then_some(Self {
            role: message.role,
            content,
        })
    }
}

fn role_name<S: Serializer>(role: &Role, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(match role {
        Role::User => "user",
        Role::Assistant => "assistant",
    })
}

/// Whether a block goes to Anthropic. Empty text is dropped (the API refuses it), and so is
/// thinking without a signature (it came from another provider and cannot be verified), and
/// other protocols' blocks.
fn sendable(block: &ContentBlock) -> bool {
    match block {
        ContentBlock::Text { text } => !text.is_empty(),
        ContentBlock::Thinking { signature, .. } => signature.is_some(),
        ContentBlock::Provider { protocol, .. } => protocol == "anthropic",
        ContentBlock::RedactedThinking { .. }
        | ContentBlock::ToolUse { .. }
        | ContentBlock::ToolResult { .. }
        | ContentBlock::Image { .. } => true,
    }
}

/// A content block on the wire, a breakpoint when marked.
pub(super) struct WireBlock<'a> {
    pub(super) block: &'a ContentBlock,
    pub(super) cache_control: Option<Marker>,
}

impl WireBlock<'_> {
    /// Whether the block is thinking, which may not carry a breakpoint.
    pub(super) fn is_thinking(&self) -> bool {
        match self.block {
            ContentBlock::Thinking { .. } | ContentBlock::RedactedThinking { .. } => true,
            ContentBlock::Provider { block, .. } => {
                matches!(
                    block["type"].as_str(),
                    Some("thinking" | "redacted_thinking")
                )
            }
            _ => false,
        }
    }
}

impl Serialize for WireBlock<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let ContentBlock::Provider { block, .. } = self.block
            && !block.is_object()
        {
            // Not a block this protocol knows; sent as it came.
            return block.serialize(serializer);
        }
        let mut map = serializer.serialize_map(None)?;
        match self.block {
            ContentBlock::Text { text } => {
                map.serialize_entry("type", "text")?;
                map.serialize_entry("text", text)?;
            }
            ContentBlock::Thinking {
                thinking,
                signature,
            } => {
                map.serialize_entry("type", "thinking")?;
                map.serialize_entry("thinking", thinking)?;
                map.serialize_entry("signature", signature)?;
            }
            ContentBlock::RedactedThinking { data } => {
                map.serialize_entry("type", "redacted_thinking")?;
                map.serialize_entry("data", data)?;
            }
            ContentBlock::ToolUse { id, name, input } => {
                map.serialize_entry("type", "tool_use")?;
                map.serialize_entry("id", id)?;
                map.serialize_entry("name", name)?;
                map.serialize_entry("input", input)?;
            }
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
                media,
            } => {
                map.serialize_entry("type", "tool_result")?;
                map.serialize_entry("tool_use_id", tool_use_id)?;
                if media.is_empty() {
                    map.serialize_entry("content", content)?;
                } else {
                    map.serialize_entry("content", &ResultParts { content, media })?;
                }
                if *is_error {
                    map.serialize_entry("is_error", &true)?;
                }
            }
            ContentBlock::Image { source } => {
                map.serialize_entry("type", "image")?;
                map.serialize_entry("source", &ImageSource(source))?;
            }
            ContentBlock::Provider { block, .. } => {
                let fields = block.as_object().into_iter().flatten();
                for (key, value) in fields.filter(|(key, _)| *key != "cache_control") {
                    map.serialize_entry(key, value)?;
                }
            }
        }
        if let Some(marker) = &self.cache_control {
            map.serialize_entry("cache_control", marker)?;
        }
        map.end()
    }
}

/// A tool result's content with media: its text, then each image or PDF as the block the
/// Messages API reads inside a `tool_result`.
struct ResultParts<'a> {
    content: &'a str,
    media: &'a [Media],
}

impl Serialize for ResultParts<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(1 + self.media.len()))?;
        if !self.content.is_empty() {
            seq.serialize_element(&ResultText {
                kind: "text",
                text: self.content,
            })?;
        }
        for media in self.media {
            seq.serialize_element(&MediaBlock(media))?;
        }
        seq.end()
    }
}

/// A tool result's text as a content block (written from the borrowed text, not a `Value`).
#[derive(Serialize)]
struct ResultText<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

/// One image or PDF of a tool result as a content block.
struct MediaBlock<'a>(&'a Media);

impl Serialize for MediaBlock<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        match self.0 {
            Media::Image { source } => {
                map.serialize_entry("type", "image")?;
                map.serialize_entry("source", &ImageSource(source))?;
            }
            Media::Pdf { source, .. } => {
                map.serialize_entry("type", "document")?;
                map.serialize_entry("source", &ImageSource(source))?;
            }
        }
        map.end()
    }
}

/// An image's `source`: base64 data with its media type.
struct ImageSource<'a>(&'a rein_protocol::ImageSource);

impl Serialize for ImageSource<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("type", "base64")?;
        map.serialize_entry("media_type", &self.0.media_type)?;
        map.serialize_entry("data", &self.0.data)?;
        map.end()
    }
}
