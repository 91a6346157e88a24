//! `web_search {query, allowed_domains?, blocked_domains?}` (Claude Code's `WebSearch`) for
//! servers without a search of their own: rein asks the configured search API and filters
//! the results by domain.

use async_trait::async_trait;
use rein_protocol::ToolSpec;
use rein_tools::{CallFacts, CallKind, Effect, Tool, ToolContext, ToolOutput, WorkspaceGuard};
use rein_web::SearchBackend;
use serde_json::{Value, json};

/// The tool's name.
pub const WEB_SEARCH: &str = "web_search";
/// Results asked of the API before the domain filters.
const ASKED: usize = 20;
/// Results shown.
const SHOWN: usize = 10;

/// The `web_search` tool over a search API.
pub struct WebSearch(pub(crate) SearchBackend);

fn domains(args: &Value, key: &str) -> Vec<String> {
    (args
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten())
    .filter_map(Value::as_str)
    .map(str::to_string)
    .collect()
}

#[async_trait]
impl Tool for WebSearch {
    fn spec(&self) -> ToolSpec {
        let list = json!({"type": "array", "items": {"type": "string"}});
        ToolSpec {
            name: WEB_SEARCH.into(),
            description: "Searches the web; returns titled links with snippets. Cite the \
                          links you use as Markdown links."
                .into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "minLength": 2},
                    "allowed_domains": list,
                    "blocked_domains": list
                },
                "required": ["query"],
                "additionalProperties": false
            })
            .into(),
        }
    }

    fn lean(&self) -> rein_tools::Lean {
        rein_tools::Lean::LeftOut
    }

    fn effect(&self, _args: &Value) -> Effect {
        Effect::ReadOnly
    }

    fn facts(&self, args: &Value, _guard: &WorkspaceGuard) -> CallFacts {
        let mut facts = CallFacts::new(WEB_SEARCH, "WebSearch", CallKind::Other, Effect::ReadOnly);
        facts.summary = args
            .get("query")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        facts
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> ToolOutput {
        let query = args.get("query").and_then(Value::as_str).unwrap_or("");
        let (allowed, blocked) = (
            domains(&args, "allowed_domains"),
            domains(&args, "blocked_domains"),
        );
        let found = tokio::select! {
            found = self.0.search(query, ASKED) => found,
            () = ctx.cancel.cancelled() => return ToolOutput::error("cancelled"),
        };
        let hits = match found {
            Ok(hits) => hits,
            Err(e) => return ToolOutput::error(e.to_string()),
        };
        let kept: Vec<_> = hits
            .into_iter()
            .filter(|h| {
                allowed.is_empty() || allowed.iter().any(|d| rein_web::in_domain(&h.url, d))
            })
            .filter(|h| !blocked.iter().any(|d| rein_web::in_domain(&h.url, d)))
            .take(SHOWN)
            .collect();
        if kept.is_empty() {
            return ToolOutput::ok(format!("No results for {query:?}."));
        }
        let mut text = format!("Results for {query:?}:\n");
        for (n, hit) in kept.iter().enumerate() {
            text.push_str(&format!("\n{}. [{}]({})\n", n + 1, hit.title, hit.url));
            if !hit.snippet.trim().is_empty() {
                text.push_str(&format!("   {}\n", hit.snippet.trim()));
            }
        }
        ToolOutput::ok(text)
    }
}
