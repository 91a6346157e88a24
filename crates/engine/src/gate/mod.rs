//! The gate every tool call passes before it runs: the permission policy, and the user when the
//! policy asks. Refusals become error results the model can act on.

mod approval;
mod refusals;

pub use approval::{Approval, ApprovalRequest, Approver};
use refusals::{denied_message, headless_message, hook_reason};

use std::sync::{Arc, Mutex};

use rein_protocol::Event;
use rein_tools::{CallFacts, CallKind, ToolOutput, WorkspaceGuard};
use serde_json::Value;

use crate::EventSender;
use crate::emitter::Emitter;
use crate::hooks::{HookEvent, Hooks, Ran, hook_tool_response};
use crate::session_rules::{exact_rules, general_rules};
use rein_policy::{Decision, PermissionMode, Policy, Rule, SourcedRule, Verdict};

/// The policy (shared, since "allow for the session" changes it), who can answer asks, and
/// the hooks around each call.
#[derive(Clone)]
pub(crate) struct Gate {
    pub policy: Arc<Mutex<Policy>>,
    pub approver: Option<Arc<dyn Approver>>,
    pub hooks: Arc<Hooks>,
    /// Set when a tool hook answered `continue: false` (the run ends after this batch, with
    /// the hook's `stopReason`) or the user answered a question with "no, stop".
    pub stop: Arc<Mutex<Option<StopBy>>>,
    /// The OS sandbox is there (`auto` mode needs it).
    pub sandboxed: bool,
}

/// Who ends a run after the current batch of calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StopBy {
    /// A hook answered `continue: false`, with this reason.
    Hook(String),
    /// The user answered a question "no, stop".
    User,
}

/// A call that passed the gate: the input to run it with (a hook may have rewritten it), what
/// that input touches, and notes for the model (from the hooks, or the plan's approval).
#[derive(Debug, Clone)]
pub(crate) struct Cleared {
    pub input: Value,
    pub facts: CallFacts,
    pub notes: Vec<String>,
}

/// What the gate may ask of the tool being called, for an input of it (a hook may rewrite
/// the call's): its facts, and the change it would make to files as a unified diff (asked
/// only when the user is asked).
pub(crate) struct ToolOf<'a> {
    pub facts: &'a (dyn Fn(&Value) -> CallFacts + Sync),
    pub preview: &'a (dyn Fn(&Value) -> Option<String> + Sync),
}

/// Where a call's permission decisions are reported (`Event::Permission`).
struct Report<'a> {
    id: &'a str,
    tool: String,
    events: &'a EventSender,
}

impl Report<'_> {
    /// Says how the call was decided and why.
    fn say(&self, verdict: Verdict, reason: &str) {
        self.events.emit(Event::Permission {
            id: self.id.to_string(),
            name: self.tool.clone(),
            decision: verdict,
            reason: reason.to_string(),
        });
    }
}

impl Gate {
    /// Checks one call: permission rules, then `PreToolUse` hooks (which run for every call,
    /// refused ones included, as audit hooks expect), then the user when asked. `Ok` to run
    /// it, `Err(result)` with the refusal for the model.
    pub async fn check(
        &self,
        id: &str,
        input: &Value,
        facts: CallFacts,
        tool_of: ToolOf<'_>,
        guard: &WorkspaceGuard,
        events: &EventSender,
    ) -> Result<Cleared, ToolOutput> {
        let report = Report {
            id,
            tool: facts.tool.clone(),
            events,
        };
        let mut cleared = Cleared {
            input: input.clone(),
            facts,
            notes: Vec::new(),
        };
        let mut decision = self.policy().decide(&cleared.facts, guard);
        if self.hooks.has(HookEvent::PreToolUse) {
            self.pre_tool_use(&mut cleared, &mut decision, &tool_of, guard, &report)
                .await?;
        }
        report.say(decision.verdict, &decision.reason);
        match decision.verdict {
            Verdict::Allow => Ok(cleared),
            Verdict::Deny => {
                let mode = self.policy().mode;
                Err(ToolOutput::error(denied_message(&decision, mode)))
            }
            Verdict::Ask => {
                self.ask_user(cleared, &decision, &tool_of, guard, &report)
                    .await
            }
        }
    }

