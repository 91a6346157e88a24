//! The tools an agent offers: the registry (built-in tools, the agent's own — `task`, `skill`,
//! `exit_plan_mode`, `compact` — and the sourced ones), which of the sourced tools are
//! deferred behind `tool_search`, and what the `compact` tool asked for. Sourced tools (an MCP
//! server's) may change during a session: they are brought up to date before each model
//! request, the change announced as an event.

use std::sync::Arc;

use rein_protocol::{Event, ToolSpec};
use rein_tools::{ToolRegistry, ToolSource, ToolsProfile};

use super::compact_tool::{CompactRequest, CompactTool};
use super::tool_search::{Deferred, TOOL_SEARCH, ToolSearch};
use super::{AgentConfig, setup};
use crate::EventSender;
use crate::emitter::Emitter;
use crate::plan::PLAN_TOOL;
use crate::subagents::Spawner;
use rein_policy::PermissionMode;

/// The agent's tools.
pub(super) struct Toolset {
    pub(super) registry: ToolRegistry,
    /// The names of the tools `config.tool_source` gave (replaced when they change).
    pub(super) sourced: Vec<String>,
    /// Those of them left out of requests until the model loads them (`tool_search`).
    pub(super) deferred: Deferred,
    /// Where the `compact` tool leaves its request, when it is offered.
    pub(super) compact_asked: Option<CompactRequest>,
    /// How much of the tools' definitions requests carry.
    pub(super) profile: ToolsProfile,
    /// The lead's team: its `send_message` is offered once a teammate has started.
    team: Option<Arc<crate::subagents::Team>>,
    /// Where `enter_worktree`/`exit_worktree` leave the session's next root (the main
    /// agent's, in a git repository).
    pub(super) place: Option<super::worktree_tools::Shared>,
}

impl Toolset {
    /// `tools` with the sourced tools and the agent's own added as `config` says; the
    /// spawner of the `task` tool, when subagents are configured.
    pub(super) fn new(
        mut tools: ToolRegistry,
        config: &AgentConfig,
        answerer: &crate::questions::AnswererSlot,
        schedule: &rein_schedule::Schedule,
    ) -> (Self, Option<Arc<Spawner>>) {
        let deferred = Deferred::new(config.tools_profile);
        let sourced = match &config.tool_source {
            Some(source) => add_sourced(&mut tools, source.as_ref(), &[], &deferred),
            None => Vec::new(),
        };
        // Before the subagents take their copy: they may ask the user too.
        let shape = if rein_tools::codex_trained(&config.model) {
            crate::questions::Shape::Codex
        } else {
            crate::questions::Shape::Claude
        };
        tools.register(Arc::new(crate::questions::QuestionTool {
            shape,
            answerer: Arc::clone(answerer),
        }));
        // Before the subagents take their copy: they keep the same memory.
        if let Some(root) = &config.memory_root {
            let store = crate::auto_memory::MemoryStore::for_workspace(root, &config.workspace);
            tools.register(Arc::new(crate::auto_memory::MemoryTool(store)));
        }
        // Before the subagents take their copy: they read the web too.
        if let Some(web) = &config.web {
            let models = config.subagents.as_ref().and_then(|s| s.models.clone());
            crate::web::register(&mut tools, web, models);
        }
        let spawner = setup::add_delegating_tools(&mut tools, config);
        tools.register(Arc::new(crate::plan::ExitPlanMode));
        rein_tools::schedule::register(&mut tools, schedule);
        let place = crate::worktree::in_repository(&config.workspace).then(|| {
            let place = super::worktree_tools::Shared::default();
            tools.register(Arc::new(super::worktree_tools::EnterWorktree {
                place: Arc::clone(&place),
                base: config.worktree_base,
            }));
            tools.register(Arc::new(super::worktree_tools::ExitWorktree(Arc::clone(
                &place,
            ))));
            place
        });
        let compact_asked = config.compact_tool.then(|| {
            let asked = CompactRequest::default();
            tools.register(Arc::new(CompactTool(Arc::clone(&asked))));
            asked
        });
        let toolset = Self {
            registry: tools,
            sourced,
            deferred,
            compact_asked,
            profile: config.tools_profile,
            team: spawner.as_ref().map(|s| Arc::clone(&s.team)),
            place,
        };
        (toolset, spawner)
    }

