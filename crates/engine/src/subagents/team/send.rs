//! `send_message {to, message, summary?, type?, request_id?, approve?}`: Claude Code's
//! `SendMessage` (`to`, `summary`, `message`) with the team protocols' fields.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use async_trait::async_trait;
use rein_protocol::ToolSpec;
use rein_tools::{CallFacts, CallKind, Effect, Tool, ToolContext, ToolOutput, WorkspaceGuard};
use serde_json::{Value, json};

use super::{LEAD, Letter, LetterKind, SEND_TOOL, Team};

/// The `send_message` tool of one agent of the team.
pub(crate) struct SendMessageTool(pub(crate) Arc<Team>);

#[async_trait]
impl Tool for SendMessageTool {
    fn lean(&self) -> rein_tools::Lean {
        rein_tools::Lean::LeftOut
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: SEND_TOOL.into(),
            description: "Sends a message to another agent of your team: a teammate by name, or \
                          \"main\" (the lead). Your plain text is not seen by other agents; this \
                          is how you talk. It reaches them at their next step. type \
                          shutdown_request asks a teammate to finish and stop; answer one with \
                          shutdown_response (approve); answer a plan_approval_request with \
                          plan_approval_response (approve, feedback in message)."
                .into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "to": {"type": "string", "description": "Teammate name, or \"main\""},
                    "message": {"type": "string", "description": "The message"},
                    "summary": {"type": "string", "description": "5-10 word preview"},
                    "type": {"type": "string", "enum": ["message", "shutdown_request",
                        "shutdown_response", "plan_approval_response"]},
                    "request_id": {"type": "string", "description": "The request answered"},
                    "approve": {"type": "boolean"}
                },
                "required": ["to", "message"],
                "additionalProperties": false
            })
            .into(),
        }
    }

    fn effect(&self, _args: &Value) -> Effect {
        Effect::ReadOnly
    }

    fn facts(&self, args: &Value, _guard: &WorkspaceGuard) -> CallFacts {
        let mut facts = CallFacts::new(SEND_TOOL, "SendMessage", CallKind::Other, Effect::ReadOnly);
        let text = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or("");
        let preview = match text("summary") {
            "" => text("message").lines().next().unwrap_or(""),
            summary => summary,
        };
        facts.summary = format!(
            "→ {}: {}",
            text("to"),
            preview.chars().take(80).collect::<String>()
        );
        // Letters from one sender arrive in the order they were written.
        facts.serial = true;
        facts
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> ToolOutput {
        let text = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or("").trim();
        let (to, message) = (text("to"), text("message"));
        let from = ctx.agent_name.to_string();
        if to.is_empty() || message.is_empty() {
            return ToolOutput::error("say whom the message is `to` and what the `message` is");
        }
        if to == from {
            return ToolOutput::error(format!(
                "you are `{from}`: send the message to someone else"
            ));
        }
        let kind = match text("type") {
            "" | "message" => LetterKind::Message,
            "shutdown_request" => LetterKind::ShutdownRequest,
            "shutdown_response" => LetterKind::ShutdownResponse,
            "plan_approval_response" => LetterKind::PlanApprovalResponse,
            other => {
                return ToolOutput::error(format!(
                    "`{other}` is not a message type this tool sends"
                ));
            }
        };
        let approve = args.get("approve").and_then(Value::as_bool);
        let given_id = Some(text("request_id").to_string()).filter(|id| !id.is_empty());
        let team = &self.0;
        if kind == LetterKind::PlanApprovalResponse {
            return answer_plan(team, to, message, given_id, approve);
        }
        if kind == LetterKind::ShutdownResponse
            && let Some(status) = team.status_of(&from)
        {
            match approve.unwrap_or(true) {
                true => status.leaving.store(true, Ordering::SeqCst),
                false => status.shutdown_asked.store(false, Ordering::SeqCst),
            }
        }
        let request_id = match kind {
            LetterKind::ShutdownRequest => {
                Some(given_id.unwrap_or_else(|| team.request_id("shutdown")))
            }
            _ => given_id,
        };
        let letter = Letter {
            from,
            kind,
            text: message.to_string(),
            request_id: request_id.clone(),
            approve: (kind == LetterKind::ShutdownResponse).then(|| approve.unwrap_or(true)),
        };
        if let Err(error) = team.send(to, letter) {
            return ToolOutput::error(error.to_string());
        }
        ToolOutput::ok(match (kind, request_id) {
            (LetterKind::ShutdownRequest, Some(id)) => format!(
                "Shutdown request {id} sent to {to}; it finishes its current step, answers and stops."
            ),
            (LetterKind::ShutdownResponse, _) if approve != Some(false) => {
                "Shutdown agreed: you stop once this step ends.".to_string()
            }
            _ if to == LEAD => "Message sent to main.".to_string(),
            _ => format!("Message sent to {to}."),
        })
    }
}

/// The lead's answer to a plan: handed to the teammate waiting on it.
fn answer_plan(
    team: &Team,
    to: &str,
    message: &str,
    request_id: Option<String>,
    approve: Option<bool>,
) -> ToolOutput {
    let Some(id) = request_id else {
        return ToolOutput::error("a plan_approval_response needs the request_id it answers");
    };
    let answer = super::PlanAnswer {
        approve: approve.unwrap_or(false),
        feedback: message.to_string(),
    };
    let verdict = match answer.approve {
        true => "approved",
        false => "sent back with your feedback",
    };
    match team.answer_plan(&id, answer) {
        Ok(()) => ToolOutput::ok(format!("Plan {id} of {to} {verdict}.")),
        Err(error) => ToolOutput::error(error.to_string()),
    }
}
