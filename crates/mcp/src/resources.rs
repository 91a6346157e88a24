//! `list_mcp_resources {server?}` and `read_mcp_resource {server, uri}` (Claude Code's
//! `ListMcpResources`/`ReadMcpResource`): the model browses what servers offer as resources.
//! Reading a resource changes nothing, so these run like other read-only tools (rules may
//! still deny them).

use std::sync::Arc;

use async_trait::async_trait;
use rein_protocol::ToolSpec;
use rein_tool::{CallFacts, CallKind, Effect, Tool, ToolContext, ToolOutput, WorkspaceGuard};
use serde_json::{Value, json};

use crate::server::Server;

/// Most resources listed per server.
const MAX_LISTED: usize = 200;

/// The two resource tools over the servers that offer resources.
pub fn tools(servers: &[Arc<Server>]) -> Vec<Arc<dyn Tool>> {
    let with: Vec<Arc<Server>> = servers
        .iter()
        .filter(|s| s.has_resources)
        .cloned()
        .collect();
    if with.is_empty() {
        return Vec::new();
    }
    vec![
        Arc::new(ListResources(with.clone())),
        Arc::new(ReadResource(with)),
    ]
}

fn text_arg<'a>(args: &'a Value, key: &str) -> &'a str {
    args.get(key).and_then(Value::as_str).unwrap_or("").trim()
}

fn facts(name: &str, claude: &str, summary: String) -> CallFacts {
    let mut facts = CallFacts::new(name, claude, CallKind::Other, Effect::ReadOnly);
    facts.summary = summary;
    facts
}

struct ListResources(Vec<Arc<Server>>);

#[async_trait]
impl Tool for ListResources {
    fn spec(&self) -> ToolSpec {
        let names: Vec<&str> = self.0.iter().map(|s| s.config.name.as_str()).collect();
        ToolSpec {
            name: "list_mcp_resources".into(),
            description: format!(
                "Lists the resources MCP servers offer (URI, name, type). Servers: {}.",
                names.join(", ")
            ),
            input_schema: json!({
                "type": "object",
                "properties": {"server": {"type": "string", "description": "Only this server"}},
                "additionalProperties": false
            })
            .into(),
        }
    }

    fn effect(&self, _args: &Value) -> Effect {
        Effect::ReadOnly
    }

    fn facts(&self, args: &Value, _guard: &WorkspaceGuard) -> CallFacts {
        facts(
            "list_mcp_resources",
            "ListMcpResourcesTool",
            text_arg(args, "server").to_string(),
        )
    }

    async fn call(&self, args: Value, _ctx: &ToolContext) -> ToolOutput {
        let only = text_arg(&args, "server");
        let mut out = Vec::new();
        for server in self
            .0
            .iter()
            .filter(|s| only.is_empty() || s.config.name == only)
        {
            match server.resources().await {
                Ok(resources) => {
                    out.push(format!(
                        "{} ({} resources):",
                        server.config.name,
                        resources.len()
                    ));
                    for resource in resources.iter().take(MAX_LISTED) {
                        let kind = resource.mime_type.as_deref().unwrap_or("");
                        out.push(format!("- {} {} {kind}", resource.uri, resource.name));
                    }
                }
                Err(e) => out.push(format!("{}: listing failed: {e}", server.config.name)),
            }
        }
        if out.is_empty() {
            return ToolOutput::error(format!("no MCP server `{only}` offers resources"));
        }
        ToolOutput::ok(out.join("\n"))
    }
}

struct ReadResource(Vec<Arc<Server>>);

#[async_trait]
impl Tool for ReadResource {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "read_mcp_resource".into(),
            description: "Reads one resource of an MCP server by its URI (see list_mcp_resources)."
                .into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "server": {"type": "string", "description": "The server's name"},
                    "uri": {"type": "string", "description": "The resource's URI"}
                },
                "required": ["server", "uri"],
                "additionalProperties": false
            })
            .into(),
        }
    }

    fn effect(&self, _args: &Value) -> Effect {
        Effect::ReadOnly
    }

    fn facts(&self, args: &Value, _guard: &WorkspaceGuard) -> CallFacts {
        facts(
            "read_mcp_resource",
            "ReadMcpResourceTool",
            format!("{} {}", text_arg(args, "server"), text_arg(args, "uri")),
        )
    }

    async fn call(&self, args: Value, _ctx: &ToolContext) -> ToolOutput {
        let (name, uri) = (text_arg(&args, "server"), text_arg(&args, "uri"));
        let Some(server) = self.0.iter().find(|s| s.config.name == name) else {
            let names: Vec<&str> = self.0.iter().map(|s| s.config.name.as_str()).collect();
            return ToolOutput::error(format!(
                "no MCP server `{name}` offers resources; these do: {}",
                names.join(", ")
            ));
        };
        match server.read_resource(uri).await {
            Ok(contents) => {
                let parts: Vec<String> = contents
                    .iter()
                    .map(|c| match c {
                        rmcp::model::ResourceContents::TextResourceContents { text, .. } => {
                            text.clone()
                        }
                        rmcp::model::ResourceContents::BlobResourceContents {
                            mime_type,
                            blob,
                            ..
                        } => format!(
                            "[{}: {} bytes of base64]",
                            mime_type.as_deref().unwrap_or("binary"),
                            blob.len()
                        ),
                        _ => "[resource contents of an unknown kind]".to_string(),
                    })
                    .collect();
                ToolOutput::ok(parts.join("\n"))
            }
            Err(e) => ToolOutput::error(format!("reading {uri} from `{name}` failed: {e}")),
        }
    }
}
