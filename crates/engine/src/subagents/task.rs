//! The `task` tool and what it needs of the parent agent at the moment it runs.

use std::sync::Arc;

use async_trait::async_trait;
use rein_protocol::ToolSpec;
use rein_tools::{CallFacts, CallKind, Effect, Tool, ToolContext, ToolOutput, WorkspaceGuard};
use serde_json::{Value, json};

use super::TASK_TOOL;
use super::spawner::{Job, Spawner};

/// The `task` tool: runs a subagent to completion and returns its final text.
pub(crate) struct TaskTool(pub(crate) Arc<Spawner>);

#[async_trait]
impl Tool for TaskTool {
    /// Its definition lists every agent; a small window cannot spare it.
    fn lean(&self) -> rein_tools::Lean {
        rein_tools::Lean::LeftOut
    }

    fn spec(&self) -> ToolSpec {
        let catalog: Vec<String> = self
            .0
            .definitions()
            .iter()
            .map(|d| format!("- {}: {}", d.name, first_line(&d.description)))
            .collect();
        ToolSpec {
            name: TASK_TOOL.into(),
            description: format!(
                "Hand a self-contained task to a subagent: it works with a fresh context (none \
                 of this conversation: put everything it needs in `prompt`) and its own tools, \
                 and returns only its final answer. Use it for broad searches and independent \
                 pieces of work, to keep this context small; several task calls in one reply \
                 run at the same time. Agents (`agent`, default `general`):\n{}",
                catalog.join("\n")
            ),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "description": {
                        "type": "string",
                        "description": "The task in 3-5 words, for people watching"
                    },
                    "prompt": {
                        "type": "string",
                        "description": "The complete task for the subagent"
                    },
                    "agent": {
                        "type": "string",
                        "description": "Which agent runs it (default: general)"
                    },
                    "run_in_background": {
                        "type": "boolean",
                        "description": "Start it and go on; its answer comes when it finishes"
                    },
                    "name": {
                        "type": "string",
                        "description": "Start a long-lived teammate by this name instead: it \
                                        works beside you, talks by send_message and takes \
                                        ready tasks from the board"
                    },
                    "mode": {
                        "type": "string",
                        "enum": ["plan"],
                        "description": "A teammate that plans first and sends you its plan"
                    },
                    "isolation": {
                        "type": "string",
                        "enum": ["worktree"],
                        "description": "Work in its own git worktree and branch"
                    }
                },
                "required": ["description", "prompt"],
                "additionalProperties": false
            })
            .into(),
        }
    }

    /// The call itself only delegates (each of the subagent's calls passes the gate on its
    /// own), so it may run beside other calls.
    fn effect(&self, _args: &Value) -> Effect {
        Effect::ReadOnly
    }

    fn facts(&self, args: &Value, _guard: &WorkspaceGuard) -> CallFacts {
        let mut facts = CallFacts::new(TASK_TOOL, "Agent", CallKind::Other, Effect::ReadOnly);
        let agent = args
            .get("agent")
            .and_then(Value::as_str)
            .unwrap_or("general");
        let description = args
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("");
        facts.summary = format!("{agent}: {description}");
        // Rules name agents: `Agent(explore)`, `Task(general)`.
        facts.subject = Some(agent.to_string());
        facts
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> ToolOutput {
        let spawner = &self.0;
        let text = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or("").trim();
        let (prompt, name) = (text("prompt"), text("agent"));
        let name = if name.is_empty() { "general" } else { name };
        if prompt.is_empty() {
            return ToolOutput::error(
                "the task's `prompt` is empty: say what the subagent is to do",
            );
        }
        let Some(definition) = spawner.definition(name) else {
            let names: Vec<&str> = spawner
                .definitions()
                .iter()
                .map(|d| d.name.as_str())
                .collect();
            return ToolOutput::error(format!(
                "there is no agent `{name}`; the agents are: {}",
                names.join(", ")
            ));
        };
        let Some(parent) = spawner.parent() else {
            return ToolOutput::error("subagents can only run inside an agent's run");
        };
        let background = args.get("run_in_background").and_then(Value::as_bool) == Some(true);
        let teammate = text("name").to_string();
        let mode = match text("mode") {
            "" => None,
            "plan" => Some(rein_policy::PermissionMode::Plan),
            other => {
                return ToolOutput::error(format!(
                    "a teammate's `mode` can only be `plan` (not `{other}`): it otherwise \
                     works in the session's mode"
                ));
            }
        };
        let isolation = match text("isolation") {
            "" => definition.isolation,
            other => super::Isolation::parse(other),
        };
        let job = Job {
            definition: definition.clone(),
            parent,
            prompt: prompt.to_string(),
            call_id: ctx.call_id.clone().unwrap_or_default(),
            description: text("description").to_string(),
            isolation,
        };
        if !teammate.is_empty() {
            return match spawner.start_teammate(job, &teammate, mode) {
                Ok(name) => ToolOutput::ok(format!(
                    "Teammate {name} started. It works beside you; it reports with \
                     send_message, and you are told when it is idle. Talk to it with \
                     send_message {{to: \"{name}\"}}; stop it with send_message type \
                     shutdown_request."
                )),
                Err(error) => ToolOutput::error(error.to_string()),
            };
        }
        if background {
            return match spawner.start_background(job) {
                Ok(id) => ToolOutput::ok(format!(
                    "started in the background as {id}; its answer will be given to you when \
                     it finishes (keep working meanwhile, or end your turn to wait for it)"
                )),
                Err(error) => ToolOutput::error(error.to_string()),
            };
        }
        spawner.run(job, ctx.cancel.clone()).await
    }
}

fn first_line(text: &str) -> &str {
    let line = text.lines().next().unwrap_or("").trim();
    match line.char_indices().nth(300) {
        Some((at, _)) => &line[..at],
        None => line,
    }
}
