//! The Anthropic Messages streaming protocol (`POST /v1/messages`).
//!
//! A stream is `message_start`, a `ping`, then one `content_block_start` /
//! `content_block_delta`* / `content_block_stop` group per block (thinking, text, tool_use),
//! then `message_delta` with the stop reason and output tokens, then `message_stop`.

use serde_json::{Value, json};

use crate::sse::SseFrame;
use crate::wire::{Finish, Reply, fragments, words};

/// The SSE frames answering `reply`.
pub(crate) fn frames(reply: &Reply<'_>) -> Vec<SseFrame> {
    let turn = reply.turn;
    let usage = reply.usage();
    let mut out = vec![event(json!({
        "type": "message_start",
        "message": {
            "id": format!("msg_mock_{}", reply.number),
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": reply.model,
            "stop_reason": null,
            "stop_sequence": null,
            "usage": {
                "input_tokens": usage.input_tokens,
                "cache_creation_input_tokens": usage.cache_creation_input_tokens,
                "cache_read_input_tokens": usage.cache_read_input_tokens,
                "output_tokens": 1,
            },
        },
    }))];
    out.push(event(json!({"type": "ping"})));

    let mut index = 0;
    if reply.has_reasoning() {
        let mut deltas: Vec<Value> = words(turn.thinking.as_deref().unwrap_or_default())
            .into_iter()
            .map(|w| json!({"type": "thinking_delta", "thinking": w}))
            .collect();
        let signature = turn
            .signature
            .clone()
            .unwrap_or_else(|| format!("sig_mock_{}", reply.number));
        deltas.push(json!({"type": "signature_delta", "signature": signature}));
        block(
            &mut out,
            index,
            json!({"type": "thinking", "thinking": ""}),
            deltas,
        );
        index += 1;
    }
    if let Some(text) = &turn.text {
        let deltas = words(text)
            .into_iter()
            .map(|w| json!({"type": "text_delta", "text": w}))
            .collect();
        block(&mut out, index, json!({"type": "text", "text": ""}), deltas);
        index += 1;
    }
    for (n, call) in turn.tool_calls.iter().enumerate() {
        let arguments = call.arguments_text();
        // The real API opens every tool_use block with an empty fragment.
        let deltas = std::iter::once("")
            .chain(fragments(&arguments))
            .map(|f| json!({"type": "input_json_delta", "partial_json": f}))
            .collect();
        let start = json!({
            "type": "tool_use",
            "id": reply.call_id(n, call),
            "name": call.name,
            "input": {},
        });
        block(&mut out, index, start, deltas);
        index += 1;
    }

    out.push(event(json!({
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason(&reply.finish()), "stop_sequence": null},
        "usage": {"output_tokens": usage.output_tokens},
    })));
    out.push(event(json!({"type": "message_stop"})));
    out
}

/// Anthropic's error body: `{"type":"error","error":{"type":..,"message":..},"request_id":..}`.
pub(crate) fn error_body(status: u16, message: &str, request_id: &str) -> Value {
    json!({
        "type": "error",
        "error": {"type": error_type(status), "message": message},
        "request_id": request_id,
    })
}

/// The documented error type for an HTTP status.
fn error_type(status: u16) -> &'static str {
    match status {
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        529 => "overloaded_error",
        500..=599 => "api_error",
        _ => "invalid_request_error",
    }
}

fn stop_reason(finish: &Finish) -> &str {
    match finish {
        Finish::EndTurn => "end_turn",
        Finish::ToolUse => "tool_use",
        Finish::MaxTokens => "max_tokens",
        Finish::Other(word) => word,
    }
}

fn block(out: &mut Vec<SseFrame>, index: usize, start: Value, deltas: Vec<Value>) {
    out.push(event(json!({
        "type": "content_block_start",
        "index": index,
        "content_block": start,
    })));
    for delta in deltas {
        out.push(event(json!({
            "type": "content_block_delta",
            "index": index,
            "delta": delta,
        })));
    }
    out.push(event(json!({"type": "content_block_stop", "index": index})));
}

/// Every Anthropic frame is named after its data's `type`.
fn event(data: Value) -> SseFrame {
    let name = data["type"].as_str().unwrap_or("unknown").to_string();
    SseFrame::named(&name, &data)
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn error_types_follow_the_documented_status_table() {
        let cases = [
            (400, "invalid_request_error"),
            (401, "authentication_error"),
            (403, "permission_error"),
            (404, "not_found_error"),
            (413, "request_too_large"),
            (429, "rate_limit_error"),
            (500, "api_error"),
            (503, "api_error"),
            (529, "overloaded_error"),
        ];
        for (status, expected) in cases {
            assert_eq!(error_type(status), expected, "{status}");
        }
    }
}
