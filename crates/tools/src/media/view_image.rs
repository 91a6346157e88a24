//! `view_image {path}`: codex's tool for showing the model a picture, offered to the models
//! trained on it (GPT, codex, o-series). It reads like `read_file`, through the same guard,
//! and answers only with a picture.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{CallFacts, CallKind, Effect, ReadFile, ReadFileArgs, ToolContext, ToolOutput};
use crate::{TypedTool, WorkspaceGuard};

/// Arguments of `view_image`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ViewImageArgs {
    /// Local path of the image file.
    pub path: String,
}

/// The `view_image` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct ViewImage;

#[async_trait]
impl TypedTool for ViewImage {
    type Args = ViewImageArgs;
    const NAME: &'static str = "view_image";
    // Rules and hooks see a read: `Read(…)` rules apply to the picture's path.
    const CLAUDE_NAME: &'static str = "Read";
    const KIND: CallKind = CallKind::Read;
    // Small windows have no room for pictures.
    const LEAN: crate::Lean = crate::Lean::LeftOut;

    fn description(&self) -> String {
        "Shows you a local image file (PNG, JPEG, GIF, WebP) from the workspace; large \
         pictures are scaled down."
            .to_string()
    }

    fn effect(&self, _args: &ViewImageArgs) -> Effect {
        Effect::ReadOnly
    }

    fn describe(&self, args: &ViewImageArgs, guard: &WorkspaceGuard, facts: &mut CallFacts) {
        facts
            .reads
            .push(crate::resolve_for_rules(&args.path, guard.root(), guard));
        facts.summary = args.path.clone();
    }

    async fn run(&self, args: ViewImageArgs, ctx: &ToolContext) -> ToolOutput {
        let read = ReadFileArgs {
            path: args.path.clone(),
            offset: None,
            limit: None,
            pages: None,
        };
        let out = ReadFile.run(read, ctx).await;
        if out.is_error || !out.media.is_empty() {
            return out;
        }
        ToolOutput::error(format!(
            "{} is not an image (PNG, JPEG, GIF or WebP); view_image shows pictures only",
            args.path
        ))
    }
}
