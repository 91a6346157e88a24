//! The tool registry: the tools a session offers, argument validation and dispatch.

use std::sync::{Arc, OnceLock};

use rein_protocol::ToolSpec;
use serde_json::Value;

use crate::schema::{SchemaError, Validator};
use crate::{
    CallFacts, CallKind, Effect, Tool, ToolContext, ToolOutput, TypedTool, WorkspaceGuard,
};

/// Most validation problems listed in one error result; the model fixes a few at a time.
const MAX_REPORTED_PROBLEMS: usize = 5;

/// One registered tool with its spec and its argument validator, compiled at the tool's first
/// call: compiling every tool's schema at start-up was a sixth of a whole short run's work.
struct Entry {
    tool: Arc<dyn Tool>,
    spec: ToolSpec,
    /// `Err` holds why the tool's own schema cannot be used (a bug in the tool).
    validator: OnceLock<Result<Validator, SchemaError>>,
    /// The spec's length as JSON, once asked.
    spec_len: OnceLock<usize>,
    /// The lean profile's spec's length as JSON (`None`: left out), once asked.
    lean_len: OnceLock<Option<usize>>,
}

impl Entry {
    fn validator(&self) -> &Result<Validator, SchemaError> {
        self.validator
            .get_or_init(|| Validator::new(&self.spec.input_schema))
    }
}

/// Builds one tool.
/// Builds a tool; the tools that start or reach interactive sessions share the registry's
/// table.
type Build = fn(&crate::Terminals) -> Arc<dyn Tool>;

/// The built-in tools, by name and Claude Code's name, each built when asked for.
const BUILTIN: [(&str, &str, Build); 18] = [
    (
        <crate::Bash as TypedTool>::NAME,
        <crate::Bash as TypedTool>::CLAUDE_NAME,
        |t| crate::typed(crate::Bash::new().with_terminals(t.clone())),
    ),
    (
        <crate::ReadFile as TypedTool>::NAME,
        <crate::ReadFile as TypedTool>::CLAUDE_NAME,
        |_| crate::typed(crate::ReadFile),
    ),
    (
        <crate::media::ViewImage as TypedTool>::NAME,
        <crate::media::ViewImage as TypedTool>::CLAUDE_NAME,
        |_| crate::typed(crate::media::ViewImage),
    ),
    (
        <crate::WriteFile as TypedTool>::NAME,
        <crate::WriteFile as TypedTool>::CLAUDE_NAME,
        |_| crate::typed(crate::WriteFile),
    ),
    (
        <crate::EditFile as TypedTool>::NAME,
        <crate::EditFile as TypedTool>::CLAUDE_NAME,
        |_| crate::typed(crate::EditFile),
    ),
    (
        <crate::NotebookEdit as TypedTool>::NAME,
        <crate::NotebookEdit as TypedTool>::CLAUDE_NAME,
        |_| crate::typed(crate::NotebookEdit),
    ),
    (
        <crate::ApplyPatch as TypedTool>::NAME,
        <crate::ApplyPatch as TypedTool>::CLAUDE_NAME,
        |_| crate::typed(crate::ApplyPatch),
    ),
    (
        <crate::Glob as TypedTool>::NAME,
        <crate::Glob as TypedTool>::CLAUDE_NAME,
        |_| crate::typed(crate::Glob),
    ),
    (
        <crate::Grep as TypedTool>::NAME,
        <crate::Grep as TypedTool>::CLAUDE_NAME,
        |_| crate::typed(crate::Grep),
    ),
    (
        <crate::RepoMapTool as TypedTool>::NAME,
        <crate::RepoMapTool as TypedTool>::CLAUDE_NAME,
        |_| crate::typed(crate::RepoMapTool::default()),
    ),
    (
        <crate::BashOutput as TypedTool>::NAME,
        <crate::BashOutput as TypedTool>::CLAUDE_NAME,
        |_| crate::typed(crate::BashOutput),
    ),
    (
        <crate::KillShell as TypedTool>::NAME,
        <crate::KillShell as TypedTool>::CLAUDE_NAME,
        |t| crate::typed(crate::KillShell::new(t.clone())),
    ),
    (
        <crate::WriteStdin as TypedTool>::NAME,
        <crate::WriteStdin as TypedTool>::CLAUDE_NAME,
        |t| crate::typed(crate::WriteStdin::new(t.clone())),
    ),
    (
        <crate::TodoWrite as TypedTool>::NAME,
        <crate::TodoWrite as TypedTool>::CLAUDE_NAME,
        |_| crate::typed(crate::TodoWrite),
    ),
    (
        <crate::TaskCreate as TypedTool>::NAME,
        <crate::TaskCreate as TypedTool>::CLAUDE_NAME,
        |_| crate::typed(crate::TaskCreate),
    ),
    (
        <crate::TaskGet as TypedTool>::NAME,
        <crate::TaskGet as TypedTool>::CLAUDE_NAME,
        |_| crate::typed(crate::TaskGet),
    ),
    (
        <crate::TaskList as TypedTool>::NAME,
        <crate::TaskList as TypedTool>::CLAUDE_NAME,
        |_| crate::typed(crate::TaskList),
    ),
    (
        <crate::TaskUpdate as TypedTool>::NAME,
        <crate::TaskUpdate as TypedTool>::CLAUDE_NAME,
        |_| crate::typed(crate::TaskUpdate),
    ),
];

