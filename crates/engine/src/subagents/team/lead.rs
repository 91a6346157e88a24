//! A plan-mode teammate's approvals: its plan (`exit_plan_mode`) goes to the main agent as a
//! `plan_approval_request` and waits for its `plan_approval_response`; every other question
//! goes to the user, labelled with the teammate's name, as a subagent's does.
//!
//! The lead's approval is a model's word, and only the user widens a mode: a plan the lead
//! approved is then put to the user (in `bypass` the user's standing answer is yes), and the
//! teammate carries it out in at most the session's mode — never out of plan mode while the
//! session itself plans.

use std::sync::Arc;

use async_trait::async_trait;

use super::{LEAD, Letter, LetterKind, Team};
use crate::gate::{Approval, ApprovalRequest, Approver};
use rein_policy::PermissionMode;

/// The approver of one teammate.
pub(crate) struct PlanToLead {
    pub(crate) team: Arc<Team>,
    pub(crate) name: String,
    /// The user's approver, when there is one (none in `rein exec`).
    pub(crate) user: Option<Arc<dyn Approver>>,
    /// The session's policy: an approved plan is carried out in the session's mode.
    pub(crate) session: Arc<std::sync::Mutex<rein_policy::Policy>>,
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
            Ok(answer) if answer.approve => self.leave_plan_mode(request).await,
            Ok(answer) => Approval::Deny {
                note: Some(format!("{LEAD} sent the plan back: {}", answer.feedback)),
            },
            Err(_) => Approval::Deny {
                note: Some(format!("{LEAD} gave no answer; keep planning")),
            },
        }
    }
}

impl PlanToLead {
    /// The user's answer to a plan the lead approved, at most the session's mode.
    async fn leave_plan_mode(&self, mut request: ApprovalRequest) -> Approval {
        let session = self.session.lock().unwrap_or_else(|p| p.into_inner()).mode;
        let keep_planning = |why: String| Approval::Deny {
            note: Some(format!(
                "{LEAD} approved the plan, but {why}; keep planning"
            )),
        };
        match (session, &self.user) {
            (PermissionMode::Plan, _) => keep_planning(
                "the session is in plan mode, and a teammate acts in no broader mode than the \
                 session's"
                    .to_string(),
            ),
            (_, Some(user)) => {
                request.agent = Some(self.name.clone());
                let answer = user.approve(request).await;
                match crate::plan::approved_mode(&answer) {
                    Some(mode) => Approval::SwitchMode(mode.at_most(session)),
                    None => answer,
                }
            }
            (PermissionMode::Bypass, None) => Approval::SwitchMode(PermissionMode::Bypass),
            (_, None) => keep_planning(format!(
                "only the user can let a teammate leave plan mode and nobody can be asked in \
                 this run ({} mode)",
                session.name()
            )),
        }
    }
}
