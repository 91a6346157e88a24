//! A complete JSON reply to a streamed request: some servers and gateways ignore `stream: true`
//! and answer `200 application/json` with the protocol's non-streamed message. It is turned
//! into the SSE events the protocol's stream would have carried, and read by the same parser,
//! so there is one reading of each protocol's content.

use serde_json::{Value, json};

use crate::http::StreamParser;
use crate::sse::SseEvent;
use crate::{LlmError, LlmErrorKind, ModelEvent, ProviderKind};

/// Reads `bytes`, a whole JSON answer of protocol `kind`, through `parser`: the events the
/// stream would have produced, or the error the answer carries or its shape causes.
pub(crate) fn parse(
    kind: ProviderKind,
    parser: &mut dyn StreamParser,
    bytes: &[u8],
) -> Result<Vec<ModelEvent>, LlmError> {
    let provider = kind.name();
    let protocol_error = |message: String| LlmError::new(LlmErrorKind::Protocol, provider, message);
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        protocol_error(format!(
            "the server answered application/json instead of an event stream, and it is not \
             valid JSON ({e}): {}",
            crate::error::truncate(&String::from_utf8_lossy(bytes), 200)
        ))
    })?;
    if value.get("error").is_some_and(|e| !e.is_null()) {
        let (code, message) = crate::error::provider_message(&value.to_string());
        let message = message.unwrap_or_else(|| "an error without a message".to_string());
        return Err(LlmError::from_stream(
            provider,
            code.as_deref().unwrap_or(""),
            &message,
        ));
    }
    let events = events(kind, &value).map_err(|why| {
        protocol_error(format!(
            "the server answered with a whole JSON message instead of an event stream, and it \
             is not a {provider} message: {why}"
        ))
    })?;
    let mut out = Vec::new();
    for event in events {
        parser.on_event(event, &mut out)?;
    }
    Ok(out)
}

/// Why a whole JSON reply is not a message of the protocol expected: what it lacks.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct NotAMessage(&'static str);

/// The stream events equivalent to `reply`, a non-streamed answer of protocol `kind`.
pub(crate) fn events(kind: ProviderKind, reply: &Value) -> Result<Vec<SseEvent>, NotAMessage> {
    let events = match kind {
        ProviderKind::Anthropic => anthropic(reply)?,
        ProviderKind::OpenaiChat => chat(reply)?,
        ProviderKind::Openai => responses(reply)?,
    };
    Ok(events.into_iter().map(event).collect())
}

fn event(data: Value) -> SseEvent {
    if data.is_null() {
        return SseEvent {
            event: None,
            data: "[DONE]".to_string(),
        };
    }
    SseEvent {
        event: data["type"].as_str().map(str::to_string),
        data: data.to_string(),
    }
}

/// A Messages API message: its content blocks as start, delta and stop events.
fn anthropic(message: &Value) -> Result<Vec<Value>, NotAMessage> {
    let blocks = message["content"]
        .as_array()
        .ok_or(NotAMessage("a message without a `content` list"))?;
    let mut start = message.clone();
    start["content"] = json!([]);
    let mut out = vec![json!({"type": "message_start", "message": start})];
    for (index, block) in blocks.iter().enumerate() {
        let (opening, delta) = match block["type"].as_str().unwrap_or("") {
            "text" => (
                json!({"type": "text", "text": ""}),
                vec![json!({"type": "text_delta", "text": block["text"]})],
            ),
            "thinking" => {
                let mut deltas =
                    vec![json!({"type": "thinking_delta", "thinking": block["thinking"]})];
                if let Some(signature) = block["signature"].as_str() {
                    deltas.push(json!({"type": "signature_delta", "signature": signature}));
                }
                (json!({"type": "thinking", "thinking": ""}), deltas)
            }
            "tool_use" => {
                let mut opening = block.clone();
                opening["input"] = json!({});
                let arguments = block["input"].to_string();
                (
                    opening,
                    vec![json!({"type": "input_json_delta", "partial_json": arguments})],
                )
            }
            // Redacted thinking, server tools and their results come whole in the start.
            _ => (block.clone(), Vec::new()),
        };
        out.push(json!({"type": "content_block_start", "index": index, "content_block": opening}));
        for delta in delta {
            out.push(json!({"type": "content_block_delta", "index": index, "delta": delta}));
        }
        out.push(json!({"type": "content_block_stop", "index": index}));
    }
    out.push(json!({
        "type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"], "stop_sequence": message["stop_sequence"]},
        "usage": message["usage"],
    }));
    out.push(json!({"type": "message_stop"}));
    Ok(out)
}

/// A Chat Completions answer: its message as the delta of one chunk, then `[DONE]`.
fn chat(reply: &Value) -> Result<Vec<Value>, NotAMessage> {
    let choice = reply["choices"]
        .get(0)
        .ok_or(NotAMessage("a chat completion without `choices`"))?;
    let mut delta = choice["message"].clone();
    if !delta.is_object() {
        return Err(NotAMessage("a chat completion choice without a `message`"));
    }
    if let Some(calls) = delta["tool_calls"].as_array_mut() {
        for (index, call) in calls.iter_mut().enumerate() {
            call["index"] = json!(index);
        }
    }
    let chunk = json!({
        "id": reply["id"],
        "model": reply["model"],
        "choices": [{"index": 0, "delta": delta, "finish_reason": choice["finish_reason"]}],
        "usage": reply["usage"],
    });
    // `[DONE]` is not JSON: the caller's event for it is built by hand.
    Ok(vec![chunk, Value::Null])
}

/// A Responses API response: each output item added and done, then the response completed.
fn responses(response: &Value) -> Result<Vec<Value>, NotAMessage> {
    let items = response["output"]
        .as_array()
        .ok_or(NotAMessage("a response without an `output` list"))?;
    let mut out = Vec::new();
    for (index, item) in items.iter().enumerate() {
        out.push(
            json!({"type": "response.output_item.added", "output_index": index, "item": item}),
        );
        // The text as one delta, so front ends show it as they show streamed text.
        let parts = item["content"].as_array().into_iter().flatten();
        let summaries = item["summary"].as_array().into_iter().flatten();
        for part in parts.filter(|p| p["type"] == "output_text") {
            out.push(json!({"type": "response.output_text.delta", "output_index": index, "delta": part["text"]}));
        }
        for part in summaries.filter(|p| p["type"] == "summary_text") {
            out.push(json!({"type": "response.reasoning_summary_text.delta", "output_index": index, "delta": part["text"]}));
        }
        out.push(json!({"type": "response.output_item.done", "output_index": index, "item": item}));
    }
    let status = response["status"].as_str().unwrap_or("completed");
    let kind = if status == "incomplete" {
        "response.incomplete"
    } else {
        "response.completed"
    };
    out.push(json!({"type": kind, "response": response}));
    Ok(out)
}