/// The tools offered to the model, in registration order.
///
/// [`ToolRegistry::call`] validates the arguments against the tool's schema before the tool
/// runs; unknown tools and invalid arguments come back as error results the model can act on.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use rein_tools::{ToolContext, ToolRegistry, WorkspaceGuard};
/// let registry = ToolRegistry::builtin();
/// assert!(registry.names().contains(&"bash".to_string()));
/// let ctx = ToolContext::new(WorkspaceGuard::new(&std::env::temp_dir())?);
/// let out = registry.call("bash", serde_json::json!({}), &ctx).await;
/// assert!(out.is_error);
/// assert_eq!(out.text, "invalid arguments for bash: \"command\" is a required property");
/// # Ok(()) }
/// ```
#[derive(Default)]
pub struct ToolRegistry {
    entries: Vec<Entry>,
    /// The interactive sessions of the built-in tools (one table per rein session; a subset
    /// shares it).
    terminals: crate::Terminals,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names())
            .finish()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// The built-in tools.
    pub fn builtin() -> Self {
        Self::builtin_only(|_| true)
    }

    /// The built-in tools whose names `keep` accepts, in the usual order; the others are not
    /// built (building a tool derives its schema).
    pub fn builtin_only(keep: impl Fn(&str) -> bool) -> Self {
        let mut registry = Self::new();
        for (_, _, build) in BUILTIN.iter().filter(|(name, _, _)| keep(name)) {
            registry.register(build(&registry.terminals));
        }
        registry
    }

    /// The built-in tools' names, in the usual order, without building them.
    pub fn builtin_names() -> impl Iterator<Item = &'static str> {
        BUILTIN.iter().map(|(name, _, _)| *name)
    }

    /// Claude Code's name for the built-in tool `name` (`read_file` → `Read`).
    pub fn claude_name(name: &str) -> Option<&'static str> {
        BUILTIN
            .iter()
            .find(|(builtin, _, _)| *builtin == name)
            .map(|(_, claude, _)| *claude)
    }

    /// The built-in tools suited to `model`: models trained on Codex's patch format (OpenAI's
    /// GPT and o-series, Codex) get `apply_patch` instead of `edit_file` and `write_file`, and
    /// codex's `view_image`;
    /// every other model gets the latter. No model is offered `todo_write`: the task board's
    /// tools plan the work.
    pub fn for_model(model: &str) -> Self {
        // The task board's tools replace `todo_write`'s list, as Claude Code's `Task*` tools
        // replaced `TodoWrite`; it stays a built-in tool writing to the same board. Tools
        // left out are not built (building one derives its schema).
        let drop: &[&str] = if codex_trained(model) {
            &["edit_file", "write_file", "todo_write"]
        } else {
            &["apply_patch", "view_image", "todo_write"]
        };
        let mut registry = Self::builtin_only(|name| !drop.contains(&name));
        if codex_trained(model) {
            // codex's interactive commands, in its shapes (`write_stdin` replaced in place).
            let terminals = registry.terminals.clone();
            registry.register(crate::typed(crate::ExecCommand::new(terminals.clone())));
            registry.register(crate::typed(crate::CodexWriteStdin::new(terminals)));
        }
        registry
    }

    /// The interactive sessions its tools started (for `/tasks`, and to end them).
    pub fn terminals(&self) -> &crate::Terminals {
        &self.terminals
    }

    /// Adds a tool; a tool with the same name is replaced in place.
    pub fn register(&mut self, tool: Arc<dyn Tool>) {
        let entry = Entry {
            spec: tool.spec(),
            tool,
            validator: OnceLock::new(),
            spec_len: OnceLock::new(),
            lean_len: OnceLock::new(),
        };
        match self
            .entries
            .iter_mut()
            .find(|e| e.spec.name == entry.spec.name)
        {
            Some(existing) => *existing = entry,
            None => self.entries.push(entry),
        }
    }

    /// Removes the tools named in `names`.
    pub fn remove(&mut self, names: &[String]) {
        self.entries.retain(|e| !names.contains(&e.spec.name));
    }

    /// The tools whose names `keep` accepts, in the same order (the subset a subagent gets).
    pub fn subset(&self, keep: impl Fn(&str) -> bool) -> Self {
        let mut subset = Self::new();
        subset.terminals = self.terminals.clone();
        for entry in self.entries.iter().filter(|e| keep(&e.spec.name)) {
            subset.register(Arc::clone(&entry.tool));
        }
        subset
    }

    /// The specs of all tools, in registration order.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.entries.iter().map(|e| e.spec.clone()).collect()
    }

    /// Each tool [`ToolRegistry::specs_for`] offers in `profile`: its name and the length of
    /// its spec as JSON (`serde_json::to_string`), in registration order; a spec is
    /// serialised once per profile, at the first ask.
    pub fn spec_lengths(
        &self,
        profile: crate::ToolsProfile,
    ) -> impl Iterator<Item = (&str, usize)> + '_ {
        self.entries.iter().filter_map(move |e| {
            let json_len = |spec: &ToolSpec| serde_json::to_string(spec).map_or(0, |s| s.len());
            let len = match profile {
                crate::ToolsProfile::Full => Some(*e.spec_len.get_or_init(|| json_len(&e.spec))),
                crate::ToolsProfile::Lean => *e
                    .lean_len
                    .get_or_init(|| e.tool.lean().apply(&e.spec).as_ref().map(json_len)),
            };
            len.map(|len| (e.spec.name.as_str(), len))
        })
    }

    /// The specs `profile` offers, in registration order: in the lean profile, each tool as
    /// its [`crate::Lean`] entry says (shorter, or left out).
    pub fn specs_for(&self, profile: crate::ToolsProfile) -> Vec<ToolSpec> {
        match profile {
            crate::ToolsProfile::Full => self.specs(),
            crate::ToolsProfile::Lean => self
                .entries
                .iter()
                .filter_map(|e| e.tool.lean().apply(&e.spec))
                .collect(),
        }
    }

    /// The names of all tools, in registration order.
    pub fn names(&self) -> Vec<String> {
        self.entries.iter().map(|e| e.spec.name.clone()).collect()
    }

    /// The effect of calling `name` with `args`; [`Effect::Mutating`] for unknown tools.
    pub fn effect(&self, name: &str, args: &Value) -> Effect {
        self.entry(name)
            .map_or(Effect::Mutating, |e| e.tool.effect(args))
    }

    /// What calling `name` with `args` touches, computed once per call for the permission
    /// policy, hooks, events and front ends. An unknown tool is an opaque mutating call.
    pub fn facts(&self, name: &str, args: &Value, guard: &WorkspaceGuard) -> CallFacts {
        match self.entry(name) {
            Some(entry) => entry.tool.facts(args, guard),
            None => CallFacts::new(name, name, CallKind::Other, Effect::Mutating),
        }
    }

    /// Why `args` cannot be `name`'s arguments (its schema's complaint), if they cannot: a call
    /// that could never run is refused before anyone is asked about it.
    pub fn invalid(&self, name: &str, args: &Value) -> Option<String> {
        let entry = self.entry(name)?;
        let validator = entry.validator().as_ref().ok()?;
        validation_problems(validator, args)
            .map(|problems| format!("invalid arguments for {name}: {problems}"))
    }

    /// The change a call would make to files (see [`Tool::preview`]); none for an unknown tool.
    pub fn preview(
        &self,
        name: &str,
        args: &Value,
        guard: &WorkspaceGuard,
    ) -> Vec<crate::FileChange> {
        self.entry(name)
            .map(|entry| entry.tool.preview(args, guard))
            .unwrap_or_default()
    }

    /// Validates `args` against the tool's schema, then runs the tool. Unknown tools and
    /// invalid arguments give error results naming what to fix.
    pub async fn call(&self, name: &str, args: Value, ctx: &ToolContext) -> ToolOutput {
        let Some(entry) = self.entry(name) else {
            return ToolOutput::error(format!(
                "unknown tool {name:?}; available tools: {}",
                self.names().join(", ")
            ));
        };
        match entry.validator() {
            Ok(validator) => {
                if let Some(problems) = validation_problems(validator, &args) {
                    return ToolOutput::error(format!("invalid arguments for {name}: {problems}"));
                }
            }
            Err(e) => {
                return ToolOutput::error(format!(
                    "tool {name} cannot be called: its argument schema is invalid ({e})"
                ));
            }
        }
        let output = entry.tool.call(args, ctx).await;
        // The errors a change brought, as the language servers see them.
        let mut output = ctx
            .services
            .get::<crate::Code>()
            .after_call(output, ctx)
            .await;
        // A provider key a command printed is neither saved nor shown to the model.
        if let std::borrow::Cow::Owned(redacted) = ctx.hidden_env.redact(&output.text) {
            output.text = redacted;
        }
        ctx.budget.apply(name, output)
    }

    fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.spec.name == name)
    }
}

/// The validation errors of `args`, joined with `; `, each prefixed with where it is when
/// that is not the top level; `None` when valid.
fn validation_problems(validator: &Validator, args: &Value) -> Option<String> {
    let found = validator.problems(args);
    if found.is_empty() {
        return None;
    }
    let mut problems: Vec<String> = found
        .iter()
        .take(MAX_REPORTED_PROBLEMS)
        .map(|problem| {
            if problem.at.is_empty() {
                problem.message.clone()
            } else {
                format!("at {}: {}", problem.at, problem.message)
            }
        })
        .collect();
    if found.len() > problems.len() {
        problems.push(format!("and {} more", found.len() - problems.len()));
    }
    Some(problems.join("; "))
}

/// Whether `model` (a name, maybe behind a `provider/` prefix) is one of the models trained on
/// codex's tools (`apply_patch`, `request_user_input`): GPT, codex and o-series models.
pub fn codex_trained(model: &str) -> bool {
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    name.starts_with("gpt-")
        || name.contains("codex")
        || ["o1", "o3", "o4"]
            .iter()
            .any(|p| name == *p || name.starts_with(&format!("{p}-")))
}
