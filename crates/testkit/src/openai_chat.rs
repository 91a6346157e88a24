//! The OpenAI Chat Completions streaming protocol (`POST /v1/chat/completions`), including the
//! `reasoning_content` deltas DeepSeek-style compatible servers send.
//!
//! A stream is `data: {chat.completion.chunk}` lines without event names: a first chunk with the
//! role, then reasoning, content and tool-call deltas, a chunk with the `finish_reason`, a usage
//! chunk with empty `choices` when `stream_options.include_usage` was set, and `data: [DONE]`.

use serde_json::{Value, json};

use crate::sse::SseFrame;
use crate::wire::{Finish, Reply, fragments, words};

/// A fixed creation time keeps the mock's output reproducible.
const CREATED: u64 = 1_700_000_000;

/// The SSE frames answering `reply`.
pub(crate) fn frames(reply: &Reply<'_>) -> Vec<SseFrame> {
    let turn = reply.turn;
    let chunk = |delta: Value, finish: Value| {
        let mut chunk = json!({
            "id": format!("chatcmpl-mock-{}", reply.number),
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": reply.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        });
        if reply.include_usage {
            // With include_usage the real API puts `"usage": null` on every other chunk.
            chunk["usage"] = Value::Null;
        }
        SseFrame::data(&chunk)
    };

    let mut out = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    for w in words(turn.thinking.as_deref().unwrap_or_default()) {
        out.push(chunk(json!({"reasoning_content": w}), Value::Null));
    }
    for w in words(turn.text.as_deref().unwrap_or_default()) {
        out.push(chunk(json!({"content": w}), Value::Null));
    }
    for (index, call) in turn.tool_calls.iter().enumerate() {
        let first = json!({
            "index": index,
            "id": reply.call_id(index, call),
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        });
        out.push(chunk(json!({"tool_calls": [first]}), Value::Null));
        let arguments = call.arguments_text();
        for fragment in fragments(&arguments) {
            let more = json!({"index": index, "function": {"arguments": fragment}});
            out.push(chunk(json!({"tool_calls": [more]}), Value::Null));
        }
    }
    let finish = match reply.finish() {
        Finish::EndTurn => "stop".to_string(),
        Finish::ToolUse => "tool_calls".to_string(),
        Finish::MaxTokens => "length".to_string(),
        Finish::Other(word) => word,
    };
    out.push(chunk(json!({}), json!(finish)));

    if reply.include_usage {
        let u = reply.usage();
        let prompt = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
        out.push(SseFrame::data(&json!({
            "id": format!("chatcmpl-mock-{}", reply.number),
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": reply.model,
            "choices": [],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": u.output_tokens,
                "total_tokens": prompt + u.output_tokens,
                "prompt_tokens_details": {"cached_tokens": u.cache_read_input_tokens},
                "completion_tokens_details": {"reasoning_tokens": u.reasoning_tokens},
            },
        })));
    }
    out.push(SseFrame::done());
    out
}

/// The OpenAI error body (shared by Chat Completions and Responses):
/// `{"error":{"message":..,"type":..,"param":null,"code":..}}`.
pub(crate) fn error_body(status: u16, message: &str) -> Value {
    let (kind, code) = match status {
        401 => ("invalid_request_error", json!("invalid_api_key")),
        404 => ("invalid_request_error", json!("model_not_found")),
        429 => ("requests", json!("rate_limit_exceeded")),
        500..=599 => ("server_error", Value::Null),
        _ => ("invalid_request_error", Value::Null),
    };
    json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
}
