//! An MCP server's tool as a rein [`Tool`]: named `mcp__<server>__<tool>`, its schema passed
//! through, its results turned into text. A call always needs a permission decision of its
//! own: the server's annotations (`readOnlyHint`) never grant one, they only let it run beside
//! read-only calls.

use std::sync::Arc;

use async_trait::async_trait;
use rein_protocol::{Media, ToolSpec};
use rein_tool::picture::Pictures;
use rein_tool::{CallFacts, CallKind, Effect, Tool, ToolContext, ToolOutput, WorkspaceGuard};
use serde_json::Value;

use crate::server::Server;

/// Longest tool name every provider accepts.
const MAX_NAME: usize = 64;

/// One tool of one server.
pub struct McpTool {
    /// The name the model sees (`mcp__server__tool`).
    name: String,
    /// The server's own name for it.
    remote: String,
    spec: ToolSpec,
    /// The server says it changes nothing (`readOnlyHint`): it may run beside read-only
    /// calls, though it still needs a permission like any other MCP call.
    read_only_hint: bool,
    server: Arc<Server>,
}

impl McpTool {
    /// The tools of `server`, named so none collides with `taken` (which grows).
    pub fn all_of(server: &Arc<Server>, taken: &mut Vec<String>) -> Vec<Self> {
        server
            .tools()
            .iter()
            .map(|tool| {
                let name = unique(
                    &format!(
                        "mcp__{}__{}",
                        sanitise(&server.config.name),
                        sanitise(&tool.name)
                    ),
                    taken,
                );
                taken.push(name.clone());
                let mut schema = Value::Object((*tool.input_schema).clone());
                // Strict providers want an object schema with properties.
                if schema.get("type").is_none() {
                    schema["type"] = "object".into();
                }
                if schema.get("properties").is_none() {
                    schema["properties"] = serde_json::json!({});
                }
                let description = tool.description.as_deref().unwrap_or("").trim().to_string();
                Self {
                    spec: ToolSpec {
                        name: name.clone(),
                        description: format!(
                            "{description} (MCP tool `{}` of server `{}`)",
                            tool.name, server.config.name
                        )
                        .trim()
                        .to_string(),
                        input_schema: schema.into(),
                    },
                    name,
                    remote: tool.name.to_string(),
                    read_only_hint: tool
                        .annotations
                        .as_ref()
                        .and_then(|a| a.read_only_hint)
                        .unwrap_or(false),
                    server: Arc::clone(server),
                }
            })
            .collect()
    }
}

#[async_trait]
impl Tool for McpTool {
    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    fn effect(&self, _args: &Value) -> Effect {
        Effect::Mutating
    }

