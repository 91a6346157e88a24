//! A turn answered as one JSON document in the protocol's non-streamed shape, as servers that
//! ignore `stream: true` do (scenario `"whole": true`).

use serde_json::{Value, json};

use crate::wire::{Finish, Reply, Wire};

/// The non-streamed answer to `reply` in `wire`'s protocol.
pub(crate) fn reply(wire: Wire, reply: &Reply<'_>) -> Value {
    match wire {
        Wire::Anthropic => anthropic(reply),
        Wire::Chat => chat(reply),
        Wire::Responses => responses(reply),
    }
}

/// A Messages API `message` object.
fn anthropic(reply: &Reply<'_>) -> Value {
    let turn = reply.turn;
    let mut content = Vec::new();
    if reply.has_reasoning() {
        content.push(json!({
            "type": "thinking",
            "thinking": turn.thinking.clone().unwrap_or_default(),
            "signature": turn.signature.clone().unwrap_or_else(|| format!("sig_mock_{}", reply.number)),
        }));
    }
    if let Some(text) = &turn.text {
        content.push(json!({"type": "text", "text": text}));
    }
    for (n, call) in turn.tool_calls.iter().enumerate() {
        content.push(json!({
            "type": "tool_use",
            "id": reply.call_id(n, call),
            "name": call.name,
            "input": call.arguments,
        }));
    }
    let usage = reply.usage();
    let stop = match reply.finish() {
        Finish::EndTurn => "end_turn".to_string(),
        Finish::ToolUse => "tool_use".to_string(),
        Finish::MaxTokens => "max_tokens".to_string(),
        Finish::Other(word) => word,
    };
    json!({
        "id": format!("msg_mock_{}", reply.number),
        "type": "message",
        "role": "assistant",
        "model": reply.model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": null,
        "usage": {
            "input_tokens": usage.input_tokens,
            "cache_creation_input_tokens": usage.cache_creation_input_tokens,
            "cache_read_input_tokens": usage.cache_read_input_tokens,
            "output_tokens": usage.output_tokens,
        },
    })
}

/// A `chat.completion` object.
fn chat(reply: &Reply<'_>) -> Value {
    let turn = reply.turn;
    let mut message = json!({"role": "assistant", "content": turn.text});
    if let Some(thinking) = &turn.thinking {
        message["reasoning_content"] = json!(thinking);
    }
    if !turn.tool_calls.is_empty() {
        let calls: Vec<Value> = turn
            .tool_calls
            .iter()
            .enumerate()
            .map(|(n, call)| {
                json!({
                    "id": reply.call_id(n, call),
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments_text()},
                })
            })
            .collect();
        message["tool_calls"] = json!(calls);
    }
    let finish = match reply.finish() {
        Finish::EndTurn => "stop".to_string(),
        Finish::ToolUse => "tool_calls".to_string(),
        Finish::MaxTokens => "length".to_string(),
        Finish::Other(word) => word,
    };
    let u = reply.usage();
    let prompt = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
    json!({
        "id": format!("chatcmpl-mock-{}", reply.number),
        "object": "chat.completion",
        "created": 1_700_000_000u64,
        "model": reply.model,
        "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": u.output_tokens,
            "total_tokens": prompt + u.output_tokens,
            "prompt_tokens_details": {"cached_tokens": u.cache_read_input_tokens},
        },
    })
}

/// A `response` object: what the stream's `response.completed` event carries.
fn responses(reply: &Reply<'_>) -> Value {
    let frames = Wire::Responses.frames(reply);
    frames
        .iter()
        .rev()
        .find_map(|frame| {
            let data: Value = serde_json::from_str(frame.payload()).ok()?;
            (data["type"] == "response.completed" || data["type"] == "response.incomplete")
                .then(|| data["response"].clone())
        })
        .unwrap_or(Value::Null)
}
