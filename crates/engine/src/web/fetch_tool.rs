//! `web_fetch {url, prompt}`: a page as Markdown, or a small model's answer to the prompt
//! from it.

use std::sync::Arc;

use async_trait::async_trait;
use futures::StreamExt;
use rein_llm::{ModelRequest, PromptCache, ResponseAssembler};
use rein_protocol::{Message, ToolSpec};
use rein_tools::{CallFacts, CallKind, Effect, Tool, ToolContext, ToolOutput, WorkspaceGuard};
use rein_web::{Fetched, Fetcher, Page};
use serde_json::{Value, json};

/// The tool's name.
pub const WEB_FETCH: &str = "web_fetch";
/// Claude Code's name for it.
const CLAUDE_NAME: &str = "WebFetch";
/// Most characters of a page the answering model reads.
const ANSWER_PAGE_CHARS: usize = 100_000;
/// Most tokens of the answering model's reply.
const ANSWER_TOKENS: u32 = 2_048;

/// The model that answers a fetch's prompt, and where its client comes from.
pub(crate) struct Answerer {
    pub(crate) model: String,
    pub(crate) source: Arc<dyn rein_llm::models::ModelSource>,
}

/// The `web_fetch` tool.
pub struct WebFetch {
    pub(crate) fetcher: Fetcher,
    pub(crate) answerer: Option<Answerer>,
}

#[cfg(test)]
impl WebFetch {
    /// A fetcher that reaches public addresses only, without an answering model.
    pub(crate) fn for_tests() -> Self {
        Self {
            fetcher: Fetcher::new(rein_web::Reach::default(), rein_web::FetchLimits::default()),
            answerer: None,
        }
    }
}

fn url_of(args: &Value) -> &str {
    args.get("url").and_then(Value::as_str).unwrap_or("")
}

/// The host a URL names, lower-cased (what `WebFetch(domain:…)` rules name).
fn host_of(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url.trim()).ok()?;
    parsed.host_str().map(|h| h.to_ascii_lowercase())
}

#[async_trait]
impl Tool for WebFetch {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: WEB_FETCH.into(),
            description: "Fetches a web page (HTTPS; plain HTTP is upgraded) as Markdown and \
                          answers `prompt` from it. A redirect to another host is reported, \
                          not followed. Local and private addresses are refused."
                .into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "url": {"type": "string", "format": "uri", "description": "The page."},
                    "prompt": {"type": "string", "description": "What to find in it."}
                },
                "required": ["url", "prompt"],
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
        let mut facts = CallFacts::new(WEB_FETCH, CLAUDE_NAME, CallKind::Fetch, Effect::ReadOnly);
        let url = url_of(args);
        facts.summary = url.to_string();
        // `WebFetch(domain:docs.rs)` rules match this.
        facts.subject = host_of(url).map(|host| format!("domain:{host}"));
        facts
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> ToolOutput {
        let url = url_of(&args);
        let prompt = args.get("prompt").and_then(Value::as_str).unwrap_or("");
        let fetched = tokio::select! {
            fetched = self.fetcher.fetch(url) => fetched,
            () = ctx.cancel.cancelled() => return ToolOutput::error("cancelled"),
        };
        let page = match fetched {
            Ok(Fetched::Page(page)) => page,
            Ok(Fetched::Redirect { from, to, status }) => {
                return ToolOutput::ok(format!(
                    "{from} redirects ({status}) to another host: {to}\nIt was not \
                     followed. To read it, call web_fetch with that URL."
                ));
            }
            Err(e) => return ToolOutput::error(format!("cannot fetch {url}: {e}")),
        };
        let heading = heading(&page);
        if let Some(answerer) = &self.answerer {
            match answer(answerer, &page, prompt, ctx).await {
                Ok(answer) => return ToolOutput::ok(format!("{heading}\n\n{answer}")),
                // The page itself serves when the small model cannot answer.
                Err(why) => {
                    return ToolOutput::ok(format!(
                        "{heading}\n(the page could not be summarised: {why}; here it is)\n\n{}",
                        trimmed(&page.text, ctx.budget.content_room())
                    ));
                }
            }
        }
        let room = ctx.budget.content_room().saturating_sub(heading.len() + 2);
        ToolOutput::ok(format!("{heading}\n\n{}", trimmed(&page.text, room)))
    }
}

/// The line above a page's text.
fn heading(page: &Page) -> String {
    let cut = if page.cut {
        ", cut at the size limit"
    } else {
        ""
    };
    format!(
        "Fetched {} ({} {}, {} bytes{cut}).",
        page.url, page.status, page.content_type, page.bytes
    )
}

/// `text` within `room` bytes, cut at a line with a note of what was left out.
fn trimmed(text: &str, room: usize) -> String {
    if text.len() <= room {
        return text.to_string();
    }
    let mut end = room.saturating_sub(120).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let end = text[..end].rfind('\n').unwrap_or(end);
    format!(
        "{}\n\n[… {} more bytes of the page are not shown; ask for a part of it with a more \
         precise prompt]",
        &text[..end],
        text.len() - end
    )
}

/// The small model's answer to `prompt` from `page`.
async fn answer(
    answerer: &Answerer,
    page: &Page,
    prompt: &str,
    ctx: &ToolContext,
) -> Result<String, String> {
    let (model, client) = answerer
        .source
        .client_for(&answerer.model)
        .map_err(|e| e.to_string())?;
    let mut text = page.text.as_str();
    if let Some((cut, _)) = text.char_indices().nth(ANSWER_PAGE_CHARS) {
        text = &text[..cut];
    }
    let request = ModelRequest {
        model,
        system: "You read a web page for a coding agent and answer its question from the \
                 page alone, concisely, quoting code, commands and exact values verbatim. \
                 Say so when the page does not answer it."
            .into(),
        messages: vec![Message::user_text(format!(
            "<page url=\"{}\">\n{text}\n</page>\n\nQuestion: {prompt}",
            page.url
        ))],
        tools: Vec::new(),
        max_tokens: ANSWER_TOKENS,
        cache: PromptCache::default(),
        effort: None,
        web_search: None,
    };
    let mut stream = client.stream(request);
    let mut assembler = ResponseAssembler::new();
    loop {
        let event = tokio::select! {
            event = stream.next() => event,
            () = ctx.cancel.cancelled() => return Err("cancelled".into()),
        };
        match event {
            Some(Ok(event)) => assembler.push(&event),
            Some(Err(e)) => return Err(e.to_string()),
            None => break,
        }
    }
    let reply = assembler.finish().map_err(|e| e.to_string())?;
    let text = reply.message.text();
    if text.trim().is_empty() {
        return Err("the model gave no answer".into());
    }
    Ok(text)
}