    /// Runs the `PreToolUse` hooks: they may end the session or block the call (`Err`), or,
    /// unless the rules deny it, rewrite its input (checked by the rules again), add notes,
    /// or decide its permission.
    async fn pre_tool_use(
        &self,
        cleared: &mut Cleared,
        decision: &mut Decision,
        tool_of: &ToolOf<'_>,
        guard: &WorkspaceGuard,
        report: &Report<'_>,
    ) -> Result<(), ToolOutput> {
        let fields = self
            .hooks
            .tool_fields(report.id, &cleared.facts, &cleared.input);
        let mode = self.hook_mode();
        let said = self
            .hooks
            .run(
                HookEvent::PreToolUse,
                Some(&cleared.facts),
                mode,
                fields,
                report.events,
            )
            .await;
        if let Some(reason) = said.stop {
            self.request_stop(StopBy::Hook(reason.clone()));
            report.say(Verdict::Deny, "a PreToolUse hook");
            return Err(ToolOutput::error(format!(
                "Not run: a PreToolUse hook ended the session: {reason}"
            )));
        }
        if decision.verdict == Verdict::Deny {
            return Ok(());
        }
        if let Some(reason) = said.block {
            report.say(Verdict::Deny, "a PreToolUse hook");
            return Err(ToolOutput::error(format!(
                "Blocked by a PreToolUse hook; the call was not run: {reason}"
            )));
        }
        if let Some(updated) = said.updated_input {
            // The rewritten call must pass the rules on its own.
            cleared.facts = (tool_of.facts)(&updated);
            cleared.input = updated;
            *decision = self.policy().decide(&cleared.facts, guard);
        }
        cleared.notes = said
            .context
            .into_iter()
            .map(|note| format!("[PreToolUse hook: {note}]"))
            .collect();
        match said.permission {
            _ if decision.verdict == Verdict::Deny => {}
            Some((verdict, why)) => *decision = Decision::new(verdict, hook_reason(&why)),
            None => {}
        }
        Ok(())
    }

    /// Asks the user about a call the policy asks about (refused with how to allow it when
    /// no one can answer) and carries out the answer.
    async fn ask_user(
        &self,
        cleared: Cleared,
        decision: &Decision,
        tool_of: &ToolOf<'_>,
        guard: &WorkspaceGuard,
        report: &Report<'_>,
    ) -> Result<Cleared, ToolOutput> {
        let Some(approver) = &self.approver else {
            let rule = self.suggested_rule(&cleared.facts, guard);
            return Err(ToolOutput::error(headless_message(
                &cleared.facts,
                rule.as_deref(),
                decision,
            )));
        };
        let diff = (tool_of.preview)(&cleared.input);
        report.events.emit(Event::PermissionRequest {
            id: report.id.to_string(),
            name: report.tool.clone(),
            input: cleared.input.clone(),
            reason: decision.reason.clone(),
            diff: diff.clone(),
        });
        let request = ApprovalRequest {
            id: report.id.to_string(),
            tool: report.tool.clone(),
            input: cleared.input.clone(),
            summary: cleared.facts.summary.clone(),
            reason: decision.reason.clone(),
            agent: None,
            diff,
            session_rule: Some(exact_rules(&cleared.facts, guard).join(", "))
                .filter(|rules| !rules.is_empty()),
            edit: cleared.facts.kind == CallKind::Edit,
        };
        let answer = approver.approve(request).await;
        if report.tool == rein_policy::PLAN_TOOL {
            return self.plan_answered(&answer, cleared, report);
        }
        self.answered(answer, cleared, guard, report)
    }

