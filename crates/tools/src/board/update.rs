//! `task_update {taskId, subject?, description?, activeForm?, status?, addBlocks?,
//! addBlockedBy?, owner?, metadata?}`.

use async_trait::async_trait;
use rein_board::{SetStatus, TaskChange};
use rein_protocol::TaskStatus;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::{CallFacts, Effect, ToolContext, ToolOutput, TypedTool, WorkspaceGuard};

/// A status `task_update` can set (`deleted` removes the task).
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)] // Undocumented variants keep the schema a plain `enum`.
pub enum StatusArg {
    Pending,
    InProgress,
    Completed,
    Deleted,
}

/// Arguments of `task_update`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskUpdateArgs {
    /// Task id.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// New title.
    #[serde(default)]
    pub subject: Option<String>,
    /// New description.
    #[serde(default)]
    pub description: Option<String>,
    /// New present-continuous title.
    #[serde(rename = "activeForm", default)]
    pub active_form: Option<String>,
    /// `deleted` removes the task.
    #[serde(default)]
    pub status: Option<StatusArg>,
    /// Ids that wait for this task.
    #[serde(rename = "addBlocks", default)]
    pub add_blocks: Option<Vec<String>>,
    /// Ids this task waits for.
    #[serde(rename = "addBlockedBy", default)]
    pub add_blocked_by: Option<Vec<String>>,
    /// Agent owning it ("" releases it).
    #[serde(default)]
    pub owner: Option<String>,
    /// Merged in; a null value deletes its key.
    #[serde(default)]
    pub metadata: Option<Map<String, Value>>,
}

/// The `task_update` tool.
#[derive(Debug, Default)]
pub struct TaskUpdate;

#[async_trait]
impl TypedTool for TaskUpdate {
    type Args = TaskUpdateArgs;
    const NAME: &'static str = "task_update";
    const CLAUDE_NAME: &'static str = "TaskUpdate";
    const LEAN: crate::Lean = crate::Lean::LeftOut;

    fn description(&self) -> String {
        "Changes a task: status in_progress when you start it, completed as soon as it is \
         done (only once its blockers are); dependencies; owner (your name claims it)."
            .to_string()
    }

    fn schema(&self) -> serde_json::Value {
        let ids = serde_json::json!({"items": {"type": "string"}, "type": "array"});
        super::object(
            &[
                (
                    "activeForm",
                    "New present-continuous title.",
                    super::string(),
                ),
                ("addBlockedBy", "Ids this task waits for.", ids.clone()),
                ("addBlocks", "Ids that wait for this task.", ids),
                ("description", "New description.", super::string()),
                (
                    "metadata",
                    "Merged in; a null value deletes its key.",
                    serde_json::json!({"additionalProperties": true, "type": "object"}),
                ),
                (
                    "owner",
                    "Agent owning it (\"\" releases it).",
                    super::string(),
                ),
                (
                    "status",
                    "`deleted` removes the task.",
                    serde_json::json!({"enum": ["pending", "in_progress", "completed", "deleted"],
                        "type": "string"}),
                ),
                ("subject", "New title.", super::string()),
                ("taskId", "Task id.", super::string()),
            ],
            &["taskId"],
        )
    }

    fn effect(&self, _args: &TaskUpdateArgs) -> Effect {
        Effect::ReadOnly
    }

    fn describe(&self, args: &TaskUpdateArgs, _guard: &WorkspaceGuard, facts: &mut CallFacts) {
        let status = args.status.map(|s| match s {
            StatusArg::Pending => "pending",
            StatusArg::InProgress => "in_progress",
            StatusArg::Completed => "completed",
            StatusArg::Deleted => "deleted",
        });
        facts.serial = true;
        facts.summary = match status {
            Some(status) => format!("#{} → {status}", args.task_id.trim()),
            None => format!("#{}", args.task_id.trim()),
        };
    }

    async fn run(&self, args: TaskUpdateArgs, ctx: &ToolContext) -> ToolOutput {
        let id = args.task_id.trim().trim_start_matches('#').to_string();
        let change = TaskChange {
            subject: args.subject,
            description: args.description,
            active_form: args.active_form,
            status: args.status.map(|s| match s {
                StatusArg::Pending => SetStatus::To(TaskStatus::Pending),
                StatusArg::InProgress => SetStatus::To(TaskStatus::InProgress),
                StatusArg::Completed => SetStatus::To(TaskStatus::Completed),
                StatusArg::Deleted => SetStatus::Deleted,
            }),
            add_blocks: ids(args.add_blocks),
            add_blocked_by: ids(args.add_blocked_by),
            owner: args.owner,
            metadata: args.metadata.unwrap_or_default(),
        };
        let updated =
            match ctx
                .services
                .get::<rein_board::Board>()
                .update(&id, change, &ctx.agent_name)
            {
                Ok(updated) => updated,
                Err(error) => return ToolOutput::error(error.to_string()),
            };
        let mut text = match &updated.task {
            Some(task) => format!(
                "Updated {}",
                super::line(&ctx.services.get::<rein_board::Board>().snapshot(), task)
            ),
            None => format!("Task #{id} deleted"),
        };
        if !updated.unblocked.is_empty() {
            let ids: Vec<String> = updated.unblocked.iter().map(|i| format!("#{i}")).collect();
            text.push_str(&format!("\nNow unblocked: {}", ids.join(", ")));
        }
        ToolOutput::ok(text)
    }
}

fn ids(list: Option<Vec<String>>) -> Vec<String> {
    list.unwrap_or_default()
        .into_iter()
        .map(|id| id.trim().trim_start_matches('#').to_string())
        .collect()
}
