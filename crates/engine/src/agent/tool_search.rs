//! Deferred tools: when the tools beside the built-in ones (MCP servers') are many or large
//! (over [`DEFER_OVER_TOOLS`] tools or [`DEFER_OVER_BYTES`] bytes of definitions), requests
//! offer only their names and one-line descriptions, in the description of `tool_search`; the
//! model loads the ones it needs with it, and from then on they are offered in full. Claude
//! Code's deferred tools and codex's `tool_search` do the same, so the first request stays
//! small however many servers are configured. In the lean profile (small windows) every
//! sourced tool is deferred and the catalog is shorter ([`LEAN_CATALOG_CAP`]).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rein_protocol::ToolSpec;
use rein_tools::{
    CallFacts, CallKind, Effect, Tool, ToolContext, ToolOutput, ToolsProfile, WorkspaceGuard,
};
use serde_json::{Value, json};

/// The tool's name.
pub(super) const TOOL_SEARCH: &str = "tool_search";
/// More sourced tools than this are deferred.
const DEFER_OVER_TOOLS: usize = 30;
/// Sourced tool definitions larger than this (JSON bytes) are deferred.
const DEFER_OVER_BYTES: usize = 8_000;
/// Most bytes of the catalog in `tool_search`'s description.
const CATALOG_CAP: usize = 6_000;
/// The same in the lean profile.
const LEAN_CATALOG_CAP: usize = 1_200;
/// Most tools one search loads.
const MAX_LOADED_PER_SEARCH: usize = 5;

/// The deferred tools' definitions and which of them the model has loaded; shared with the
/// `tool_search` tool (and a subagent's).
#[derive(Debug, Clone, Default)]
pub(super) struct Deferred(Arc<Mutex<State>>);

#[derive(Debug, Default)]
struct State {
    specs: Vec<ToolSpec>,
    loaded: HashSet<String>,
    profile: ToolsProfile,
}

impl Deferred {
    /// None deferred yet, deciding and listing as `profile` has it.
    pub(super) fn new(profile: ToolsProfile) -> Self {
        Self(Arc::new(Mutex::new(State {
            profile,
            ..State::default()
        })))
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Defers `specs` when they are over the budget, or in the lean profile whenever there
    /// are any (a tool already loaded stays loaded); whether they are.
    pub(super) fn decide(&self, specs: Vec<ToolSpec>) -> bool {
        let bytes: usize = specs
            .iter()
            .map(|s| serde_json::to_string(s).map_or(0, |j| j.len()))
            .sum();
        let mut state = self.state();
        let defer = match state.profile {
            ToolsProfile::Full => specs.len() > DEFER_OVER_TOOLS || bytes > DEFER_OVER_BYTES,
            ToolsProfile::Lean => !specs.is_empty(),
        };
        state.specs = if defer { specs } else { Vec::new() };
        let names: HashSet<String> = state.specs.iter().map(|s| s.name.clone()).collect();
        state.loaded.retain(|name| names.contains(name));
        defer
    }

    /// Whether `name` is deferred and not loaded (left out of requests).
    pub(super) fn hides(&self, name: &str) -> bool {
        let state = self.state();
        !state.loaded.contains(name) && state.specs.iter().any(|s| s.name == name)
    }

    /// `tool_search`'s definition, listing the tools not loaded yet.
    pub(super) fn search_spec(&self) -> ToolSpec {
        let state = self.state();
        let mut description = String::from(
            "Loads the definitions of tools that are available but not loaded yet, so they can \
             be called. Search by a tool's exact name or by keywords; matching tools (at most \
             5) are loaded and can be called from the next step on. Not loaded yet:\n",
        );
        let (cap, line_chars) = match state.profile {
            ToolsProfile::Full => (CATALOG_CAP, 100),
            ToolsProfile::Lean => (LEAN_CATALOG_CAP, 60),
        };
        let mut left = 0;
        for spec in state
            .specs
            .iter()
            .filter(|s| !state.loaded.contains(&s.name))
        {
            let line = format!(
                "- {}: {}\n",
                spec.name,
                one_line(&spec.description, line_chars)
            );
            if left > 0 || description.len() + line.len() > cap {
                left += 1;
            } else {
                description.push_str(&line);
            }
        }
        if left > 0 {
            description.push_str(&format!("- and {left} more (search by keyword)\n"));
        }
        ToolSpec {
            name: TOOL_SEARCH.into(),
            description,
            input_schema: json!({
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "description": "A tool's exact name, or keywords from its name or description"
                    }
                },
                "required": ["query"],
                "additionalProperties": false
            }).into(),
        }
    }

    /// Loads the tools `query` names or matches; what the model is told.
    fn load(&self, query: &str) -> ToolOutput {
        let mut state = self.state();
        let query = query.trim().to_lowercase();
        // Short words ("a", "it") match nearly everything.
        let words: Vec<&str> = query.split_whitespace().filter(|w| w.len() > 2).collect();
        if query.is_empty() {
            return ToolOutput::error("give a tool's name or keywords in `query`");
        }
        let exact: Vec<&ToolSpec> = state
            .specs
            .iter()
            .filter(|s| s.name.to_lowercase() == query)
            .collect();
        let found: Vec<ToolSpec> = if exact.is_empty() {
            let mut scored: Vec<(usize, &ToolSpec)> = state
                .specs
                .iter()
                .map(|s| {
                    let hay = format!("{} {}", s.name, s.description).to_lowercase();
                    (words.iter().filter(|w| hay.contains(*w)).count(), s)
                })
                .filter(|(score, _)| *score > 0)
                .collect();
            scored.sort_by_key(|s| std::cmp::Reverse(s.0));
            scored
                .into_iter()
                .take(MAX_LOADED_PER_SEARCH)
                .map(|(_, s)| s.clone())
                .collect()
        } else {
            exact.into_iter().cloned().collect()
        };
        if found.is_empty() {
            return ToolOutput::error(format!(
                "no deferred tool matches `{query}`; the list is in this tool's description"
            ));
        }
        let mut text = format!(
            "Loaded {} tool(s); call them from the next step on:\n",
            found.len()
        );
        for spec in &found {
            state.loaded.insert(spec.name.clone());
            text.push_str(&format!(
                "\n## {}\n{}\nParameters: {}\n",
                spec.name, spec.description, spec.input_schema
            ));
        }
        ToolOutput::ok(text)
    }
}

