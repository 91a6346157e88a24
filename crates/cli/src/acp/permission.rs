//! rein's approvals asked of the editor (`session/request_permission`): the call as a tool
//! call (title, kind, diff), and the choices allow once, allow calls like it for the session
//! (the rule rein adds), reject; a rejection may carry feedback for the model in the answer's
//! `_meta.feedback`. A cancelled question (the turn was cancelled) stops the turn.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SessionId,
};
use async_trait::async_trait;
use rein_engine::{Approval, ApprovalRequest, Approver};

const ALLOW_ONCE: &str = "allow_once";
const ALLOW_ALWAYS: &str = "allow_always";
const REJECT: &str = "reject_once";

/// Asks the editor about each call the policy asks about.
pub struct AskEditor {
    pub connection: ConnectionTo<Client>,
    /// The session's id and workspace, set once it started.
    pub session: Arc<OnceLock<(SessionId, PathBuf)>>,
}

#[async_trait]
impl Approver for AskEditor {
    async fn approve(&self, request: ApprovalRequest) -> Approval {
        let Some((session, workspace)) = self.session.get() else {
            return Approval::Deny { note: None };
        };
        let call = super::updates::asked(
            &request.id,
            &request.tool,
            &request.input,
            &request.summary,
            workspace,
        );
        let always = match &request.session_rule {
            Some(rule) => format!("Yes, and allow {rule} for this session"),
            None => "Yes, and calls like it for this session".to_string(),
        };
        let options = vec![
            PermissionOption::new(ALLOW_ONCE, "Yes", PermissionOptionKind::AllowOnce),
            PermissionOption::new(ALLOW_ALWAYS, always, PermissionOptionKind::AllowAlways),
            PermissionOption::new(REJECT, "No", PermissionOptionKind::RejectOnce),
        ];
        let question = RequestPermissionRequest::new(session.clone(), call, options);
        match self.connection.send_request(question).block_task().await {
            Ok(answer) => approval(&answer),
            Err(e) => Approval::Deny {
                note: Some(format!(
                    "the editor did not answer the approval: {}",
                    e.message
                )),
            },
        }
    }
}

/// The approval an answer gives.
fn approval(answer: &RequestPermissionResponse) -> Approval {
    match &answer.outcome {
        RequestPermissionOutcome::Selected(selected) => match &*selected.option_id.0 {
            ALLOW_ONCE => Approval::AllowOnce,
            ALLOW_ALWAYS => Approval::AllowForSession,
            _ => Approval::Deny {
                note: feedback(answer),
            },
        },
        // The client answers a question it can no longer ask (the turn was cancelled).
        RequestPermissionOutcome::Cancelled => Approval::Stop,
        _ => Approval::Deny { note: None },
    }
}

/// The feedback a rejection carries in `_meta.feedback` (or `_meta.note`), if any.
fn feedback(answer: &RequestPermissionResponse) -> Option<String> {
    let meta = answer.meta.as_ref()?;
    let text = meta
        .get("feedback")
        .or_else(|| meta.get("note"))?
        .as_str()?;
    Some(text.trim().to_string()).filter(|text| !text.is_empty())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn answer(json: serde_json::Value) -> RequestPermissionResponse {
        serde_json::from_value(json).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn each_option_maps_to_its_approval() {
        let selected =
            |id: &str| answer(json!({"outcome": {"outcome": "selected", "optionId": id}}));
        assert_eq!(approval(&selected("allow_once")), Approval::AllowOnce);
        assert_eq!(
            approval(&selected("allow_always")),
            Approval::AllowForSession
        );
        assert_eq!(
            approval(&selected("reject_once")),
            Approval::Deny { note: None }
        );
        assert_eq!(
            approval(&selected("something else")),
            Approval::Deny { note: None }
        );
        assert_eq!(
            approval(&answer(json!({"outcome": {"outcome": "cancelled"}}))),
            Approval::Stop
        );
    }

    #[test]
    fn a_rejection_carries_its_feedback() {
        let rejected = answer(json!({
            "outcome": {"outcome": "selected", "optionId": "reject_once"},
            "_meta": {"feedback": " use cargo nextest instead "}
        }));
        assert_eq!(
            approval(&rejected),
            Approval::Deny {
                note: Some("use cargo nextest instead".into())
            }
        );
    }
}
