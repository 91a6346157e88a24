//! The OpenAI Responses streaming protocol (`POST /v1/responses`).
//!
//! A stream is `response.created`, `response.in_progress`, then per output item
//! `response.output_item.added`, its part/delta/done events and `response.output_item.done`,
//! then `response.completed` (or `response.incomplete` when the token limit was hit) carrying
//! all items and the usage. Every event has `type` and an increasing `sequence_number`.

use serde_json::{Value, json};

use crate::sse::SseFrame;
use crate::wire::{Finish, Reply, fragments, words};

/// A fixed creation time keeps the mock's output reproducible.
const CREATED_AT: u64 = 1_700_000_000;

/// The SSE frames answering `reply`.
pub(crate) fn frames(reply: &Reply<'_>) -> Vec<SseFrame> {
    let mut s = Stream {
        frames: Vec::new(),
        done_items: Vec::new(),
    };
    let turn = reply.turn;
    s.emit(
        "response.created",
        json!({"response": response(reply, "in_progress", &[], Value::Null)}),
    );
    s.emit(
        "response.in_progress",
        json!({"response": response(reply, "in_progress", &[], Value::Null)}),
    );

    if reply.has_reasoning() {
        reasoning_item(&mut s, reply, turn.thinking.as_deref());
    }
    if let Some(text) = &turn.text {
        message_item(&mut s, reply, text);
    }
    for (n, call) in turn.tool_calls.iter().enumerate() {
        let index = s.done_items.len();
        let item_id = format!("fc_mock_{}_{}", reply.number, n + 1);
        let arguments = call.arguments_text();
        let item = |status: &str, arguments: &str| {
            json!({
                "id": item_id,
                "type": "function_call",
                "status": status,
                "arguments": arguments,
                "call_id": reply.call_id(n, call),
                "name": call.name,
            })
        };
        s.emit(
            "response.output_item.added",
            json!({"output_index": index, "item": item("in_progress", "")}),
        );
        for fragment in fragments(&arguments) {
            s.emit(
                "response.function_call_arguments.delta",
                json!({"item_id": item_id, "output_index": index, "delta": fragment}),
            );
        }
        s.emit(
            "response.function_call_arguments.done",
            json!({"item_id": item_id, "output_index": index, "name": call.name, "arguments": arguments}),
        );
        s.item_done(index, item("completed", &arguments));
    }

    let usage = usage(reply);
    let (event, status) = match reply.finish() {
        Finish::MaxTokens => ("response.incomplete", "incomplete"),
        Finish::EndTurn | Finish::ToolUse | Finish::Other(_) => ("response.completed", "completed"),
    };
    let mut final_response = response(reply, status, &s.done_items, usage);
    if status == "incomplete" {
        final_response["incomplete_details"] = json!({"reason": "max_output_tokens"});
    }
    s.emit(event, json!({"response": final_response}));
    s.frames
}

/// Accumulates frames with their sequence numbers and the finished output items.
struct Stream {
    frames: Vec<SseFrame>,
    done_items: Vec<Value>,
}

impl Stream {
    fn emit(&mut self, kind: &str, mut data: Value) {
        data["type"] = json!(kind);
        data["sequence_number"] = json!(self.frames.len());
        self.frames.push(SseFrame::named(kind, &data));
    }

    fn item_done(&mut self, index: usize, item: Value) {
        self.emit(
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
        );
        self.done_items.push(item);
    }
}

fn reasoning_item(s: &mut Stream, reply: &Reply<'_>, thinking: Option<&str>) {
    let index = s.done_items.len();
    let item_id = format!("rs_mock_{}", reply.number);
    let item = |summary: Value| {
        json!({
            "id": item_id,
            "type": "reasoning",
            "summary": summary,
            "encrypted_content": reply.turn.signature,
        })
    };
    s.emit(
        "response.output_item.added",
        json!({"output_index": index, "item": item(json!([]))}),
    );
    let Some(text) = thinking else {
        s.item_done(index, item(json!([])));
        return;
    };
    let at = json!({"item_id": item_id, "output_index": index, "summary_index": 0});
    let with = |extra: Value| merge(&at, extra);
    let part = |text: &str| json!({"type": "summary_text", "text": text});
    s.emit(
        "response.reasoning_summary_part.added",
        with(json!({"part": part("")})),
    );
    for w in words(text) {
        s.emit(
            "response.reasoning_summary_text.delta",
            with(json!({"delta": w})),
        );
    }
    s.emit(
        "response.reasoning_summary_text.done",
        with(json!({"text": text})),
    );
    s.emit(
        "response.reasoning_summary_part.done",
        with(json!({"part": part(text)})),
    );
    s.item_done(index, item(json!([part(text)])));
}

fn message_item(s: &mut Stream, reply: &Reply<'_>, text: &str) {
    let index = s.done_items.len();
    let item_id = format!("msg_mock_{}", reply.number);
    let item = |status: &str, content: Value| {
        json!({
            "id": item_id,
            "type": "message",
            "status": status,
            "role": "assistant",
            "content": content,
        })
    };
    let part = |text: &str| json!({"type": "output_text", "text": text, "annotations": []});
    let at = json!({"item_id": item_id, "output_index": index, "content_index": 0});
    let with = |extra: Value| merge(&at, extra);
    s.emit(
        "response.output_item.added",
        json!({"output_index": index, "item": item("in_progress", json!([]))}),
    );
    s.emit(
        "response.content_part.added",
        with(json!({"part": part("")})),
    );
    for w in words(text) {
        s.emit(
            "response.output_text.delta",
            with(json!({"delta": w, "logprobs": []})),
        );
    }
    s.emit(
        "response.output_text.done",
        with(json!({"text": text, "logprobs": []})),
    );
    s.emit(
        "response.content_part.done",
        with(json!({"part": part(text)})),
    );
    s.item_done(index, item("completed", json!([part(text)])));
}

/// The `response` object carried by the lifecycle events.
fn response(reply: &Reply<'_>, status: &str, output: &[Value], usage: Value) -> Value {
    json!({
        "id": format!("resp_mock_{}", reply.number),
        "object": "response",
        "created_at": CREATED_AT,
        "status": status,
        "error": null,
        "incomplete_details": null,
        "model": reply.model,
        "output": output,
        "parallel_tool_calls": true,
        "previous_response_id": null,
        "usage": usage,
    })
}

/// Responses usage: `input_tokens` includes cached tokens, which are also reported apart.
fn usage(reply: &Reply<'_>) -> Value {
    let u = reply.usage();
    let input = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
    json!({
        "input_tokens": input,
        "input_tokens_details": {"cached_tokens": u.cache_read_input_tokens},
        "output_tokens": u.output_tokens,
        "output_tokens_details": {"reasoning_tokens": u.reasoning_tokens},
        "total_tokens": input + u.output_tokens,
    })
}

fn merge(base: &Value, extra: Value) -> Value {
    let mut out = base.clone();
    if let (Some(out), Value::Object(extra)) = (out.as_object_mut(), extra) {
        out.extend(extra);
    }
    out
}
