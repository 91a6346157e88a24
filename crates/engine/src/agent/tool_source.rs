//! Tools beside the built-in ones that may change during a session (an MCP server's, when it
//! says its list changed): taken when the agent is made, brought up to date before each model
//! request, the change announced as an event.

use rein_protocol::Event;
use rein_tools::{ToolRegistry, ToolSource};

use super::Agent;
use super::tool_search::{Deferred, TOOL_SEARCH, ToolSearch};
use crate::EventSender;
use crate::emitter::Emitter;

/// Registers `source`'s tools in place of those named `before`, deferred when they are over
/// the budget (then `tool_search` is offered to load them); their names.
pub(super) fn add_sourced(
    tools: &mut ToolRegistry,
    source: &dyn ToolSource,
    before: &[String],
    deferred: &Deferred,
) -> Vec<String> {
    tools.remove(before);
    tools.remove(&[TOOL_SEARCH.to_string()]);
    let added = source.tools(&tools.names());
    let specs: Vec<_> = added.iter().map(|t| t.spec()).collect();
    let names = specs.iter().map(|s| s.name.clone()).collect();
    for tool in added {
        tools.register(tool);
    }
    if deferred.decide(specs) {
        tools.register(std::sync::Arc::new(ToolSearch(deferred.clone())));
    }
    names
}

impl Agent {
    /// Takes the source's new tools when they changed, saying which came and went.
    pub(super) async fn refresh_tools(&mut self, events: &EventSender) {
        let Some(source) = self.config.tool_source.clone() else {
            return;
        };
        if !source.refresh().await {
            return;
        }
        let before = std::mem::take(&mut self.sourced);
        self.sourced = add_sourced(&mut self.tools, source.as_ref(), &before, &self.deferred);
        let added: Vec<String> = self
            .sourced
            .iter()
            .filter(|name| !before.contains(name))
            .cloned()
            .collect();
        let removed: Vec<String> = before
            .iter()
            .filter(|name| !self.sourced.contains(name))
            .cloned()
            .collect();
        if !added.is_empty() || !removed.is_empty() {
            events.emit(Event::ToolsChanged { added, removed });
        }
    }
}
