//! Approvals asked through the MCP client (`elicitation/create`): what the call would do, and
//! a choice of allow once, allow calls like it for the session, or deny with a note. A client
//! that declines, cancels or fails to answer denies the call.

use async_trait::async_trait;
use rein_engine::{Approval, ApprovalRequest, Approver};
use rmcp::RoleServer;
use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema, EnumSchema};
use rmcp::service::Peer;
use serde_json::Value;

/// The most of a diff shown in the question.
const DIFF_SHOWN: usize = 4_000;

/// Asks the MCP client about each call the policy asks about.
pub struct Elicit {
    pub peer: Peer<RoleServer>,
}

/// The values of the `decision` field.
const ALLOW_ONCE: &str = "allow_once";
const ALLOW_SESSION: &str = "allow_session";
const DENY: &str = "deny";

#[async_trait]
impl Approver for Elicit {
    async fn approve(&self, request: ApprovalRequest) -> Approval {
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: message(&request),
            requested_schema: schema(request.session_rule.as_deref()),
        };
        match self.peer.create_elicitation(params).await {
            Ok(result) if result.action == ElicitationAction::Accept => {
                answer(result.content.as_ref())
            }
            Ok(_) => Approval::Deny { note: None },
            Err(e) => Approval::Deny {
                note: Some(format!("the approval could not be asked: {e}")),
            },
        }
    }
}

/// The question: the call, why it asks, and the change it would make.
fn message(request: &ApprovalRequest) -> String {
    let mut message = format!(
        "rein wants to run {}: {}\n({})",
        request.tool, request.summary, request.reason
    );
    if let Some(agent) = &request.agent {
        message.push_str(&format!("\nasked by the subagent {agent}"));
    }
    if let Some(diff) = &request.diff {
        let cut = rein_tools::floor_char_boundary(diff, DIFF_SHOWN);
        message.push_str("\n\n");
        message.push_str(&diff[..cut]);
        if cut < diff.len() {
            message.push_str("\n… (the diff goes on)");
        }
    }
    message
}

/// The form: a decision, and a note for the model when denying.
fn schema(session_rule: Option<&str>) -> ElicitationSchema {
    let session = match session_rule {
        Some(rule) => format!("Yes, and allow {rule} for this session"),
        None => "Yes, and calls like it for this session".to_string(),
    };
    let decision = EnumSchema::builder(vec![
        ALLOW_ONCE.to_string(),
        ALLOW_SESSION.to_string(),
        DENY.to_string(),
    ])
    .enum_titles(vec!["Yes".to_string(), session, "No".to_string()])
    .map(|builder| builder.title("Run it?").build())
    .unwrap_or_else(|_| {
        EnumSchema::builder(vec![ALLOW_ONCE.to_string(), DENY.to_string()]).build()
    });
    ElicitationSchema::builder()
        .required_enum_schema("decision", decision)
        .optional_string("note")
        .build_unchecked()
}

/// The approval an accepted form gives.
fn answer(content: Option<&Value>) -> Approval {
    let field = |name: &str| content.and_then(|c| c.get(name)).and_then(Value::as_str);
    let note = field("note")
        .map(str::trim)
        .filter(|note| !note.is_empty())
        .map(str::to_string);
    match field("decision") {
        Some(ALLOW_ONCE) => Approval::AllowOnce,
        Some(ALLOW_SESSION) => Approval::AllowForSession,
        _ => Approval::Deny { note },
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_form_offers_three_answers_and_a_note() {
        let schema = serde_json::to_value(schema(Some("Bash(make clean)"))).unwrap_or_default();
        // The spec's titled single choice (MCP 2025-11-25): each value with its title.
        let decision = &schema["properties"]["decision"];
        assert_eq!(
            decision["oneOf"],
            json!([
                {"const": "allow_once", "title": "Yes"},
                {"const": "allow_session", "title": "Yes, and allow Bash(make clean) for this session"},
                {"const": "deny", "title": "No"}
            ]),
            "{schema}"
        );
        assert_eq!(schema["required"], json!(["decision"]));
        assert_eq!(schema["properties"]["note"]["type"], "string");
    }

    #[test]
    fn each_answer_maps_to_its_approval_and_anything_else_denies() {
        assert_eq!(
            answer(Some(&json!({"decision": "allow_once"}))),
            Approval::AllowOnce
        );
        assert_eq!(
            answer(Some(&json!({"decision": "allow_session"}))),
            Approval::AllowForSession
        );
        assert_eq!(
            answer(Some(
                &json!({"decision": "deny", "note": " use make test "})
            )),
            Approval::Deny {
                note: Some("use make test".into())
            }
        );
        assert_eq!(
            answer(Some(&json!({"decision": "sure"}))),
            Approval::Deny { note: None }
        );
        assert_eq!(answer(None), Approval::Deny { note: None });
    }
}
