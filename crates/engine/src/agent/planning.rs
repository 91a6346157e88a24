//! Plan mode in the loop: `exit_plan_mode` is offered only in plan mode, and with nobody to
//! approve a plan (`rein exec`) the plan the model presents is the run's answer.

use rein_protocol::{ContentBlock, ToolSpec};

use crate::dispatch::ToolCall;
use crate::plan::{PLAN_TOOL, plan_of};
use rein_policy::PermissionMode;

impl super::Agent {
    /// The tools a request offers: all but `exit_plan_mode` outside plan mode and deferred
    /// tools not loaded yet (`tool_search` lists those as they are now).
    pub(super) fn offered_specs(&self) -> Vec<ToolSpec> {
        let mode = self.gate.policy().mode;
        self.toolset.offered(mode)
    }

    /// The length of [`Self::offered_specs`] as JSON.
    pub(super) fn offered_specs_bytes(&self) -> usize {
        let mode = self.gate.policy().mode;
        self.toolset.offered_bytes(mode)
    }

    /// With nobody to approve it, the plan of an `exit_plan_mode` call among `calls` (the
    /// others get results saying they were not run, so the transcript stays valid).
    pub(super) fn plan_as_answer(&mut self, calls: &[ToolCall]) -> Option<String> {
        if self.gate.approver.is_some() || self.gate.policy().mode != PermissionMode::Plan {
            return None;
        }
        let plan = calls
            .iter()
            .find(|c| c.name == PLAN_TOOL)
            .map(|c| plan_of(&c.input).to_string())
            .filter(|p| !p.is_empty())?;
        let results = calls
            .iter()
            .map(|c| ContentBlock::ToolResult {
                tool_use_id: c.id.clone(),
                content: if c.name == PLAN_TOOL {
                    "The plan was handed to the user as this run's answer.".into()
                } else {
                    "Not run: the plan ended this run.".into()
                },
                is_error: c.name != PLAN_TOOL,
                media: Vec::new(),
            })
            .collect();
        self.push_recorded_user_blocks(results);
        Some(plan)
    }
}
