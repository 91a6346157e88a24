//! The agent's side of sub-folder memory files ([`crate::memory`]): a call that succeeded
//! brings those of the folders it touched, by its facts, with its result.

use std::sync::Arc;

use rein_protocol::ContentBlock;
use rein_tools::CallFacts;

use super::Agent;
use crate::EventSender;
use crate::emitter::Emitter;

impl Agent {
    /// Adds the memory files of folders the calls touched for the first time to their
    /// results; `touched` holds each call's facts (`None`: it did not run), in call order.
    pub(super) fn add_folder_memory(
        &mut self,
        touched: &[Option<Arc<CallFacts>>],
        results: &mut [ContentBlock],
        events: &EventSender,
    ) {
        let guard = self.tool_ctx.guard.clone();
        let mut warnings = Vec::new();
        for (facts, block) in touched.iter().zip(results.iter_mut()) {
            // Only a call that succeeded has shown the model that folder.
            let (
                Some(facts),
                ContentBlock::ToolResult {
                    content,
                    is_error: false,
                    ..
                },
            ) = (facts, block)
            else {
                continue;
            };
            if let Some(memory) = self
                .folder_memory
                .newly_relevant(facts, &guard, &mut warnings)
            {
                content.push_str("\n\n");
                content.push_str(&memory);
            }
        }
        for message in warnings {
            events.error(message);
        }
    }
}
