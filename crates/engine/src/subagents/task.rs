//! The `task` tool and what it needs of the parent agent at the moment it runs.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rein_llm::ModelClient;
use rein_protocol::{Event, RunOutcome, ToolSpec, Usage};
use rein_tools::{CallFacts, CallKind, Effect, Tool, ToolContext, ToolOutput, WorkspaceGuard};
use serde_json::{Value, json};

use super::{AgentDefinition, ModelChoice, Subagents, TASK_TOOL};
use crate::agent::ParentView;
use crate::{Agent, EventSender};

/// What a subagent spent: its model, usage and cost, for the parent's session.
pub(crate) type Spent = (String, Usage, Option<f64>);

/// Starts subagents for one parent agent.
pub(crate) struct Spawner {
    catalog: Subagents,
    /// The parent's tools but `task`.
    tools: rein_tools::ToolRegistry,
    /// The parent as its current run sees it (set at the start of each run).
    parent: Mutex<Option<ParentView>>,
    /// Usage of finished subagents, until the parent takes it.
    spent: Mutex<Vec<Spent>>,
}

impl Spawner {
    pub(crate) fn new(catalog: Subagents, tools: rein_tools::ToolRegistry) -> Self {
        Self {
            catalog,
            tools,
            parent: Mutex::new(None),
            spent: Mutex::new(Vec::new()),
        }
    }

    /// The parent's state for the calls of the run starting now.
    pub(crate) fn set_parent(&self, view: ParentView) {
        *self.parent.lock().unwrap_or_else(|p| p.into_inner()) = Some(view);
    }

    /// Forgets the parent's state when its run ends.
    pub(crate) fn clear_parent(&self) {
        *self.parent.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// What subagents spent since the last call.
    pub(crate) fn take_spent(&self) -> Vec<Spent> {
        std::mem::take(&mut *self.spent.lock().unwrap_or_else(|p| p.into_inner()))
    }

    fn definition(&self, name: &str) -> Option<&AgentDefinition> {
        self.catalog.definitions.iter().find(|d| d.name == name)
    }

    /// The model and client for `definition`, given the parent's.
    fn model_for(
        &self,
        definition: &AgentDefinition,
        parent: &ParentView,
    ) -> Result<(String, Arc<dyn ModelClient>), String> {
        match (&definition.model, &self.catalog.models) {
            (ModelChoice::Inherit, _) | (_, None) => {
                Ok((parent.model().to_string(), parent.client()))
            }
            (ModelChoice::Named(model), Some(source)) => source.client_for(model).map_err(|e| {
                format!(
                    "the {} agent's model `{model}` cannot be used: {e}",
                    definition.name
                )
            }),
        }
    }
}

/// The `task` tool: runs a subagent to completion and returns its final text.
pub(crate) struct TaskTool(pub(crate) Arc<Spawner>);

#[async_trait]
impl Tool for TaskTool {
    fn spec(&self) -> ToolSpec {
        let catalog: Vec<String> = self
            .0
            .catalog
            .definitions
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
                    }
                },
                "required": ["description", "prompt"],
                "additionalProperties": false
            }),
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
                .catalog
                .definitions
                .iter()
                .map(|d| d.name.as_str())
                .collect();
            return ToolOutput::error(format!(
                "there is no agent `{name}`; the agents are: {}",
                names.join(", ")
            ));
        };
        let Some(parent) = spawner
            .parent
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
        else {
            return ToolOutput::error("subagents can only run inside an agent's run");
        };
        let (model, client) = match spawner.model_for(definition, &parent) {
            Ok(found) => found,
            Err(message) => return ToolOutput::error(message),
        };
        let tools = match &definition.tools {
            None => spawner.tools.subset(|_| true),
            Some(names) => spawner.tools.subset(|tool| names.iter().any(|n| n == tool)),
        };
        let call_id = ctx.call_id.clone().unwrap_or_default();
        let mut agent = Agent::subagent(
            &parent,
            definition,
            tools,
            (model.clone(), client),
            &call_id,
            spawner.catalog.max_turns,
            ctx,
        );
        let (tx, forwarder) = forward(parent.events(), &call_id, &definition.name);
        let summary = agent.run(prompt, &tx, ctx.cancel.clone()).await;
        drop(tx);
        let _ = forwarder.await;
        parent
            .subagent_stopped(&definition.name, &call_id, &summary.text)
            .await;
        spawner
            .spent
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((model, summary.usage, summary.cost_usd));
        match summary.outcome {
            RunOutcome::Completed if summary.text.trim().is_empty() => {
                ToolOutput::ok("(the subagent finished without a final message)")
            }
            RunOutcome::Completed => ToolOutput::ok(summary.text),
            RunOutcome::MaxTurns => ToolOutput::ok(format!(
                "{}\n\n[the subagent stopped at its limit of {} turns before it finished; \
                 the text above is its last message]",
                if summary.text.is_empty() {
                    "(no text)"
                } else {
                    &summary.text
                },
                spawner.catalog.max_turns
            )),
            RunOutcome::Cancelled => ToolOutput::error("the subagent was cancelled"),
            RunOutcome::Failed => ToolOutput::error(format!(
                "the subagent failed: {}",
                summary
                    .error
                    .map(|e| e.to_string())
                    .unwrap_or_else(|| "see its events".to_string())
            )),
        }
    }
}

/// A channel for the subagent's events, and a task passing each on to `parent` wrapped with
/// the call's id and the agent's name; it ends when the sender is dropped.
fn forward(
    parent: EventSender,
    call_id: &str,
    agent: &str,
) -> (EventSender, tokio::task::JoinHandle<()>) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Event>();
    let (call_id, agent) = (call_id.to_string(), agent.to_string());
    let forwarder = tokio::spawn(async move {
        while let Some(event) = rx.recv().await {
            let _ = parent.send(Event::Subagent {
                parent_tool_use_id: call_id.clone(),
                agent: agent.clone(),
                event: Box::new(event),
            });
        }
    });
    (tx, forwarder)
}

fn first_line(text: &str) -> &str {
    let line = text.lines().next().unwrap_or("").trim();
    match line.char_indices().nth(300) {
        Some((at, _)) => &line[..at],
        None => line,
    }
}