/// The first line of `text`, at most `chars` characters.
fn one_line(text: &str, chars: usize) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    match line.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_string(),
    }
}

/// The `tool_search` tool.
pub(super) struct ToolSearch(pub(super) Deferred);

#[async_trait]
impl Tool for ToolSearch {
    fn spec(&self) -> ToolSpec {
        self.0.search_spec()
    }

    fn effect(&self, _args: &Value) -> Effect {
        Effect::ReadOnly
    }

    fn facts(&self, args: &Value, _guard: &WorkspaceGuard) -> CallFacts {
        let mut facts =
            CallFacts::new(TOOL_SEARCH, "ToolSearch", CallKind::Other, Effect::ReadOnly);
        facts.summary = query(args).to_string();
        facts
    }

    async fn call(&self, args: Value, _ctx: &ToolContext) -> ToolOutput {
        self.0.load(query(&args))
    }
}

fn query(args: &Value) -> &str {
    args.get("query").and_then(Value::as_str).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, description: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            input_schema: json!({"type": "object", "properties": {}}).into(),
        }
    }

    #[test]
    fn few_small_tools_are_not_deferred_many_are_and_a_search_loads_them() {
        let deferred = Deferred::default();
        assert!(!deferred.decide(vec![spec("mcp__a__x", "does x")]));
        assert!(!deferred.hides("mcp__a__x"));
        let many: Vec<ToolSpec> = (0..40)
            .map(|n| {
                spec(
                    &format!("mcp__gh__tool{n}"),
                    &format!("GitHub operation {n}"),
                )
            })
            .chain([spec(
                "mcp__gh__create_issue",
                "Creates an issue in a repository",
            )])
            .collect();
        assert!(deferred.decide(many.clone()));
        assert!(deferred.hides("mcp__gh__create_issue"));
        let listed = deferred.search_spec().description;
        assert!(
            listed.contains("- mcp__gh__create_issue: Creates an issue"),
            "{listed}"
        );

        let loaded = deferred.load("create issue");
        assert!(!loaded.is_error, "{}", loaded.text);
        assert!(
            loaded.text.starts_with("Loaded 1 tool(s)"),
            "{}",
            loaded.text
        );
        assert!(loaded.text.contains("Parameters: {"), "{}", loaded.text);
        assert!(!deferred.hides("mcp__gh__create_issue"));
        assert!(!deferred.search_spec().description.contains("create_issue"));
        assert!(
            deferred
                .load("MCP__GH__TOOL7")
                .text
                .contains("## mcp__gh__tool7")
        );
        assert!(deferred.load("nothing like it").is_error);
        // Loaded ones stay loaded when the list is taken again.
        assert!(deferred.decide(many));
        assert!(!deferred.hides("mcp__gh__tool7"));
    }

    #[test]
    fn the_catalog_stays_within_its_cap() {
        let deferred = Deferred::default();
        let long = "word ".repeat(60);
        deferred.decide(
            (0..500)
                .map(|n| spec(&format!("mcp__s__t{n}"), &long))
                .collect(),
        );
        let description = deferred.search_spec().description;
        assert!(
            description.len() <= CATALOG_CAP + 100,
            "{}",
            description.len()
        );
        assert!(description.contains("more (search by keyword)"));
    }

    #[test]
    fn the_lean_profile_defers_any_sourced_tool_and_lists_them_within_a_smaller_cap() {
        let deferred = Deferred::new(ToolsProfile::Lean);
        assert!(deferred.decide(vec![spec("mcp__a__x", "does x")]));
        assert!(deferred.hides("mcp__a__x"));
        let long = "word ".repeat(60);
        deferred.decide(
            (0..500)
                .map(|n| spec(&format!("mcp__s__t{n}"), &long))
                .collect(),
        );
        let description = deferred.search_spec().description;
        assert!(
            description.len() <= LEAN_CATALOG_CAP + 100,
            "{}",
            description.len()
        );
        assert!(description.contains("more (search by keyword)"));
        assert!(!Deferred::new(ToolsProfile::Lean).decide(Vec::new()));
    }
}