    fn facts(&self, args: &Value, _guard: &WorkspaceGuard) -> CallFacts {
        // Hooks and rules name it as Claude Code does: `mcp__server__tool`.
        let mut facts = CallFacts::new(&self.name, &self.name, CallKind::Other, Effect::Mutating);
        facts.concurrent = self.read_only_hint;
        facts.summary = summary(args);
        facts
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> ToolOutput {
        let arguments = match args {
            Value::Object(map) => Some(map),
            Value::Null => None,
            other => {
                return ToolOutput::error(format!(
                    "the arguments must be a JSON object, not {other}"
                ));
            }
        };
        let result = self.server.call(&self.remote, arguments, &ctx.cancel).await;
        match result {
            Ok(result) => {
                // Pictures are decoded through the bounded parsers: off the runtime.
                let pictures = (ctx.parsers.clone(), ctx.services.get::<Pictures>());
                let failed = result.is_error == Some(true);
                let rendered =
                    tokio::task::spawn_blocking(move || result_text(&result, &pictures)).await;
                let Ok((text, media)) = rendered else {
                    return ToolOutput::error("the MCP result could not be read");
                };
                if failed {
                    ToolOutput::error(text).with_media(media)
                } else {
                    ToolOutput::ok(text).with_media(media)
                }
            }
            Err(e) if ctx.cancel.is_cancelled() => ToolOutput::error(e.to_string()),
            Err(e) => ToolOutput::error(format!(
                "MCP server `{}` failed: {e}",
                self.server.config.name
            )),
        }
    }
}

/// The result's content as text and media: text as it is, images as images (fitted as
/// `read_file` fits pictures; a note of their type and size when they cannot be), audio as
/// such a note, resources by their URI (and text), plus `structuredContent` when there is no
/// text.
fn result_text(
    result: &rmcp::model::CallToolResult,
    pictures: &(rein_sandbox::bounded::Parsers, Pictures),
) -> (String, Vec<Media>) {
    let mut parts: Vec<String> = Vec::new();
    let mut media = Vec::new();
    for block in &result.content {
        let value = serde_json::to_value(block).unwrap_or_default();
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        let field = |key: &str| value.get(key).and_then(Value::as_str).unwrap_or("");
        parts.push(match kind {
            "text" => field("text").to_string(),
            "image" => match picture(field("data"), pictures) {
                Ok(picture) => {
                    media.push(picture.media);
                    format!(
                        "[image: {}, {}×{}]",
                        field("mimeType"),
                        picture.sent.0,
                        picture.sent.1
                    )
                }
                Err(why) => format!(
                    "[image: {}, {} bytes of base64, not shown: {why}]",
                    field("mimeType"),
                    field("data").len()
                ),
            },
            "audio" => format!(
                "[{kind}: {}, {} bytes of base64]",
                field("mimeType"),
                field("data").len()
            ),
            "resource_link" => format!("[resource: {} {}]", field("uri"), field("name")),
            "resource" => {
                let resource = value.get("resource").cloned().unwrap_or_default();
                let uri = resource.get("uri").and_then(Value::as_str).unwrap_or("");
                match resource.get("text").and_then(Value::as_str) {
                    Some(text) => format!("[resource: {uri}]\n{text}"),
                    None => format!("[resource: {uri}]"),
                }
            }
            other => format!("[{other} content]"),
        });
    }
    if let Some(structured) = &result.structured_content
        && parts.iter().all(|p| p.trim().is_empty())
    {
        parts.push(structured.to_string());
    }
    let text = parts.join("\n");
    if text.trim().is_empty() {
        ("(no content)".to_string(), media)
    } else {
        (text, media)
    }
}

/// An MCP image's base64 data as a picture for the model.
fn picture(
    data: &str,
    (parsers, pictures): &(rein_sandbox::bounded::Parsers, Pictures),
) -> Result<rein_tool::picture::Picture, String> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .map_err(|e| format!("its base64 is not valid ({e})"))?;
    pictures.fit(parsers, &bytes).map_err(|e| e.to_string())
}

/// One line for people: the arguments, compact.
fn summary(args: &Value) -> String {
    let text = args.to_string();
    match text.char_indices().nth(120) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// `name` with every character providers refuse replaced by `_`.
pub(crate) fn sanitise(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `name` cut to [`MAX_NAME`] and made unlike every name in `taken`.
pub(crate) fn unique(name: &str, taken: &[String]) -> String {
    let cut = |s: &str, room: usize| s.chars().take(room).collect::<String>();
    let base = cut(name, MAX_NAME);
    if !taken.contains(&base) {
        return base;
    }
    (2..)
        .map(|n| {
            let suffix = format!("_{n}");
            format!("{}{suffix}", cut(name, MAX_NAME - suffix.len()))
        })
        .find(|candidate| !taken.contains(candidate))
        .unwrap_or(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sanitised_cut_and_made_unique() {
        assert_eq!(sanitise("my server.v2/tool"), "my_server_v2_tool");
        let long = format!("mcp__s__{}", "x".repeat(80));
        let first = unique(&long, &[]);
        assert_eq!(first.len(), MAX_NAME);
        let second = unique(&long, std::slice::from_ref(&first));
        assert_eq!(second.len(), MAX_NAME);
        assert!(second.ends_with("_2"));
    }
}
