//! OpenAI Chat Completions and the many servers compatible with it (Ollama, vLLM, llama.cpp,
//! DeepSeek, Qwen, Kimi, OpenRouter): `POST {base}/chat/completions` with `stream: true`.
//!
//! Chat has no place for reasoning in the request, so thinking blocks are not sent back; tool
//! results become `tool` messages placed right after the assistant message that called them.

mod stream;

use std::sync::atomic::{AtomicBool, Ordering};

use rein_protocol::{ContentBlock, Message, Role, ToolSpec};
use reqwest::RequestBuilder;
use serde_json::{Value, json};

use crate::http::{StreamParser, WireProtocol};
use crate::{LlmError, ModelRequest, ProviderKind};

pub(crate) use stream::ChatParser;

/// The Chat Completions protocol. Remembers which optional fields the server refused.
#[derive(Debug, Default)]
pub(crate) struct ChatProtocol {
    omit_stream_options: AtomicBool,
    omit_prompt_cache_key: AtomicBool,
    omit_reasoning_effort: AtomicBool,
}

/// Which optional fields a Chat Completions body carries; a server that refuses one gets the
/// request again without it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ChatFields {
    /// `stream_options: {include_usage: true}`: the usage chunk.
    pub usage_in_stream: bool,
    /// `prompt_cache_key` (OpenAI's cache routing; other servers may not know it).
    pub prompt_cache_key: bool,
    /// `reasoning_effort`, when the request sets an effort.
    pub reasoning_effort: bool,
}

#[cfg(test)]
impl ChatFields {
    /// Every optional field.
    pub(crate) const ALL: Self = Self {
        usage_in_stream: true,
        prompt_cache_key: true,
        reasoning_effort: true,
    };
}

impl WireProtocol for ChatProtocol {
    fn kind(&self) -> ProviderKind {
        ProviderKind::OpenaiChat
    }

    fn endpoint(&self, base_url: &str) -> String {
        format!("{base_url}/chat/completions")
    }

    fn authorize(&self, builder: RequestBuilder, api_key: Option<&str>) -> RequestBuilder {
        crate::http::bearer(builder, api_key)
    }

    fn body(&self, request: &ModelRequest) -> serde_json::Result<Vec<u8>> {
        let fields = ChatFields {
            usage_in_stream: !self.omit_stream_options.load(Ordering::Relaxed),
            prompt_cache_key: !self.omit_prompt_cache_key.load(Ordering::Relaxed),
            reasoning_effort: !self.omit_reasoning_effort.load(Ordering::Relaxed),
        };
        serde_json::to_vec(&request_body(request, fields))
    }

    fn parser(&self) -> Box<dyn StreamParser> {
        Box::new(ChatParser::default())
    }

    /// Servers that do not know an optional field answer 400 (or 422) naming it: resend
    /// without it, and leave it out from now on.
    fn adapt(&self, error: &LlmError) -> bool {
        if !matches!(error.status, Some(400 | 422)) {
            return false;
        }
        let message = error.message.to_lowercase();
        let flag = if message.contains("stream_options") || message.contains("include_usage") {
            &self.omit_stream_options
        } else if message.contains("prompt_cache_key") {
            &self.omit_prompt_cache_key
        } else if message.contains("reasoning_effort") {
            &self.omit_reasoning_effort
        } else {
            return false;
        };
        !flag.swap(true, Ordering::Relaxed)
    }
}

/// The JSON body of a Chat Completions request with the optional `fields`.
pub(crate) fn request_body(request: &ModelRequest, fields: ChatFields) -> Value {
    let mut messages = Vec::new();
    if !request.system.is_empty() {
        messages.push(json!({"role": "system", "content": request.system}));
    }
    for message in &request.messages {
        push_message(message, &mut messages);
    }
    let mut body = json!({
        "model": request.model,
        "messages": messages,
        "stream": true,
        "max_tokens": request.max_tokens,
    });
    if fields.usage_in_stream {
        body["stream_options"] = json!({"include_usage": true});
    }
    if let (true, Some(key)) = (fields.prompt_cache_key, &request.cache.key) {
        body["prompt_cache_key"] = json!(key);
    }
    if let (true, Some(effort)) = (fields.reasoning_effort, request.effort) {
        body["reasoning_effort"] = json!(effort.name());
    }
    if !request.tools.is_empty() {
        body["tools"] = request.tools.iter().map(tool).collect();
    }
    body
}

fn tool(spec: &ToolSpec) -> Value {
    json!({
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.input_schema,
        },
    })
}

/// Appends the wire messages for one canonical message.
fn push_message(message: &Message, out: &mut Vec<Value>) {
    let mut texts: Vec<&str> = Vec::new();
    let mut images: Vec<Value> = Vec::new();
    let mut tool_calls: Vec<Value> = Vec::new();
    let mut reasoning = String::new();
    let mut reasoning_details: Vec<Value> = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::Provider { protocol, block } if protocol == "openai-chat" => {
                let details = block["reasoning_details"].as_array().into_iter().flatten();
                reasoning_details.extend(details.cloned());
            }
            // Reasoning this protocol streamed (unsigned); another provider's signed
            // thinking is not this server's to read.
            ContentBlock::Thinking {
                thinking,
                signature: None,
            } => reasoning.push_str(thinking),
            ContentBlock::Text { text } if !text.is_empty() => texts.push(text),
            ContentBlock::Image { source } => images.push(json!({
                "type": "image_url",
                "image_url": {"url": format!("data:{};base64,{}", source.media_type, source.data)},
            })),
            ContentBlock::ToolUse { id, name, input } => tool_calls.push(json!({
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": input.to_string()},
            })),
            // Tool results must directly follow the assistant message that made the calls.
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                ..
            } => out.push(json!({"role": "tool", "tool_call_id": tool_use_id, "content": content})),
            ContentBlock::Text { .. }
            | ContentBlock::Thinking { .. }
            | ContentBlock::RedactedThinking { .. }
            | ContentBlock::Provider { .. } => {}
        }
    }
    let text = texts.join("\n\n");
    match message.role {
        Role::User if images.is_empty() => {
            if !text.is_empty() {
                out.push(json!({"role": "user", "content": text}));
            }
        }
        Role::User => {
            let mut parts = Vec::new();
            if !text.is_empty() {
                parts.push(json!({"type": "text", "text": text}));
            }
            parts.extend(images);
            out.push(json!({"role": "user", "content": parts}));
        }
        Role::Assistant => {
            if text.is_empty() && tool_calls.is_empty() {
                return;
            }
            let mut wire = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { json!(text) }});
            // OpenRouter keeps a model's reasoning across turns when they come back.
            if !reasoning_details.is_empty() {
                wire["reasoning_details"] = json!(reasoning_details);
            }
            if !tool_calls.is_empty() {
                wire["tool_calls"] = json!(tool_calls);
                // DeepSeek's thinking mode refuses the next request without the reasoning of
                // a message with tool calls, and GLM asks for it; others ignore it. Only
                // servers that streamed reasoning have any to send.
                if !reasoning.is_empty() {
                    wire["reasoning_content"] = json!(reasoning);
                }
            }
            out.push(wire);
        }
    }
}

#[cfg(test)]
#[path = "openai_chat/tests.rs"]
mod tests;
