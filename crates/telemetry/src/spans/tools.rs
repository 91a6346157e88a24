//! The spans of tool calls (with their permission decision, exit code, size and lines
//! changed), compactions and hook runs.

use std::time::SystemTime;

use rein_protocol::{Event, PermissionVerdict};

use super::{AgentSpans, SpanTree, back, clamp, session_attributes};
use crate::names::*;
use crate::record::{KeyValue, Status};

impl SpanTree {
    /// An event of a tool call, a compaction or a hook run.
    pub(super) fn on_tool_event(&mut self, agent: &mut AgentSpans, event: &Event, at: SystemTime) {
        match event {
            Event::ToolCallStart {
                id,
                name,
                input,
                summary,
            } => self.start_tool(agent, (id, name), input, summary, at),
            Event::Permission {
                id,
                decision,
                reason,
                ..
            } => {
                if let Some(tool) = agent.tools.get(id) {
                    tool.span().set_attributes([
                        KeyValue::new(DECISION, verdict(*decision)),
                        KeyValue::new(DECIDED_BY, reason.clone()),
                    ]);
                }
            }
            Event::ToolCallEnd { .. } => self.end_tool(agent, event, at),
            Event::Compaction { .. } => self.compaction(agent, event, at),
            Event::HookRun { .. } => self.hook(agent, event, at),
            _ => {}
        }
    }

    fn start_tool(
        &mut self,
        agent: &mut AgentSpans,
        (id, name): (&String, &String),
        input: &serde_json::Value,
        summary: &str,
        at: SystemTime,
    ) {
        let parent = agent.prompt.as_ref().unwrap_or(&agent.root).clone();
        let mut attributes = vec![
            KeyValue::new(OPERATION, "execute_tool"),
            KeyValue::new(TOOL_NAME, name.clone()),
            KeyValue::new(TOOL_CALL_ID, id.clone()),
            KeyValue::new(TOOL_TYPE, "function"),
            KeyValue::new(SPAN_KIND, "TOOL"),
            KeyValue::new(OI_TOOL_NAME, name.clone()),
        ];
        attributes.extend(session_attributes(&agent.session_id));
        if self.content.on {
            let arguments = self.content.redact(&input.to_string());
            attributes.push(KeyValue::new(TOOL_ARGUMENTS, arguments.clone()));
            attributes.push(KeyValue::new(OI_INPUT, arguments));
            attributes.push(KeyValue::new(SUMMARY, self.content.redact(summary)));
        }
        let span = self.start(format!("execute_tool {name}"), attributes, at, &parent);
        agent.tools.insert(id.clone(), span);
    }

    fn end_tool(&mut self, agent: &mut AgentSpans, event: &Event, at: SystemTime) {
        let Event::ToolCallEnd {
            id,
            output,
            is_error,
            duration_ms,
            diff,
            exit_code,
            sandbox,
            ..
        } = event
        else {
            return;
        };
        let Some(span) = agent.tools.remove(id) else {
            return;
        };
        let mut attributes = vec![
            KeyValue::new(TOOL_ERROR, *is_error),
            KeyValue::new(TOOL_DURATION, clamp(*duration_ms)),
            KeyValue::new(OUTPUT_BYTES, clamp(output.len() as u64)),
        ];
        if let Some(code) = exit_code {
            attributes.push(KeyValue::new(EXIT_CODE, i64::from(*code)));
        }
        if let Some(policy) = sandbox {
            attributes.push(KeyValue::new(SANDBOX, policy.clone()));
        }
        if let Some(diff) = diff {
            let (added, removed) = crate::diff_lines(diff);
            attributes.push(KeyValue::new(LINES_ADDED, clamp(added)));
            attributes.push(KeyValue::new(LINES_REMOVED, clamp(removed)));
        }
        if self.content.on {
            let result = self.content.redact(output);
            attributes.push(KeyValue::new(TOOL_RESULT, result.clone()));
            attributes.push(KeyValue::new(OI_OUTPUT, result));
        }
        span.span().set_attributes(attributes);
        if *is_error {
            span.span().set_status(Status::error("the call failed"));
        }
        // A subagent still open under this call ends with it.
        if let Some(mut sub) = agent.subagents.remove(id) {
            self.end_agent(&mut sub, at);
        }
        self.end(&span, at);
    }

    fn compaction(&mut self, agent: &mut AgentSpans, event: &Event, at: SystemTime) {
        let Event::Compaction {
            trigger,
            tokens_before,
            tokens_after,
            duration_ms,
            ..
        } = event
        else {
            return;
        };
        let started = back(at, *duration_ms);
        let parent = agent.prompt.as_ref().unwrap_or(&agent.root).clone();
        let attributes = vec![
            KeyValue::new(SPAN_KIND, "CHAIN"),
            KeyValue::new(TRIGGER, trigger.clone()),
            KeyValue::new(TOKENS_BEFORE, clamp(*tokens_before)),
            KeyValue::new(TOKENS_AFTER, clamp(*tokens_after)),
        ];
        let span = self.start("rein.compaction", attributes, started, &parent);
        self.end(&span, at);
    }

    fn hook(&mut self, agent: &mut AgentSpans, event: &Event, at: SystemTime) {
        let Event::HookRun {
            event: hooked,
            command,
            exit_code,
            blocked,
            duration_ms,
            ..
        } = event
        else {
            return;
        };
        let started = back(at, *duration_ms);
        let parent = agent.prompt.as_ref().unwrap_or(&agent.root).clone();
        let mut attributes = vec![
            KeyValue::new(SPAN_KIND, "CHAIN"),
            KeyValue::new(HOOK_EVENT, hooked.clone()),
            KeyValue::new(HOOK_COMMAND, self.content.redact(command)),
            KeyValue::new(HOOK_BLOCKED, *blocked),
        ];
        if let Some(code) = exit_code {
            attributes.push(KeyValue::new(HOOK_EXIT, i64::from(*code)));
        }
        let span = self.start(format!("rein.hook {hooked}"), attributes, started, &parent);
        self.end(&span, at);
    }
}

fn verdict(decision: PermissionVerdict) -> &'static str {
    match decision {
        PermissionVerdict::Allow => "allow",
        PermissionVerdict::Ask => "ask",
        PermissionVerdict::Deny => "deny",
    }
}
