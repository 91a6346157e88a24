//! `repo_map {focus?}`: an outline of the repository's most used definitions (file → line │
//! signature), ranked by how the code refers to itself and fitted to a token budget — aider's
//! repository map ([`rein_code::RepoMap`]). It reads only what the file tools may: sensitive
//! files and what `.gitignore` leaves out are not in it.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::typed::TypedTool;
use crate::{CallFacts, CallKind, Effect, ToolContext, ToolOutput, WorkspaceGuard};

/// The tool's name.
pub const REPO_MAP: &str = "repo_map";

/// The outline's default budget, in tokens.
pub const REPO_MAP_TOKENS: usize = 1000;

/// The `repo_map` tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoMapTool {
    /// Where each repository's tags are kept between builds (`None`: parsed each time).
    pub cache_dir: Option<PathBuf>,
    /// The outline's budget in tokens.
    pub budget: usize,
}

impl Default for RepoMapTool {
    fn default() -> Self {
        Self {
            cache_dir: None,
            budget: REPO_MAP_TOKENS,
        }
    }
}

/// `repo_map`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepoMapArgs {
    /// Files or symbols to centre on.
    #[serde(default)]
    pub focus: Vec<String>,
}

#[async_trait]
impl TypedTool for RepoMapTool {
    type Args = RepoMapArgs;
    const NAME: &'static str = REPO_MAP;
    const CLAUDE_NAME: &'static str = "RepoMap";
    const KIND: CallKind = CallKind::Search;
    const LEAN: crate::Lean = crate::Lean::LeftOut;

    fn description(&self) -> String {
        "Outline of the repository: its most used definitions (file, line, signature). \
         Use it to get your bearings."
            .into()
    }

    fn effect(&self, _args: &RepoMapArgs) -> Effect {
        Effect::ReadOnly
    }

    fn describe(&self, args: &RepoMapArgs, guard: &WorkspaceGuard, facts: &mut CallFacts) {
        facts
            .reads
            .push(crate::resolve_for_rules(".", guard.root(), guard));
        facts.summary = args.focus.join(", ");
    }

    async fn run(&self, args: RepoMapArgs, ctx: &ToolContext) -> ToolOutput {
        let tool = self.clone();
        let guard = ctx.guard.clone();
        let building = tokio::task::spawn_blocking(move || tool.build(&guard, args.focus));
        let built = tokio::select! {
            built = building => built,
            () = ctx.cancel.cancelled() => return ToolOutput::error("repo_map: cancelled"),
        };
        match built {
            Ok(Ok(build)) => ToolOutput::ok(shown(&build)),
            Ok(Err(e)) => ToolOutput::error(format!("repo_map: {e}")),
            Err(e) => ToolOutput::error(format!("repo_map failed: {e}")),
        }
    }
}

impl RepoMapTool {
    /// The map of `guard`'s workspace centred on `focus`, reading only what the guard lets
    /// the file tools read.
    fn build(
        &self,
        guard: &WorkspaceGuard,
        focus: Vec<String>,
    ) -> Result<rein_code::Build, rein_code::MapError> {
        let reader = guard.clone();
        let keep: rein_code::Keep = Arc::new(move |path| {
            reader.sensitive(path).is_none() && reader.sensitive_paths().hard_linked(path).is_none()
        });
        let options = rein_code::MapOptions {
            budget: self.budget,
            focus,
            ..rein_code::MapOptions::default()
        };
        rein_code::RepoMap::new(guard.root(), self.cache_dir.as_deref())
            .keeping(keep)
            .build(&options)
    }

    /// The outline as the tool shows it, or what went wrong (blocking: for the session's
    /// start).
    pub fn outline(&self, guard: &WorkspaceGuard, focus: Vec<String>) -> String {
        match self.build(guard, focus) {
            Ok(build) => shown(&build),
            Err(e) => format!("repo_map: {e}"),
        }
    }
}

/// The outline under a line that says what it covers.
fn shown(build: &rein_code::Build) -> String {
    if build.files == 0 {
        return "No source files in a language the map reads (Rust, Python, JavaScript, \
                TypeScript, Go, Java, C, C++, Ruby)."
            .into();
    }
    let more = if build.truncated { "+" } else { "" };
    format!(
        "{} of {} definitions in {}{more} files (~{} tokens):\n{}",
        build.shown, build.definitions, build.files, build.tokens, build.text
    )
}
