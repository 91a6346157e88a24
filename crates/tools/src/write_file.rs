//! The `write_file` tool: creates or replaces a whole file, atomically.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{
    CallFacts, CallKind, Effect, ToolContext, ToolOutput, TypedTool, WorkspaceGuard, write_atomic,
};

/// Arguments of `write_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WriteFileArgs {
    /// Path of the file, relative to the workspace root. Missing parent folders are created.
    pub path: String,
    /// The complete new contents of the file.
    pub content: String,
}

/// The `write_file` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct WriteFile;

#[async_trait]
impl TypedTool for WriteFile {
    type Args = WriteFileArgs;
    const NAME: &'static str = "write_file";
    const CLAUDE_NAME: &'static str = "Write";
    const KIND: CallKind = CallKind::Edit;

    fn description(&self) -> String {
        "Creates a file, or replaces an existing file's whole contents, in the workspace. \
         Missing parent folders are created; an existing file keeps its permissions. To change \
         part of an existing file prefer edit_file, which sends only the change."
            .to_string()
    }

    fn effect(&self, _args: &WriteFileArgs) -> Effect {
        Effect::Mutating
    }

    fn describe(&self, args: &WriteFileArgs, guard: &WorkspaceGuard, facts: &mut CallFacts) {
        facts
            .writes
            .push(crate::resolve_for_rules(&args.path, guard.root(), guard));
        let lines = args.content.lines().count();
        let plural = if lines == 1 { "" } else { "s" };
        facts.summary = format!("{} ({lines} line{plural})", args.path);
    }

    async fn run(&self, args: WriteFileArgs, ctx: &ToolContext) -> ToolOutput {
        let path = match ctx.guard.resolve_write(&args.path) {
            Ok(path) => path,
            Err(e) => return ToolOutput::error(e.to_string()),
        };
        let shown = ctx.guard.display(&path);
        let _lock = ctx.locks.write(&path).await;
        let existed = match std::fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => {
                return ToolOutput::error(format!(
                    "{shown} is a directory; give the path of a file inside it"
                ));
            }
            Ok(_) => true,
            Err(_) => false,
        };
        if let Some(parent) = path.parent()
            && let Err(e) = std::fs::create_dir_all(parent)
        {
            return ToolOutput::error(format!(
                "cannot create the folder {}: {e}",
                ctx.guard.display(parent)
            ));
        }
        let content = args.content;
        let written = tokio::task::spawn_blocking({
            let path = path.clone();
            move || write_atomic(&path, content.as_bytes()).map(|()| content)
        })
        .await;
        match written {
            Ok(Ok(content)) => {
                let lines = content.lines().count();
                let verb = if existed { "Replaced" } else { "Created" };
                ToolOutput::ok(format!(
                    "{verb} {shown}: {lines} {}, {} bytes",
                    if lines == 1 { "line" } else { "lines" },
                    content.len()
                ))
            }
            Ok(Err(e)) => ToolOutput::error(format!("cannot write {shown}: {e}")),
            Err(e) => ToolOutput::error(format!("write_file failed: {e}")),
        }
    }
}