    /// Carries out the user's answer about a call.
    fn answered(
        &self,
        answer: Approval,
        cleared: Cleared,
        guard: &WorkspaceGuard,
        report: &Report<'_>,
    ) -> Result<Cleared, ToolOutput> {
        match answer {
            Approval::SwitchMode(PermissionMode::AcceptEdits)
                if cleared.facts.kind == CallKind::Edit =>
            {
                // "All edits this session": the mode changes for the rest of it (a
                // call's answer can grant no more than that).
                self.policy().mode = PermissionMode::AcceptEdits;
                report.say(Verdict::Allow, "the user (edits allowed for this session)");
                Ok(cleared)
            }
            Approval::AllowOnce | Approval::SwitchMode(_) => {
                report.say(Verdict::Allow, "the user (once)");
                Ok(cleared)
            }
            Approval::AllowForSession => {
                self.remember(&cleared.facts, guard);
                report.say(Verdict::Allow, "the user (for this session)");
                Ok(cleared)
            }
            Approval::Stop => {
                report.say(Verdict::Deny, "the user (turn stopped)");
                self.request_stop(StopBy::User);
                Err(ToolOutput::error(
                    "The user denied this call and stopped the turn; it was not run. Wait for \
                     their next message.",
                ))
            }
            Approval::Deny { note } => {
                report.say(Verdict::Deny, "the user");
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

    /// The user's answer to a plan: approved, the mode switches and the call runs; else the
    /// model hears it is to keep planning, with the user's feedback.
    fn plan_answered(
        &self,
        answer: &Approval,
        mut cleared: Cleared,
        report: &Report<'_>,
    ) -> Result<Cleared, ToolOutput> {
        match crate::plan::approved_mode(answer) {
            Some(mode) => {
                // `auto` confines commands to the sandbox: without one it is not offered.
                let mode = if mode == PermissionMode::Auto && !self.sandboxed {
                    PermissionMode::AcceptEdits
                } else {
                    mode
                };
                self.policy().mode = mode;
                report.say(Verdict::Allow, "the user (plan approved)");
                cleared
                    .notes
                    .push(format!("The permission mode is now {}.", mode.name()));
                Ok(cleared)
            }
            None => {
                report.say(Verdict::Deny, "the user (keep planning)");
                let feedback = match answer {
                    Approval::Deny { note: Some(note) } if !note.trim().is_empty() => {
                        format!(" Their feedback: {}", note.trim())
                    }
                    _ => String::new(),
                };
                Err(ToolOutput::error(format!(
                    "The user did not approve the plan: stay in plan mode, keep exploring with \
                     read-only tools and present a revised plan.{feedback}"
                )))
            }
        }
    }

    /// Runs the `PostToolUse` (or, for an error result, `PostToolUseFailure`) hooks and adds
    /// what they say for the model to the result.
    pub async fn after(
        &self,
        id: &str,
        facts: &CallFacts,
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
        let mut fields = self.hooks.tool_fields(id, facts, input);
        if output.is_error {
            fields.insert("error".into(), Value::String(output.text.clone()));
            fields.insert("is_interrupt".into(), Value::Bool(ran.interrupted));
        } else {
            fields.insert("tool_response".into(), hook_tool_response(&output));
        }
        fields.insert("duration_ms".into(), ran.duration_ms().into());
        let said = self
            .hooks
            .run(event, Some(facts), self.hook_mode(), fields, events)
            .await;
        if let Some(reason) = said.stop {
            self.request_stop(StopBy::Hook(reason));
        }
        let mut text = output.text;
        for note in said.block.iter().chain(&said.context) {
            text.push_str(&format!("\n\n[{} hook: {note}]", event.name()));
        }
        ToolOutput { text, ..output }
    }

    fn request_stop(&self, by: StopBy) {
        let mut stop = self.stop.lock().unwrap_or_else(|p| p.into_inner());
        stop.get_or_insert(by);
    }

    /// Who asked to end the run after this batch of calls, taken (asked once).
    pub fn take_stop(&self) -> Option<StopBy> {
        self.stop.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// The permission mode under Claude Code's names, as hook scripts expect.
    pub fn hook_mode(&self) -> &'static str {
        match self.policy().mode {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Plan => "plan",
            PermissionMode::Bypass => "bypassPermissions",
            PermissionMode::Auto => "auto",
        }
    }

    pub(crate) fn policy(&self) -> std::sync::MutexGuard<'_, Policy> {
        self.policy
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The sandbox policy a shell call runs under in the current mode: `auto` confines every
    /// command to at least `workspace-write`, `plan` (with a sandbox configured) to
    /// `read-only`; other modes keep the configured policy.
    pub(crate) fn sandbox_policy(&self, configured: rein_sandbox::Policy) -> rein_sandbox::Policy {
        match self.policy().mode {
            PermissionMode::Auto => configured.stricter(rein_sandbox::Policy::WorkspaceWrite),
            // Plan mode changes nothing: what runs confined (a command, a language server
            // started by a read, which may build the project) runs read-only.
            PermissionMode::Plan if configured != rein_sandbox::Policy::Off => {
                configured.stricter(rein_sandbox::Policy::ReadOnly)
            }
            _ => configured,
        }
    }

    /// "Allow for this session": rules for these exact commands (each part of a bash line),
    /// the paths for file tools, or the whole tool.
    fn remember(&self, facts: &CallFacts, guard: &WorkspaceGuard) {
        let texts = exact_rules(facts, guard);
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

    /// A rule (or rules) the user could add to allow this call, checked against the policy:
    /// a general one (`Bash(cargo build *)`) when it would allow the call, else the exact
    /// one, else none (no rule short of the whole tool would, e.g. for a loop).
    fn suggested_rule(&self, facts: &CallFacts, guard: &WorkspaceGuard) -> Option<String> {
        let policy = self.policy().clone();
        [general_rules(facts, guard), exact_rules(facts, guard)]
            .into_iter()
            .filter(|texts| !texts.is_empty())
            .find(|texts| {
                let mut trial = policy.clone();
                for text in texts {
                    match Rule::parse(text, guard.root(), None) {
                        Ok(rule) => trial.rules.allow.push(SourcedRule {
                            rule,
                            source: String::new(),
                        }),
                        Err(_) => return false,
                    }
                }
                trial.decide(facts, guard).verdict == Verdict::Allow
            })
            .map(|texts| texts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rein_sandbox::Policy as Sandbox;

    #[test]
    fn plan_mode_runs_what_is_confined_read_only_and_auto_at_least_workspace_write() {
        let gate = |mode| Gate {
            policy: Arc::new(Mutex::new(Policy {
                mode,
                ..Policy::default()
            })),
            approver: None,
            hooks: Arc::new(Hooks::default()),
            stop: Arc::default(),
            sandboxed: true,
        };
        let cases = [
            (
                PermissionMode::Plan,
                Sandbox::WorkspaceWrite,
                Sandbox::ReadOnly,
            ),
            (PermissionMode::Plan, Sandbox::ReadOnly, Sandbox::ReadOnly),
            // Without a sandbox configured nothing is confined, in plan mode as in others.
            (PermissionMode::Plan, Sandbox::Off, Sandbox::Off),
            (PermissionMode::Auto, Sandbox::Off, Sandbox::WorkspaceWrite),
            (
                PermissionMode::Default,
                Sandbox::WorkspaceWrite,
                Sandbox::WorkspaceWrite,
            ),
            (PermissionMode::Bypass, Sandbox::Off, Sandbox::Off),
        ];
        for (mode, configured, runs) in cases {
            assert_eq!(
                gate(mode).sandbox_policy(configured),
                runs,
                "{mode:?} {configured:?}"
            );
        }
    }
}
