//! Asking the user about a call: the request a front end shows, the answers it can give,
//! and the [`Approver`] trait a front end implements.

use async_trait::async_trait;
use serde_json::Value;

use rein_policy::PermissionMode;

/// A call waiting for the user's approval.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalRequest {
    /// Call id.
    pub id: String,
    /// Tool name.
    pub tool: String,
    /// Arguments.
    pub input: Value,
    /// What the call touches, in one line (the call's facts).
    pub summary: String,
    /// Why approval is needed (the rule or mode that asked).
    pub reason: String,
    /// The subagent whose call it is (`None`: the main agent's).
    pub agent: Option<String>,
    /// The change a file tool's call would make, as a unified diff.
    pub diff: Option<String>,
    /// The rule(s) "yes, this session" adds (`Bash(make clean)`, `Edit(src/lib.rs)`); `None`
    /// when none would name the call (an unanalysable shell line): then it allows it once.
    pub session_rule: Option<String>,
    /// A file edit inside the workspace: "all edits this session" (accept-edits) may be offered.
    pub edit: bool,
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Run this call.
    AllowOnce,
    /// Run this call and, for the rest of the session, calls like it.
    AllowForSession,
    /// Do not run it; the note, if any, goes to the model, which goes on.
    Deny {
        /// What the user wants instead.
        note: Option<String>,
    },
    /// Do not run it, and stop the turn: the model is not asked again until the user
    /// writes (Claude Code's "No").
    Stop,
    /// For a plan (`exit_plan_mode`): approve it and go on in this mode.
    SwitchMode(PermissionMode),
}

/// Something that can ask the user (an interactive front end).
#[async_trait]
pub trait Approver: Send + Sync {
    /// Asks about one call; waits for the answer.
    async fn approve(&self, request: ApprovalRequest) -> Approval;
}
