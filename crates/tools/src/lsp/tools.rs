//! `diagnostics {path?}` and, at `path:line:column`, `definition`, `references` and `hover`:
//! what the language servers know, on request. Offered when a server was found.

use std::marker::PhantomData;
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use rein_code::lsp::{Place, Query};
use schemars::JsonSchema;
use serde::Deserialize;

use super::SessionLaunch;
use crate::typed::TypedTool;
use crate::{CallFacts, CallKind, Effect, Tool, ToolContext, ToolOutput, WorkspaceGuard};

/// `diagnostics`' name.
pub const DIAGNOSTICS: &str = "diagnostics";

/// The language-server tools' names.
pub const LSP_TOOLS: [&str; 4] = [DIAGNOSTICS, "definition", "references", "hover"];

/// The language-server tools.
pub fn lsp_tools() -> Vec<Arc<dyn Tool>> {
    vec![
        crate::typed(DiagnosticsTool),
        crate::typed(PlaceTool::<Definition>::default()),
        crate::typed(PlaceTool::<References>::default()),
        crate::typed(PlaceTool::<Hover>::default()),
    ]
}

/// `diagnostics`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiagnosticsArgs {
    /// The file (default: every file the servers checked).
    pub path: Option<String>,
}

/// The `diagnostics` tool.
#[derive(Debug, Clone, Copy, Default)]
pub struct DiagnosticsTool;

#[async_trait]
impl TypedTool for DiagnosticsTool {
    type Args = DiagnosticsArgs;
    const NAME: &'static str = DIAGNOSTICS;
    const CLAUDE_NAME: &'static str = "LSP";
    const KIND: CallKind = CallKind::Read;
    const LEAN: crate::Lean = crate::Lean::LeftOut;

    fn description(&self) -> String {
        "Errors and warnings the language servers report for a file, or for every file \
         they checked."
            .into()
    }

    fn effect(&self, _args: &DiagnosticsArgs) -> Effect {
        Effect::ReadOnly
    }

    fn describe(&self, args: &DiagnosticsArgs, guard: &WorkspaceGuard, facts: &mut CallFacts) {
        let path = args.path.as_deref().unwrap_or(".");
        facts
            .reads
            .push(crate::resolve_for_rules(path, guard.root(), guard));
        facts.summary = path.to_string();
    }

    async fn run(&self, args: DiagnosticsArgs, ctx: &ToolContext) -> ToolOutput {
        let code = ctx.services.get::<crate::Code>();
        let Some(servers) = code.servers() else {
            return ToolOutput::error("diagnostics: no language server runs in this session");
        };
        let settings = servers.settings();
        let shown = rein_code::lsp::Shown::Warnings;
        let files = match &args.path {
            Some(path) => {
                let path = match ctx.guard.resolve_read(path) {
                    Ok(path) => path,
                    Err(e) => return ToolOutput::error(e.to_string()),
                };
                if !servers.reads(&path) {
                    return ToolOutput::error(format!(
                        "no language server reads {} (see `rein lsp check`)",
                        ctx.guard.display(&path)
                    ));
                }
                let launch = SessionLaunch::new(ctx);
                match servers.diagnostics_of(&path, &launch).await {
                    Ok(Some((server, items))) => vec![(server, path, items)],
                    Ok(None) => {
                        return ToolOutput::ok(format!(
                            "The language server has not reported on {} yet; ask again in a \
                             moment.",
                            args.path.as_deref().unwrap_or_default()
                        ));
                    }
                    Err(e) => return ToolOutput::error(e.to_string()),
                }
            }
            None => servers
                .all_published()
                .into_iter()
                .filter(|(_, path, _)| ctx.guard.off_limits(path).is_none())
                .collect(),
        };
        let text = rein_code::lsp::render_all(
            &files,
            ctx.guard.root(),
            shown,
            settings.max_diagnostics.max(50),
        );
        if text.is_empty() {
            let what = args
                .path
                .as_deref()
                .unwrap_or("the files the servers checked");
            return ToolOutput::ok(format!("No errors or warnings in {what}."));
        }
        ToolOutput::ok(text)
    }
}

/// `definition`'s, `references`' and `hover`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlaceArgs {
    /// The file.
    pub path: String,
    /// 1-based line.
    #[schemars(range(min = 1))]
    pub line: u32,
    /// 1-based column (in characters) of the name.
    #[schemars(range(min = 1))]
    pub column: u32,
}

/// One question about a place.
pub trait PlaceQuery: Send + Sync + Default + 'static {
    /// The tool's name.
    const NAME: &'static str;
    /// The question.
    const QUERY: Query;
    /// The tool's description.
    const DESCRIPTION: &'static str;
}

/// `definition`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Definition;

impl PlaceQuery for Definition {
    const NAME: &'static str = "definition";
    const QUERY: Query = Query::Definition;
    const DESCRIPTION: &'static str =
        "Where the name at path:line:column is defined, from the language server.";
}

/// `references`.
#[derive(Debug, Clone, Copy, Default)]
pub struct References;

impl PlaceQuery for References {
    const NAME: &'static str = "references";
    const QUERY: Query = Query::References;
    const DESCRIPTION: &'static str =
        "Every use of the name at path:line:column, from the language server.";
}

/// `hover`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hover;

impl PlaceQuery for Hover {
    const NAME: &'static str = "hover";
    const QUERY: Query = Query::Hover;
    const DESCRIPTION: &'static str =
        "The type and documentation of the name at path:line:column, from the language server.";
}

/// A tool asking the language server `Q`'s question.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlaceTool<Q>(PhantomData<Q>);

#[async_trait]
impl<Q: PlaceQuery> TypedTool for PlaceTool<Q> {
    type Args = PlaceArgs;
    const NAME: &'static str = Q::NAME;
    const CLAUDE_NAME: &'static str = "LSP";
    const KIND: CallKind = CallKind::Read;
    const LEAN: crate::Lean = crate::Lean::LeftOut;

    fn description(&self) -> String {
        Q::DESCRIPTION.into()
    }

    fn effect(&self, _args: &PlaceArgs) -> Effect {
        Effect::ReadOnly
    }

    fn describe(&self, args: &PlaceArgs, guard: &WorkspaceGuard, facts: &mut CallFacts) {
        facts
            .reads
            .push(crate::resolve_for_rules(&args.path, guard.root(), guard));
        facts.summary = format!("{}:{}:{}", args.path, args.line, args.column);
    }

    async fn run(&self, args: PlaceArgs, ctx: &ToolContext) -> ToolOutput {
        let code = ctx.services.get::<crate::Code>();
        let Some(servers) = code.servers() else {
            return ToolOutput::error(format!(
                "{}: no language server runs in this session",
                Q::NAME
            ));
        };
        let path = match ctx.guard.resolve_read(&args.path) {
            Ok(path) => path,
            Err(e) => return ToolOutput::error(e.to_string()),
        };
        let place = Place {
            path,
            line: args.line,
            column: args.column,
        };
        let guard = ctx.guard.clone();
        let shows = move |path: &Path| guard.off_limits(path).is_none();
        let launch = Arc::new(SessionLaunch::new(ctx));
        let asking = servers.query(Q::QUERY, &place, launch, &shows);
        tokio::select! {
            answer = asking => match answer {
                Ok(text) => ToolOutput::ok(text),
                Err(e) => ToolOutput::error(e.to_string()),
            },
            () = ctx.cancel.cancelled() => ToolOutput::error(format!("{}: cancelled", Q::NAME)),
        }
    }
}
