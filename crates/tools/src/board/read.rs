//! `task_get {taskId}` and `task_list {}`.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{Effect, ToolContext, ToolOutput, TypedTool};

/// Arguments of `task_get`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskGetArgs {
    /// Task id.
    #[serde(rename = "taskId")]
    pub task_id: String,
}

/// The `task_get` tool.
#[derive(Debug, Default)]
pub struct TaskGet;

#[async_trait]
impl TypedTool for TaskGet {
    type Args = TaskGetArgs;
    const NAME: &'static str = "task_get";
    const CLAUDE_NAME: &'static str = "TaskGet";
    const LEAN: crate::Lean = crate::Lean::LeftOut;

    fn description(&self) -> String {
        "Shows one task in full (description, blockers, what it blocks).".to_string()
    }

    fn schema(&self) -> serde_json::Value {
        super::object(&[("taskId", "Task id.", super::string())], &["taskId"])
    }

    fn effect(&self, _args: &TaskGetArgs) -> Effect {
        Effect::ReadOnly
    }

    async fn run(&self, args: TaskGetArgs, ctx: &ToolContext) -> ToolOutput {
        let id = args.task_id.trim().trim_start_matches('#');
        match ctx.services.get::<rein_board::Board>().get(id) {
            Ok(task) => {
                ToolOutput::ok(super::full(&ctx.services.get::<rein_board::Board>(), &task))
            }
            Err(error) => ToolOutput::error(error.to_string()),
        }
    }
}

/// Arguments of `task_list` (none).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskListArgs {}

/// The `task_list` tool.
#[derive(Debug, Default)]
pub struct TaskList;

#[async_trait]
impl TypedTool for TaskList {
    type Args = TaskListArgs;
    const NAME: &'static str = "task_list";
    const CLAUDE_NAME: &'static str = "TaskList";
    const LEAN: crate::Lean = crate::Lean::LeftOut;

    fn description(&self) -> String {
        "Lists the task board (id, status, subject, owner, open blockers) and the tasks ready \
         to start."
            .to_string()
    }

    fn schema(&self) -> serde_json::Value {
        super::object(&[], &[])
    }

    fn effect(&self, _args: &TaskListArgs) -> Effect {
        Effect::ReadOnly
    }

    async fn run(&self, _args: TaskListArgs, ctx: &ToolContext) -> ToolOutput {
        ToolOutput::ok(super::render(&ctx.services.get::<rein_board::Board>()))
    }
}
