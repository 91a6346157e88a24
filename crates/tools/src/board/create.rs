//! `task_create {subject, description, activeForm?, metadata?}`.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::{CallFacts, Effect, ToolContext, ToolOutput, TypedTool, WorkspaceGuard};

/// Arguments of `task_create`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskCreateArgs {
    /// Short imperative title.
    pub subject: String,
    /// What is to be done.
    pub description: String,
    /// Present-continuous title, shown while in progress.
    #[serde(rename = "activeForm", default)]
    pub active_form: Option<String>,
    /// Key/values kept with the task.
    #[serde(default)]
    pub metadata: Option<Map<String, Value>>,
}

/// The `task_create` tool.
#[derive(Debug, Default)]
pub struct TaskCreate;

#[async_trait]
impl TypedTool for TaskCreate {
    type Args = TaskCreateArgs;
    const NAME: &'static str = "task_create";
    const CLAUDE_NAME: &'static str = "TaskCreate";
    const LEAN: crate::Lean = crate::Lean::LeftOut;

    fn description(&self) -> String {
        "Adds a pending task to the session's task board (shared with subagents and \
         teammates). Plan work of three or more steps as tasks; then task_update."
            .to_string()
    }

    fn schema(&self) -> serde_json::Value {
        super::object(
            &[
                (
                    "activeForm",
                    "Present-continuous title, shown while in progress.",
                    super::string(),
                ),
                ("description", "What is to be done.", super::string()),
                (
                    "metadata",
                    "Key/values kept with the task.",
                    serde_json::json!({"additionalProperties": true, "type": "object"}),
                ),
                ("subject", "Short imperative title.", super::string()),
            ],
            &["subject", "description"],
        )
    }

    fn effect(&self, _args: &TaskCreateArgs) -> Effect {
        Effect::ReadOnly
    }

    fn describe(&self, args: &TaskCreateArgs, _guard: &WorkspaceGuard, facts: &mut CallFacts) {
        facts.summary = args.subject.trim().to_string();
        facts.serial = true;
    }

    async fn run(&self, args: TaskCreateArgs, ctx: &ToolContext) -> ToolOutput {
        let new = rein_board::NewTask {
            subject: args.subject,
            description: args.description,
            active_form: args.active_form.unwrap_or_default(),
            metadata: args.metadata.unwrap_or_default(),
        };
        match ctx.services.get::<rein_board::Board>().create(new) {
            Ok(task) => ToolOutput::ok(format!(
                "Task #{} created successfully: {}",
                task.id, task.subject
            )),
            Err(error) => ToolOutput::error(error.to_string()),
        }
    }
}
