//! The `compact` tool (off unless configured): the model asks for its own transcript to be
//! summarised, with an optional focus, once the current batch of calls is done.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rein_protocol::ToolSpec;
use rein_tools::{CallFacts, CallKind, Effect, Tool, ToolContext, ToolOutput, WorkspaceGuard};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::EventSender;
use crate::emitter::Emitter;
use crate::lifecycle::CompactTrigger;

/// The tool's name.
pub(super) const COMPACT_TOOL: &str = "compact";

/// A compaction the model asked for: `Some(focus)` until the loop carries it out.
pub(super) type CompactRequest = Arc<Mutex<Option<Option<String>>>>;

/// The `compact` tool.
pub(super) struct CompactTool(pub(super) CompactRequest);

#[async_trait]
impl Tool for CompactTool {
    /// A small window is compacted automatically; the definition is not worth its room.
    fn lean(&self) -> rein_tools::Lean {
        rein_tools::Lean::LeftOut
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: COMPACT_TOOL.into(),
            description: "Summarises this conversation to free context once the current tool \
                          calls are done: older messages are replaced by a summary that keeps \
                          the task, decisions, files and next steps. Use it between phases of \
                          a long task, not in the middle of one."
                .into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "focus": {
                        "type": "string",
                        "description": "What the summary should keep above all"
                    }
                },
                "additionalProperties": false
            })
            .into(),
        }
    }

    fn effect(&self, _args: &Value) -> Effect {
        Effect::ReadOnly
    }

    fn facts(&self, args: &Value, _guard: &WorkspaceGuard) -> CallFacts {
        let mut facts = CallFacts::new(COMPACT_TOOL, "Compact", CallKind::Other, Effect::ReadOnly);
        facts.summary = focus(args).unwrap_or_default();
        facts
    }

    async fn call(&self, args: Value, _ctx: &ToolContext) -> ToolOutput {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(focus(&args));
        ToolOutput::ok(
            "The conversation will be compacted once this turn's tool calls are done; carry on \
             from the summary.",
        )
    }
}

fn focus(args: &Value) -> Option<String> {
    args.get("focus")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .map(str::to_string)
}

impl super::Agent {
    /// Carries out a compaction the model asked for with the `compact` tool, if it did.
    pub(super) async fn compact_if_asked(
        &mut self,
        events: &EventSender,
        cancel: &CancellationToken,
    ) {
        let Some(asked) = &self.toolset.compact_asked else {
            return;
        };
        let Some(focus) = asked.lock().unwrap_or_else(|p| p.into_inner()).take() else {
            return;
        };
        if let Err(message) = self
            .compact(CompactTrigger::Model, focus.as_deref(), events, cancel)
            .await
        {
            events.error(format!(
                "the compaction the model asked for failed: {message}"
            ));
        }
    }
}
