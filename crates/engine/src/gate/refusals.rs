//! What the model is told when the gate refuses a call: denied by the rules (with what plan
//! mode expects), or needing an approval nobody can give (with the rule that would allow
//! it), and how a hook's decision is named.

use rein_tools::{CallFacts, CallKind};

use rein_policy::{Decision, PermissionMode};

/// How a hook's permission decision is shown as its reason.
pub(super) fn hook_reason(why: &str) -> String {
    if why.trim().is_empty() {
        "a PreToolUse hook".to_string()
    } else {
        format!("a PreToolUse hook: {}", why.trim())
    }
}

/// The result of a call the rules (or a hook) denied in `mode`.
pub(super) fn denied_message(decision: &Decision, mode: PermissionMode) -> String {
    if mode == PermissionMode::Plan && decision.reason == "mode plan" {
        return "Not run: rein is in plan mode, where only read-only tools run. Keep exploring \
                with read-only tools, then present your plan with exit_plan_mode; once the user \
                approves it you can make changes."
            .to_string();
    }
    format!(
        "Permission denied ({}); the call was not run. Do not retry it: do something else, or \
         ask the user.",
        decision.reason
    )
}

/// The result of a call that needed the user's approval with nobody to ask, saying how
/// the user could allow it (`rule`).
pub(super) fn headless_message(
    facts: &CallFacts,
    rule: Option<&str>,
    decision: &Decision,
) -> String {
    let how = match (rule, facts.kind) {
        (Some(rule), CallKind::Edit) => format!(
            "The user can allow it with --allowed-tools '{rule}', an allow rule in \
             .rein/config.toml, or --permission-mode accept-edits."
        ),
        (Some(rule), _) => format!(
            "The user can allow it with --allowed-tools '{rule}' or an allow rule in \
             .rein/config.toml."
        ),
        (None, _) => "No narrow rule would allow it; the user can run it themselves.".to_string(),
    };
    format!(
        "Not run: this call needs the user's approval ({}), and nobody can approve calls in \
         this run. {how} Try a read-only way, or finish and say what you need.",
        decision.reason,
    )
}