    /// A subagent's tools: `tools`, whose `tool_search` loads into the parent's `deferred`,
    /// offered in the parent's `profile`.
    pub(super) fn for_subagent(
        tools: ToolRegistry,
        deferred: Deferred,
        profile: ToolsProfile,
    ) -> Self {
        Self {
            registry: tools,
            sourced: Vec::new(),
            deferred,
            compact_asked: None,
            profile,
            team: None,
            place: None,
        }
    }

    /// The tool definitions a request offers in `mode`, as the profile has them:
    /// `exit_plan_mode` only in plan mode, deferred tools only once loaded, `tool_search`
    /// listing the others.
    pub(super) fn offered(&self, mode: PermissionMode) -> Vec<ToolSpec> {
        let mut specs = self.registry.specs_for(self.profile);
        specs.retain(|s| self.is_offered(&s.name, mode));
        for spec in &mut specs {
            if spec.name == TOOL_SEARCH {
                *spec = self.deferred.search_spec();
            }
        }
        specs
    }

    /// The length of [`Toolset::offered`] as JSON, without building it: each tool's spec is
    /// serialised once (by the registry) rather than cloned and serialised at every estimate.
    pub(super) fn offered_bytes(&self, mode: PermissionMode) -> usize {
        let lengths: Vec<usize> = self
            .registry
            .spec_lengths(self.profile)
            .filter(|(name, _)| self.is_offered(name, mode))
            .map(|(name, len)| match name == TOOL_SEARCH {
                true => serde_json::to_string(&self.deferred.search_spec()).map_or(0, |s| s.len()),
                false => len,
            })
            .collect();
        // `[`, `]` and a comma between two specs.
        2 + lengths.iter().sum::<usize>() + lengths.len().saturating_sub(1)
    }

    /// Whether tool `name` goes into a request in `mode`.
    fn is_offered(&self, name: &str, mode: PermissionMode) -> bool {
        (mode == PermissionMode::Plan || name != PLAN_TOOL)
            && !self.deferred.hides(name)
            && (name != crate::subagents::SEND_TOOL
                || self.team.as_ref().is_none_or(|team| team.has_members()))
    }

    /// Takes `source`'s new tools when they changed, saying which came and went.
    pub(super) async fn refresh(&mut self, source: &dyn ToolSource, events: &EventSender) {
        if !source.refresh().await {
            return;
        }
        let before = std::mem::take(&mut self.sourced);
        self.sourced = add_sourced(&mut self.registry, source, &before, &self.deferred);
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

/// Registers `source`'s tools in place of those named `before`, deferred when they are over
/// the budget (then `tool_search` is offered to load them); their names.
fn add_sourced(
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
        tools.register(Arc::new(ToolSearch(deferred.clone())));
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toolset(config: &AgentConfig) -> Toolset {
        let schedule =
            rein_schedule::Schedule::in_memory(Arc::new(rein_schedule::SystemClock), "test");
        Toolset::new(
            ToolRegistry::builtin(),
            config,
            &Default::default(),
            &schedule,
        )
        .0
    }

    #[test]
    fn offered_bytes_is_the_length_of_the_offered_specs_as_json() {
        let mut config = AgentConfig::new("claude-sonnet-4-5", std::env::temp_dir());
        config.compact_tool = true;
        for profile in [ToolsProfile::Full, ToolsProfile::Lean] {
            config.tools_profile = profile;
            let toolset = toolset(&config);
            for mode in [PermissionMode::Default, PermissionMode::Plan] {
                let offered = toolset.offered(mode);
                let json = serde_json::to_string(&offered).unwrap_or_default();
                assert_eq!(
                    toolset.offered_bytes(mode),
                    json.len(),
                    "{profile:?} {mode:?}"
                );
            }
        }
        config.tools_profile = ToolsProfile::Full;
        let toolset = toolset(&config);
        // Plan mode offers one tool more, so the two lengths differ.
        assert_ne!(
            toolset.offered_bytes(PermissionMode::Default),
            toolset.offered_bytes(PermissionMode::Plan)
        );
    }
}
