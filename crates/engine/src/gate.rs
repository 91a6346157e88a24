//! The gate every tool call passes before it runs: the permission policy, and the user when the
//! policy asks. Refusals become error results the model can act on.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rein_protocol::Event;
use rein_tools::shell::split_commands;
use rein_tools::{Effect, ToolOutput, WorkspaceGuard};
use serde_json::Value;

use crate::EventSender;
use crate::hooks::{HookEvent, Hooks, Ran, hook_tool_response};
use crate::permissions::{Decision, PermissionMode, Policy, Rule, SourcedRule, Verdict};

/// A call waiting for the user's approval.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalRequest {
    /// Call id.
    pub id: String,
    /// Tool name.
    pub tool: String,
    /// Arguments.
    pub input: Value,
    /// Why approval is needed (the rule or mode that asked).
    pub reason: String,
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Run this call.
    AllowOnce,
    /// Run this call and, for the rest of the session, calls like it.
    AllowForSession,
    /// Do not run it; the note, if any, goes to the model.
    Deny {
        /// What the user wants instead.
        note: Option<String>,
    },
}

/// Something that can ask the user (an interactive front end).
#[async_trait]
pub trait Approver: Send + Sync {
    /// Asks about one call; waits for the answer.
    async fn approve(&self, request: ApprovalRequest) -> Approval;
}

/// The policy (shared, since "allow for the session" changes it), who can answer asks, and
/// the hooks around each call.
#[derive(Clone)]
pub(crate) struct Gate {
    pub policy: Arc<Mutex<Policy>>,
    pub approver: Option<Arc<dyn Approver>>,
    pub hooks: Arc<Hooks>,
    /// Set when a tool hook answered `continue: false`: the run ends after this batch, with
    /// the hook's `stopReason`.
    pub stop: Arc<Mutex<Option<String>>>,
}

/// A call that passed the gate: the input to run it with (a hook may have rewritten it) and
/// notes for the model from the hooks.
#[derive(Debug, Clone)]
pub(crate) struct Cleared {
    pub input: Value,
    pub notes: Vec<String>,
}

