//! OpenAI Responses: `POST {base}/responses` with `stream: true` and `store: false`.
//!
//! The transcript becomes a list of input items: messages, `function_call`s,
//! `function_call_output`s, and `reasoning` items carrying the encrypted reasoning content that
//! came back as a thinking block's signature (stateless reasoning, as `store` is off).

mod stream;

use rein_protocol::{ContentBlock, Message, Role, ToolSpec};
use reqwest::RequestBuilder;
use serde_json::{Value, json};

use crate::http::{StreamParser, WireProtocol};
use crate::{ModelRequest, ProviderKind};

pub(crate) use stream::ResponsesParser;

/// The OpenAI Responses protocol.
pub(crate) struct ResponsesProtocol;

impl WireProtocol for ResponsesProtocol {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Openai
    }

    fn endpoint(&self, base_url: &str) -> String {
        format!("{base_url}/responses")
    }

    fn authorize(&self, builder: RequestBuilder, api_key: Option<&str>) -> RequestBuilder {
        crate::http::bearer(builder, api_key)
    }

    fn body(&self, request: &ModelRequest) -> serde_json::Result<Vec<u8>> {
        serde_json::to_vec(&request_body(request))
    }

    fn parser(&self) -> Box<dyn StreamParser> {
        Box::new(ResponsesParser::default())
    }
}

/// The JSON body of a Responses request.
pub(crate) fn request_body(request: &ModelRequest) -> Value {
    let mut body = json!({
        "model": request.model,
        "input": input_items(&request.messages),
        "stream": true,
        "store": false,
        "include": ["reasoning.encrypted_content"],
        "max_output_tokens": request.max_tokens,
    });
    if let Some(key) = &request.cache.key {
        // Caching is automatic by prefix; the key routes a session to the cache holding it.
        body["prompt_cache_key"] = json!(key);
    }
    if let Some(effort) = request.effort {
        body["reasoning"] = json!({"effort": effort.name(), "summary": "auto"});
    }
    if !request.system.is_empty() {
        body["instructions"] = json!(request.system);
    }
    if !request.tools.is_empty() {
        body["tools"] = request.tools.iter().map(tool).collect();
    }
    body
}

fn tool(spec: &ToolSpec) -> Value {
    json!({
        "type": "function",
        "name": spec.name,
        "description": spec.description,
        "parameters": spec.input_schema,
        "strict": false,
    })
}

/// The transcript as input items, in order. Consecutive text and image blocks of a message
/// form one message item; tool calls, tool results and reasoning are items of their own.
pub(crate) fn input_items(messages: &[Message]) -> Vec<Value> {
    let mut items = Vec::new();
    for message in messages {
        let (role, text_type) = match message.role {
            Role::User => ("user", "input_text"),
            Role::Assistant => ("assistant", "output_text"),
        };
        let mut parts: Vec<Value> = Vec::new();
        let flush = |parts: &mut Vec<Value>, items: &mut Vec<Value>| {
            if !parts.is_empty() {
                let content = std::mem::take(parts);
                items.push(json!({"type": "message", "role": role, "content": content}));
            }
        };
        for block in &message.content {
            match block {
                ContentBlock::Text { text } if text.is_empty() => {}
                ContentBlock::Text { text } => parts.push(json!({"type": text_type, "text": text})),
                ContentBlock::Image { source } if message.role == Role::User => {
                    parts.push(json!({
                        "type": "input_image",
                        "image_url": format!("data:{};base64,{}", source.media_type, source.data),
                    }));
                }
                // The phase of the message item just before (`commentary`, `final_answer`),
                // which OpenAI asks clients to send back.
                ContentBlock::Provider { protocol, block } if protocol == "openai" => {
                    flush(&mut parts, &mut items);
                    if let (Some(phase), Some(last)) = (block["phase"].as_str(), items.last_mut())
                        && last["type"] == "message"
                    {
                        last["phase"] = json!(phase);
                    }
                }
                other => {
                    if let Some(item) = own_item(other) {
                        flush(&mut parts, &mut items);
                        items.push(item);
                    }
                }
            }
        }
        flush(&mut parts, &mut items);
    }
    items
}

/// The item of its own a block makes: a tool call, a tool result, reasoning with OpenAI's
/// encrypted content; `None` for a block that is part of a message item or has no place in
/// this protocol.
fn own_item(block: &ContentBlock) -> Option<Value> {
    match block {
        ContentBlock::ToolUse { id, name, input } => Some(json!({
            "type": "function_call",
            "call_id": id,
            "name": name,
            "arguments": input.to_string(),
        })),
        ContentBlock::ToolResult {
            tool_use_id,
            content,
            ..
        } => Some(json!({
            "type": "function_call_output",
            "call_id": tool_use_id,
            "output": content,
        })),
        ContentBlock::Thinking {
            thinking,
            signature: Some(signature),
        } => {
            let summary: Vec<Value> = if thinking.is_empty() {
                Vec::new()
            } else {
                vec![json!({"type": "summary_text", "text": thinking})]
            };
            Some(json!({
                "type": "reasoning",
                "summary": summary,
                "encrypted_content": signature,
            }))
        }
        // Text and user images go into message items; reasoning without OpenAI's encrypted
        // content, Anthropic's redacted thinking, other protocols' blocks and assistant
        // images have no place in this protocol.
        ContentBlock::Text { .. }
        | ContentBlock::Image { .. }
        | ContentBlock::Thinking { .. }
        | ContentBlock::RedactedThinking { .. }
        | ContentBlock::Provider { .. } => None,
    }
}

#[cfg(test)]
#[path = "openai_responses/tests.rs"]
mod tests;
