//! Leaving plan mode: in `plan` mode the model gets `exit_plan_mode {plan}`, which always asks
//! the user. The user approves (and picks the mode the work continues in) or sends the model
//! back to planning with feedback; with nobody to ask (`rein exec`) the plan is the run's
//! answer.

use async_trait::async_trait;
use rein_protocol::ToolSpec;
use rein_tools::{CallFacts, CallKind, Effect, Tool, ToolContext, ToolOutput, WorkspaceGuard};
use serde_json::{Value, json};

use rein_policy::PermissionMode;

pub use rein_policy::PLAN_TOOL;

/// The `exit_plan_mode` tool: by the time it runs, the user approved the plan (the gate asked).
pub(crate) struct ExitPlanMode;

/// The plan of a call's arguments.
pub(crate) fn plan_of(args: &Value) -> &str {
    args.get("plan")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim()
}

#[async_trait]
impl Tool for ExitPlanMode {
    fn lean(&self) -> rein_tools::Lean {
        rein_tools::Lean::Short {
            description: "In plan mode, once your plan is ready: show it to the user, who \
                          approves it or sends feedback.",
            arguments: &[("plan", "Markdown")],
        }
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: PLAN_TOOL.into(),
            description: "In plan mode, when your plan is ready: present it to the user for \
                          approval. Explore with read-only tools first; the plan says what you \
                          will change, where and how you will check it (Markdown). The user \
                          approves it (you then carry it out) or sends feedback to plan again."
                .into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "plan": {"type": "string", "description": "The plan, in Markdown"}
                },
                "required": ["plan"],
                "additionalProperties": false
            })
            .into(),
        }
    }

    fn effect(&self, _args: &Value) -> Effect {
        Effect::ReadOnly
    }

    fn facts(&self, args: &Value, _guard: &WorkspaceGuard) -> CallFacts {
        let mut facts =
            CallFacts::new(PLAN_TOOL, "ExitPlanMode", CallKind::Other, Effect::ReadOnly);
        let first = plan_of(args)
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        facts.summary = first.trim_start_matches('#').trim().to_string();
        facts
    }

    async fn call(&self, args: Value, _ctx: &ToolContext) -> ToolOutput {
        if plan_of(&args).is_empty() {
            return ToolOutput::error("the `plan` is empty: write the plan to present");
        }
        ToolOutput::ok("The user approved your plan. Carry it out now, step by step.")
    }
}

/// What the user's answer to a plan means: the mode to continue in, or `None` (keep
/// planning).
pub(crate) fn approved_mode(approval: &crate::Approval) -> Option<PermissionMode> {
    match approval {
        crate::Approval::SwitchMode(mode) => Some(*mode),
        crate::Approval::AllowOnce => Some(PermissionMode::Default),
        crate::Approval::AllowForSession => Some(PermissionMode::AcceptEdits),
        crate::Approval::Deny { .. } | crate::Approval::Stop => None,
    }
}