impl Gate {
    /// Checks one call: permission rules, then `PreToolUse` hooks, then the user when asked.
    /// `Ok` to run it, `Err(result)` with the refusal for the model.
    #[allow(clippy::too_many_arguments)]
    pub async fn check(
        &self,
        id: &str,
        tool: &str,
        input: &Value,
        effect_of: &(dyn Fn(&Value) -> Effect + Sync),
        guard: &WorkspaceGuard,
        events: &EventSender,
    ) -> Result<Cleared, ToolOutput> {
        let report = |verdict: Verdict, reason: &str| {
            let _ = events.send(Event::Permission {
                id: id.to_string(),
                name: tool.to_string(),
                decision: verdict,
                reason: reason.to_string(),
            });
        };
        let mut input = input.clone();
        let mut decision = self.policy().decide(tool, &input, effect_of(&input), guard);
        let mut notes = Vec::new();
        if decision.verdict != Verdict::Deny && self.hooks.has(HookEvent::PreToolUse) {
            let fields = self.hooks.tool_fields(id, tool, &input);
            let mode = self.hook_mode();
            let said = self
                .hooks
                .run(HookEvent::PreToolUse, Some(tool), mode, fields, events)
                .await;
            if let Some(reason) = said.stop {
                self.request_stop(reason.clone());
                report(Verdict::Deny, "a PreToolUse hook");
                return Err(ToolOutput::error(format!(
                    "Not run: a PreToolUse hook ended the session: {reason}"
                )));
            }
            if let Some(reason) = said.block {
                report(Verdict::Deny, "a PreToolUse hook");
                return Err(ToolOutput::error(format!(
                    "Blocked by a PreToolUse hook; the call was not run: {reason}"
                )));
            }
            if let Some(updated) = said.updated_input {
                // The rewritten call must pass the rules on its own.
                input = updated;
                decision = self.policy().decide(tool, &input, effect_of(&input), guard);
            }
            notes = said.context;
            match said.permission {
                _ if decision.verdict == Verdict::Deny => {}
                Some((Verdict::Deny, why)) => {
                    decision = Decision::new(Verdict::Deny, hook_reason(&why));
                }
                Some((Verdict::Ask, why)) => {
                    decision = Decision::new(Verdict::Ask, hook_reason(&why));
                }
                Some((Verdict::Allow, why)) => {
                    decision = Decision::new(Verdict::Allow, hook_reason(&why));
                }
                None => {}
            }
        }
        report(decision.verdict, &decision.reason);
        let cleared = Cleared { input, notes };
        match decision.verdict {
            Verdict::Allow => Ok(cleared),
            Verdict::Deny => Err(ToolOutput::error(denied_message(
                &decision,
                self.mode_is_plan(),
            ))),
            Verdict::Ask => {
                let Some(approver) = &self.approver else {
                    return Err(ToolOutput::error(headless_message(
                        tool,
                        &cleared.input,
                        &decision,
                    )));
                };
                let _ = events.send(Event::PermissionRequest {
                    id: id.to_string(),
                    name: tool.to_string(),
                    input: cleared.input.clone(),
                    reason: decision.reason.clone(),
                });
                let request = ApprovalRequest {
                    id: id.to_string(),
                    tool: tool.to_string(),
                    input: cleared.input.clone(),
                    reason: decision.reason.clone(),
                };
                match approver.approve(request).await {
                    Approval::AllowOnce => {
                        report(Verdict::Allow, "the user (once)");
                        Ok(cleared)
                    }
                    Approval::AllowForSession => {
                        self.remember(tool, &cleared.input, guard);
                        report(Verdict::Allow, "the user (for this session)");
                        Ok(cleared)
                    }
                    Approval::Deny { note } => {
                        report(Verdict::Deny, "the user");
                        let note = note
                            .filter(|n| !n.trim().is_empty())
                            .map(|n| format!(" They said: {}", n.trim()))
                            .unwrap_or_default();
                        Err(ToolOutput::error(format!(
                            "The user denied this call; it was not run.{note}"
                        )))
                    }
                }
            }
        }
    }

    /// Runs the `PostToolUse` (or, for an error result, `PostToolUseFailure`) hooks and adds
    /// what they say for the model to the result.
    pub async fn after(
        &self,
        id: &str,
        tool: &str,
        input: &Value,
        output: ToolOutput,
        ran: Ran,
        events: &EventSender,
    ) -> ToolOutput {
        let event = if output.is_error {
            HookEvent::PostToolUseFailure
        } else {
            HookEvent::PostToolUse
        };
        if !self.hooks.has(event) {
            return output;
        }
        let mut fields = self.hooks.tool_fields(id, tool, input);
        if output.is_error {
            fields.insert("error".into(), Value::String(output.text.clone()));
            fields.insert("is_interrupt".into(), Value::Bool(ran.interrupted));
        } else {
            fields.insert("tool_response".into(), hook_tool_response(&output));
        }
        fields.insert("duration_ms".into(), ran.duration_ms().into());
        let said = self
            .hooks
            .run(event, Some(tool), self.hook_mode(), fields, events)
            .await;
        if let Some(reason) = said.stop {
            self.request_stop(reason);
        }
        let mut text = output.text;
        for note in said.block.iter().chain(&said.context) {
            text.push_str(&format!("\n\n[{} hook: {note}]", event.name()));
        }
        ToolOutput { text, ..output }
    }

    fn request_stop(&self, reason: String) {
        let mut stop = self.stop.lock().unwrap_or_else(|p| p.into_inner());
        stop.get_or_insert(reason);
    }

