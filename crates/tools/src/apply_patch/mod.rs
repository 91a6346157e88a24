//! The `apply_patch` tool: Codex's `*** Begin Patch` format, for models trained on it.

mod apply;
mod parse;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{
    CallFacts, CallKind, Effect, FileChange, ToolContext, ToolDetails, ToolOutput, TypedTool,
    WorkspaceGuard,
};
use apply::Resolved;
use parse::Operation;

/// Arguments of `apply_patch`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ApplyPatchArgs {
    /// The whole patch, from `*** Begin Patch` to `*** End Patch`.
    pub patch: String,
}

/// The `apply_patch` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct ApplyPatch;

#[async_trait]
impl TypedTool for ApplyPatch {
    type Args = ApplyPatchArgs;
    const NAME: &'static str = "apply_patch";
    const KIND: CallKind = CallKind::Edit;
    const LEAN: crate::Lean = crate::Lean::Short {
        description: "Edits files with a patch:\n*** Begin Patch\n*** Update File: path\n@@ \
                      optional line to find\n context line\n-removed\n+added\n*** Add File: \
                      path\n+line\n*** Delete File: path\n*** End Patch",
        arguments: &[("patch", "")],
    };

    fn description(&self) -> String {
        "Applies a patch in this format:\n*** Begin Patch\n*** Add File: path\n+line\n*** Delete \
         File: path\n*** Update File: path\n*** Move to: new/path (optional)\n@@ optional line to \
         find first\n context line\n-removed line\n+added line\n*** End of File (optional: hunk \
         at the end)\n*** End Patch\nPaths are relative to the workspace. Context lines must match \
         the file (small whitespace differences are tolerated). Operations apply in order; a \
         failure stops the patch."
            .to_string()
    }

    fn effect(&self, _args: &ApplyPatchArgs) -> Effect {
        Effect::Mutating
    }

    /// The paths come from the same parser that applies the patch, so the permission check
    /// and the edit cannot disagree about what is touched.
    fn describe(&self, args: &ApplyPatchArgs, guard: &WorkspaceGuard, facts: &mut CallFacts) {
        let Ok(ops) = parse::parse(&args.patch) else {
            facts.summary = "(a patch that does not parse)".to_string();
            return;
        };
        let mut names = Vec::new();
        for op in &ops {
            let (path, moved) = match op {
                Operation::Add { path, .. } | Operation::Delete { path } => (path, None),
                Operation::Update { path, move_to, .. } => (path, move_to.as_ref()),
            };
            for name in std::iter::once(path).chain(moved) {
                facts
                    .writes
                    .push(crate::resolve_for_rules(name, guard.root(), guard));
                names.push(name.as_str());
            }
        }
        facts.summary = names.join(", ");
    }

    fn preview(&self, args: &ApplyPatchArgs, guard: &WorkspaceGuard) -> Vec<FileChange> {
        let Ok(ops) = parse::parse(&args.patch) else {
            return Vec::new();
        };
        let Ok(resolved) = resolve(ops, guard) else {
            return Vec::new();
        };
        // What applies before a failure is still shown: the call would make those changes.
        let (Ok(changes) | Err((changes, _))) =
            apply::apply_all(guard, &resolved, apply::Mode::Preview);
        changes.into_iter().map(|(_, _, change)| change).collect()
    }

    async fn run(&self, args: ApplyPatchArgs, ctx: &ToolContext) -> ToolOutput {
        let ops = match parse::parse(&args.patch) {
            Ok(ops) => ops,
            Err(e) => return ToolOutput::error(format!("{e}. No files were changed.")),
        };
        // Every path passes the guard before anything changes.
        let resolved = match resolve(ops, &ctx.guard) {
            Ok(resolved) => resolved,
            Err(message) => return ToolOutput::error(message),
        };
        // Lock every file the patch touches, in a fixed order so two patches cannot deadlock.
        let mut paths: Vec<_> = resolved
            .iter()
            .flat_map(|r| {
                std::iter::once(r.path.clone()).chain(r.move_to.iter().map(|m| m.0.clone()))
            })
            .collect();
        paths.sort();
        paths.dedup();
        let mut guards = Vec::with_capacity(paths.len());
        for path in &paths {
            guards.push(ctx.locks.write(path).await);
        }
        let guard = ctx.guard.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            apply::apply_all(&guard, &resolved, apply::Mode::Write)
        })
        .await;
        drop(guards);
        match outcome {
            Ok(Ok(changes)) => ToolOutput::ok(format!(
                "Success. Updated the following files:\n{}",
                listing(&changes)
            ))
            .with_details(ToolDetails::Patch(
                changes.into_iter().map(|(_, _, change)| change).collect(),
            )),
            Ok(Err((changes, message))) => {
                let applied = if changes.is_empty() {
                    "No files were changed.".to_string()
                } else {
                    format!("Applied before the failure:\n{}", listing(&changes))
                };
                ToolOutput::error(format!("apply_patch failed: {message}\n{applied}"))
            }
            Err(e) => ToolOutput::error(format!("apply_patch failed: {e}")),
        }
    }
}

/// The operations with their paths resolved by the guard; a message for the model when a
/// path is refused.
fn resolve(ops: Vec<Operation>, guard: &WorkspaceGuard) -> Result<Vec<Resolved>, String> {
    let mut resolved = Vec::with_capacity(ops.len());
    for op in ops {
        let (path, move_to) = match &op {
            Operation::Add { path, .. } | Operation::Delete { path } => (path, None),
            Operation::Update { path, move_to, .. } => (path, move_to.as_ref()),
        };
        let resolve = |p: &str| {
            guard
                .resolve_write(p)
                .map(|canonical| {
                    let shown = guard.display(&canonical);
                    (canonical, shown)
                })
                .map_err(|e| format!("{e}. No files were changed."))
        };
        let (canonical, shown) = resolve(path)?;
        let move_to = move_to.map(|m| resolve(m)).transpose()?;
        resolved.push(Resolved {
            op,
            path: canonical,
            shown,
            move_to,
        });
    }
    Ok(resolved)
}

fn listing(changes: &[apply::Change]) -> String {
    changes
        .iter()
        .map(|(kind, path, _)| format!("{kind} {path}"))
        .collect::<Vec<_>>()
        .join("\n")
}
