//! Running the tool calls of one assistant message. Calls run one after another in call order
//! (concurrent batches come with the permissions work); every call gets exactly one result, so
//! the transcript stays valid even when the user cancels half-way.

use std::time::Instant;

use rein_protocol::{ContentBlock, Event};
use rein_tools::{ToolContext, ToolOutput, ToolRegistry};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::EventSender;

/// Result text for a call that never ran because the user cancelled first.
pub(crate) const NOT_RUN: &str =
    "Interrupted: the user cancelled the turn before this tool call ran.";

/// A tool call taken from an assistant message.
pub(crate) struct ToolCall {
    pub id: String,
    pub name: String,
    pub input: Value,
}

/// Runs `calls` in order and returns one `tool_result` block per call, in the same order.
pub(crate) async fn dispatch(
    tools: &ToolRegistry,
    calls: Vec<ToolCall>,
    ctx: &ToolContext,
    events: &EventSender,
    cancel: &CancellationToken,
) -> Vec<ContentBlock> {
    let mut results = Vec::with_capacity(calls.len());
    for call in calls {
        let _ = events.send(Event::ToolCallStart {
            id: call.id.clone(),
            name: call.name.clone(),
            input: call.input.clone(),
        });
        let started = Instant::now();
        let output = if cancel.is_cancelled() {
            ToolOutput::error(NOT_RUN)
        } else {
            // Tools watch `ctx.cancel` themselves and kill what they started.
            tools.call(&call.name, call.input, ctx).await
        };
        let _ = events.send(Event::ToolCallEnd {
            id: call.id.clone(),
            name: call.name,
            output: output.text.clone(),
            is_error: output.is_error,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        });
        results.push(ContentBlock::ToolResult {
            tool_use_id: call.id,
            content: output.text,
            is_error: output.is_error,
        });
    }
    results
}

/// Results for calls issued by a reply that was cut off by cancellation.
pub(crate) fn interrupted(calls: Vec<ToolCall>) -> Vec<ContentBlock> {
    calls
        .into_iter()
        .map(|call| ContentBlock::ToolResult {
            tool_use_id: call.id,
            content: NOT_RUN.to_string(),
            is_error: true,
        })
        .collect()
}
