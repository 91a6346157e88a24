//! Anthropic Messages: `POST {base}/v1/messages` with `stream: true`.
//!
//! The canonical transcript is modelled on this protocol, so translation is nearly one to one:
//! thinking blocks travel back with their signatures, tool results sit in user messages.

mod breakpoints;
mod stream;

use rein_protocol::{ContentBlock, Message, Role, ToolSpec};
use reqwest::RequestBuilder;
use serde_json::{Value, json};

use crate::http::{StreamParser, WireProtocol};
use crate::{ModelRequest, ProviderKind};

pub(crate) use stream::AnthropicParser;

/// The `anthropic-version` header value.
const API_VERSION: &str = "2023-06-01";

/// The Anthropic Messages protocol.
pub(crate) struct AnthropicProtocol;

impl WireProtocol for AnthropicProtocol {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Anthropic
    }

    fn endpoint(&self, base_url: &str) -> String {
        format!("{base_url}/v1/messages")
    }

    fn authorize(&self, builder: RequestBuilder, api_key: Option<&str>) -> RequestBuilder {
        let builder = builder.header("anthropic-version", API_VERSION);
        match api_key {
            Some(key) => builder.header("x-api-key", key),
            None => builder,
        }
    }

    fn body(&self, request: &ModelRequest) -> serde_json::Result<Vec<u8>> {
        serde_json::to_vec(&request_body(request))
    }

    /// Thinking between tool calls (interleaved) is a beta the request must name.
    fn request_headers(&self, request: &ModelRequest) -> Vec<(&'static str, &'static str)> {
        if thinking_budget(request).is_some() && !request.tools.is_empty() {
            vec![("anthropic-beta", crate::effort::INTERLEAVED_THINKING_BETA)]
        } else {
            Vec::new()
        }
    }

    fn parser(&self) -> Box<dyn StreamParser> {
        Box::new(AnthropicParser::default())
    }
}

/// The JSON body of a Messages request, with cache breakpoints on the last tool, the system
/// prompt and the moving end of the conversation (see [`breakpoints`]).
pub(crate) fn request_body(request: &ModelRequest) -> Value {
    let ttl = request.cache.ttl;
    let mut messages: Vec<Value> = request.messages.iter().filter_map(message).collect();
    breakpoints::mark_messages(&mut messages, ttl);
    let mut body = json!({
        "model": request.model,
        "max_tokens": request.max_tokens,
        "messages": messages,
        "stream": true,
    });
    if let Some(budget) = thinking_budget(request) {
        body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
    }
    if !request.system.is_empty() {
        body["system"] = json!([{
            "type": "text",
            "text": request.system,
            "cache_control": breakpoints::marker(ttl),
        }]);
    }
    if !request.tools.is_empty() {
        let mut tools: Vec<Value> = request.tools.iter().map(tool).collect();
        breakpoints::mark_tools(&mut tools, ttl);
        body["tools"] = json!(tools);
    }
    body
}

/// The thinking budget the request's effort asks for, if it asks to think.
fn thinking_budget(request: &ModelRequest) -> Option<u32> {
    request.effort?.anthropic_budget(request.max_tokens)
}

fn tool(spec: &ToolSpec) -> Value {
    json!({
        "name": spec.name,
        "description": spec.description,
        "input_schema": spec.input_schema,
    })
}

/// A message on the wire; `None` when nothing in it can be sent.
fn message(message: &Message) -> Option<Value> {
    let content: Vec<Value> = message.content.iter().filter_map(block).collect();
    if content.is_empty() {
        return None;
    }
    let role = match message.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    Some(json!({"role": role, "content": content}))
}

/// A content block on the wire. Empty text is dropped (the API refuses it), and so is
/// thinking without a signature (it came from another provider and cannot be verified).
fn block(block: &ContentBlock) -> Option<Value> {
    Some(match block {
        ContentBlock::Text { text } if text.is_empty() => return None,
        ContentBlock::Text { text } => json!({"type": "text", "text": text}),
        ContentBlock::Thinking {
            thinking,
            signature: Some(signature),
        } => json!({"type": "thinking", "thinking": thinking, "signature": signature}),
        ContentBlock::Thinking {
            signature: None, ..
        } => return None,
        ContentBlock::RedactedThinking { data } => {
            json!({"type": "redacted_thinking", "data": data})
        }
        ContentBlock::ToolUse { id, name, input } => {
            json!({"type": "tool_use", "id": id, "name": name, "input": input})
        }
        ContentBlock::ToolResult {
            tool_use_id,
            content,
            is_error,
        } => {
            let mut result =
                json!({"type": "tool_result", "tool_use_id": tool_use_id, "content": content});
            if *is_error {
                result["is_error"] = json!(true);
            }
            result
        }
        ContentBlock::Image { source } => json!({
            "type": "image",
            "source": {"type": "base64", "media_type": source.media_type, "data": source.data},
        }),
        ContentBlock::Provider { protocol, block } if protocol == "anthropic" => block.clone(),
        ContentBlock::Provider { .. } => return None,
    })
}

#[cfg(test)]
#[path = "anthropic/tests.rs"]
mod tests;
