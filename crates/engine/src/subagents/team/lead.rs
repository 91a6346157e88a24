//! A plan-mode teammate's approvals: its plan (`exit_plan_mode`) goes to the main agent as a
//! `plan_approval_request` and waits for its `plan_approval_response`; every other question
//! goes to the user, labelled with the teammate's name, as a subagent's does.

use std::sync::Arc;

use async_trait::async_trait;

use super::{LEAD, Letter, LetterKind, Team};
use crate::gate::{Approval, ApprovalRequest, Approver};
use crate::permissions::PermissionMode;

/// The approver of one teammate.
pub(crate) struct PlanToLead {
    pub(crate) team: Arc<Team>,
    pub(crate) name: String,
    /// The user's approver, when there is one (none in `rein exec`).
    pub(crate) user: Option<Arc<dyn Approver>>,
    /// The session's policy: an approved plan is carried out in the session's mode.
    pub(crate) session: Arc<std::sync::Mutex<crate::permissions::Policy>>,
}

#[async_trait]
impl Approver for PlanToLead {
    async fn approve(&self, mut request: ApprovalRequest) -> Approval {
        if request.tool != crate::plan::PLAN_TOOL {
            request.agent = Some(self.name.clone());
            return match &self.user {
                Some(user) => user.approve(request).await,
                None => Approval::Deny {
                    note: Some(format!(
                        "nobody can approve calls in this run ({}); do without this call or \
                         ask {LEAD} with send_message",
                        request.reason
                    )),
                },
            };
        }
        let id = self.team.request_id("plan");
        let answer = self.team.await_plan(&id);
        let letter = Letter {
            from: self.name.clone(),
            kind: LetterKind::PlanApprovalRequest,
            text: crate::plan::plan_of(&request.input).to_string(),
            request_id: Some(id),
            approve: None,
        };
        if self.team.send(LEAD, letter).is_err() {
            return Approval::Deny {
                note: Some(format!("{LEAD} could not be asked; keep planning")),
            };
        }
        match answer.await {
            Ok(answer) if answer.approve => {
                let mode = self.session.lock().unwrap_or_else(|p| p.into_inner()).mode;
                Approval::SwitchMode(match mode {
                    PermissionMode::Plan => PermissionMode::Default,
                    mode => mode,
                })
            }
            Ok(answer) => Approval::Deny {
                note: Some(format!("{LEAD} sent the plan back: {}", answer.feedback)),
            },
            Err(_) => Approval::Deny {
                note: Some(format!("{LEAD} gave no answer; keep planning")),
            },
        }
    }
}