    /// The reason a hook asked to end the session, taken (asked once).
    pub fn take_stop(&self) -> Option<String> {
        self.stop.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// The permission mode under Claude Code's names, as hook scripts expect.
    pub fn hook_mode(&self) -> &'static str {
        match self.policy().mode {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Plan => "plan",
            PermissionMode::Bypass => "bypassPermissions",
        }
    }

    fn policy(&self) -> std::sync::MutexGuard<'_, Policy> {
        self.policy
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn mode_is_plan(&self) -> bool {
        self.policy().mode == PermissionMode::Plan
    }

    /// "Allow for this session": rules for these exact commands (each part of a bash line),
    /// the path for file tools, or the whole tool.
    fn remember(&self, tool: &str, input: &Value, guard: &WorkspaceGuard) {
        let texts: Vec<String> = if tool == "bash" {
            let line = input.get("command").and_then(Value::as_str).unwrap_or("");
            // A line rein cannot split is not remembered: it asks again next time.
            split_commands(line)
                .map(|parts| parts.iter().map(|p| format!("Bash({})", p.text)).collect())
                .unwrap_or_default()
        } else {
            vec![suggested_rule(tool, input, false)]
        };
        let mut policy = self.policy();
        for text in texts {
            if let Ok(rule) = Rule::parse(&text, guard.root(), None) {
                policy.session_allow.push(SourcedRule {
                    rule,
                    source: "allowed for this session".to_string(),
                });
            }
        }
    }
}

fn hook_reason(why: &str) -> String {
    if why.trim().is_empty() {
        "a PreToolUse hook".to_string()
    } else {
        format!("a PreToolUse hook: {}", why.trim())
    }
}

fn denied_message(decision: &Decision, plan: bool) -> String {
    if plan && decision.reason == "mode plan" {
        return "Not run: rein is in plan mode, where only read-only tools run. Keep exploring \
                with read-only tools, then present your plan; the user leaves plan mode to let \
                you make changes."
            .to_string();
    }
    format!(
        "Permission denied ({}); the call was not run. Do not retry it: do something else, or \
         ask the user.",
        decision.reason
    )
}

fn headless_message(tool: &str, input: &Value, decision: &Decision) -> String {
    format!(
        "Not run: this call needs the user's approval ({}), and nobody can approve calls in \
         this run. The user can allow it with --allowed-tools '{}', an allow rule in \
         .rein/config.toml, or --permission-mode {}. Try a read-only way, or finish and say \
         what you need.",
        decision.reason,
        suggested_rule(tool, input, true),
        if rein_rule_is_edit(tool) {
            "accept-edits"
        } else {
            "bypass"
        },
    )
}

fn rein_rule_is_edit(tool: &str) -> bool {
    matches!(tool, "edit_file" | "write_file" | "apply_patch")
}

/// A rule that would allow this call: `Bash(cargo build *)` (`generalise`) or
/// `Bash(cargo build --release)`, `Edit(src/lib.rs)`, or the tool's name.
fn suggested_rule(tool: &str, input: &Value, generalise: bool) -> String {
    let path = input.get("path").and_then(Value::as_str);
    match (tool, path) {
        ("bash", _) if generalise => {
            let command = input.get("command").and_then(Value::as_str).unwrap_or("");
            let mut words = command.split_whitespace();
            let program = words.next().unwrap_or("");
            // Tools with subcommands get a rule per subcommand (`cargo test *`).
            let with_sub = [
                "git", "cargo", "npm", "pnpm", "yarn", "go", "docker", "kubectl", "uv",
            ];
            match words.next() {
                Some(sub) if with_sub.contains(&program) && !sub.starts_with('-') => {
                    format!("Bash({program} {sub} *)")
                }
                _ => format!("Bash({program} *)"),
            }
        }
        ("edit_file" | "write_file", Some(path)) => format!("Edit({path})"),
        ("read_file", Some(path)) => format!("Read({path})"),
        _ => tool.to_string(),
    }
}
