//! The `glob` tool: files matching a pattern, newest first.

use std::sync::Mutex;

use async_trait::async_trait;
use globset::GlobBuilder;
use ignore::WalkState;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{modified, search_root, usable_file, walker};
use crate::{CallFacts, CallKind, Effect, ToolContext, ToolOutput, TypedTool, WorkspaceGuard};

/// Most paths listed; the total is stated when there are more.
pub const MAX_GLOB_RESULTS: usize = 100;

/// Arguments of `glob`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GlobArgs {
    /// Glob pattern, e.g. `**/*.rs` or `src/**/*.{ts,tsx}`. A pattern without `/` matches file
    /// names at any depth (`*.md` finds every Markdown file).
    pub pattern: String,
    /// Folder to search, relative to the workspace root (default: the root).
    pub path: Option<String>,
}

/// The `glob` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct Glob;

#[async_trait]
impl TypedTool for Glob {
    type Args = GlobArgs;
    const NAME: &'static str = "glob";
    const CLAUDE_NAME: &'static str = "Glob";
    const KIND: CallKind = CallKind::Search;
    const LEAN: crate::Lean = crate::Lean::Short {
        description: "Finds files by glob (`**/*.rs`; `*.md` at any depth), newest first, \
                      skipping what .gitignore ignores.",
        arguments: &[("pattern", ""), ("path", "Folder (default: the root)")],
    };

    fn description(&self) -> String {
        format!(
            "Finds files by glob pattern (`**/*.rs`, `src/**/*.{{ts,tsx}}`, `*.md` at any depth), \
             newest first, skipping what .gitignore ignores. Lists at most {MAX_GLOB_RESULTS} \
             paths and states the total. Use grep to search file contents."
        )
    }

    fn effect(&self, _args: &GlobArgs) -> Effect {
        Effect::ReadOnly
    }

    fn describe(&self, args: &GlobArgs, guard: &WorkspaceGuard, facts: &mut CallFacts) {
        let path = args.path.as_deref().unwrap_or(".");
        facts
            .reads
            .push(crate::resolve_for_rules(path, guard.root(), guard));
        facts.summary = match &args.path {
            Some(path) => format!("{} in {path}", args.pattern),
            None => args.pattern.clone(),
        };
    }

    async fn run(&self, args: GlobArgs, ctx: &ToolContext) -> ToolOutput {
        let guard = ctx.guard.clone();
        match tokio::task::spawn_blocking(move || glob(&args, &guard)).await {
            Ok(output) => output,
            Err(e) => ToolOutput::error(format!("glob failed: {e}")),
        }
    }
}

fn glob(args: &GlobArgs, guard: &crate::WorkspaceGuard) -> ToolOutput {
    let root = match search_root(args.path.as_deref(), guard) {
        Ok(root) => root,
        Err(e) => return ToolOutput::error(e),
    };
    let pattern = args.pattern.trim().trim_start_matches("./");
    let pattern = if pattern.contains('/') {
        pattern.to_string()
    } else {
        format!("**/{pattern}")
    };
    let matcher = match GlobBuilder::new(&pattern).literal_separator(true).build() {
        Ok(glob) => glob.compile_matcher(),
        Err(e) => {
            return ToolOutput::error(format!("invalid glob pattern {:?}: {e}", args.pattern));
        }
    };
    let found = Mutex::new(Vec::new());
    walker(&root).build_parallel().run(|| {
        let (matcher, found, root) = (&matcher, &found, &root);
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            let relative = entry.path().strip_prefix(root).unwrap_or(entry.path());
            if matcher.is_match(relative)
                && let Some(path) = usable_file(&entry, guard)
            {
                let when = modified(&path);
                if let Ok(mut found) = found.lock() {
                    found.push((when, path));
                }
            }
            WalkState::Continue
        })
    });
    let mut found = found.into_inner().unwrap_or_default();
    if found.is_empty() {
        return ToolOutput::ok(format!(
            "No files match {:?} (searched {}).",
            args.pattern,
            guard.display(&root)
        ));
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let total = found.len();
    let mut out: Vec<String> = found
        .iter()
        .take(MAX_GLOB_RESULTS)
        .map(|(_, path)| guard.display(path))
        .collect();
    if total > MAX_GLOB_RESULTS {
        out.push(format!(
            "(showing {MAX_GLOB_RESULTS} of {total} files, newest first; narrow the pattern or path)"
        ));
    }
    ToolOutput::ok(out.join("\n"))
}
