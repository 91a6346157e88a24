//! What a hook's run means: its exit code (0 goes on, 2 blocks, anything else is a
//! non-blocking error) and, on success, its stdout — Claude Code's JSON fields
//! (`decision`, `continue`, `systemMessage`, `hookSpecificOutput`) or plain context text.

use rein_protocol::PermissionVerdict;
use serde_json::{Map, Value};

use super::{HookEvent, HookOutcome, run};

/// A message about one hook run for the user.
pub(super) struct Said {
    pub(super) text: String,
    pub(super) blocked: bool,
}

/// Folds one hook's result into `outcome`; returns what to tell the user, if anything.
pub(super) fn interpret(
    event: HookEvent,
    finished: &run::Finished,
    outcome: &mut HookOutcome,
) -> Option<Said> {
    match finished.code {
        Some(0) => {}
        Some(2) => {
            return Some(block(outcome, event, finished.stderr.trim().to_string()));
        }
        _ => {
            // Non-blocking error (or a timeout): the user sees it, the session goes on.
            let text = match finished.code {
                Some(code) => format!(
                    "hook failed with exit code {code}: {}",
                    finished.stderr.trim()
                ),
                None => finished.stderr.trim().to_string(),
            };
            return Some(Said {
                text,
                blocked: false,
            });
        }
    }
    let stdout = finished.stdout.trim();
    let Some(Value::Object(out)) = serde_json::from_str::<Value>(stdout).ok() else {
        // Plain text on success is context for the prompt-shaped events.
        if !stdout.is_empty()
            && matches!(event, HookEvent::UserPromptSubmit | HookEvent::SessionStart)
        {
            outcome.context.push(stdout.to_string());
        }
        return None;
    };
    interpret_json(event, &out, outcome)
}

/// Folds a successful hook's JSON output into `outcome`.
fn interpret_json(
    event: HookEvent,
    out: &Map<String, Value>,
    outcome: &mut HookOutcome,
) -> Option<Said> {
    let said: Option<Said> = out
        .get("systemMessage")
        .and_then(Value::as_str)
        .map(|m| Said {
            text: m.to_string(),
            blocked: false,
        });
    if out.get("continue").and_then(Value::as_bool) == Some(false) {
        let reason = out
            .get("stopReason")
            .and_then(Value::as_str)
            .unwrap_or("a hook ended the session")
            .to_string();
        outcome.stop = Some(reason);
    }
    let blocked = decision(event, out, outcome);
    if let Some(Value::Object(specific)) = out.get("hookSpecificOutput") {
        specific_output(event, specific, outcome);
    }
    blocked.or(said)
}

/// The top-level `decision` (`block`, or `approve` for `PreToolUse`) and its `reason`; what
/// to tell the user when it blocks.
fn decision(event: HookEvent, out: &Map<String, Value>, outcome: &mut HookOutcome) -> Option<Said> {
    let reason = out
        .get("reason")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    match out.get("decision").and_then(Value::as_str) {
        Some("block") if event == HookEvent::PreToolUse => {
            merge_permission(outcome, PermissionVerdict::Deny, &reason);
        }
        Some("block") => return Some(block(outcome, event, reason)),
        // The legacy PreToolUse spelling of "allow".
        Some("approve") if event == HookEvent::PreToolUse => {
            merge_permission(outcome, PermissionVerdict::Allow, &reason);
        }
        _ => {}
    }
    None
}

/// `hookSpecificOutput`: a `PreToolUse` permission decision, a rewritten tool input, context
/// for the model.
fn specific_output(event: HookEvent, specific: &Map<String, Value>, outcome: &mut HookOutcome) {
    let why = specific
        .get("permissionDecisionReason")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let verdict = match specific.get("permissionDecision").and_then(Value::as_str) {
        Some("allow") => Some(PermissionVerdict::Allow),
        Some("ask") => Some(PermissionVerdict::Ask),
        Some("deny") => Some(PermissionVerdict::Deny),
        _ => None,
    };
    if let Some(verdict) = verdict.filter(|_| event == HookEvent::PreToolUse) {
        merge_permission(outcome, verdict, &why);
    }
    if let Some(input) = specific.get("updatedInput").filter(|v| v.is_object()) {
        outcome.updated_input = Some(input.clone());
    }
    if let Some(context) = specific.get("additionalContext").and_then(Value::as_str) {
        outcome.context.push(context.to_string());
    }
}

fn add_block(outcome: &mut HookOutcome, reason: &str) {
    outcome.block = Some(match outcome.block.take() {
        Some(earlier) => format!("{earlier}\n{reason}"),
        None => reason.to_string(),
    });
}

/// Keeps the strictest decision: deny over ask over allow.
fn merge_permission(outcome: &mut HookOutcome, verdict: PermissionVerdict, reason: &str) {
    let rank = |v: PermissionVerdict| match v {
        PermissionVerdict::Allow => 0,
        PermissionVerdict::Ask => 1,
        PermissionVerdict::Deny => 2,
    };
    let stricter = outcome
        .permission
        .as_ref()
        .is_none_or(|(current, _)| rank(verdict) > rank(*current));
    if stricter {
        outcome.permission = Some((verdict, reason.to_string()));
    }
}

/// A hook's block: its reason (or, without one, which hook blocked) added to `outcome` and
/// said as blocking.
fn block(outcome: &mut HookOutcome, event: HookEvent, reason: String) -> Said {
    let reason = if reason.is_empty() {
        format!("blocked by a {} hook", event.name())
    } else {
        reason
    };
    add_block(outcome, &reason);
    Said {
        text: reason,
        blocked: true,
    }
}
