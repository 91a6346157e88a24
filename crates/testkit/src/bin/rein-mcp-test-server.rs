//! An MCP server over stdio for rein's tests, built on `rmcp`'s server side. Tools: `echo
//! {text}`, `fail` (an `isError` result), `image` (a tiny PNG), `sleep {ms}`, `crash` (the
//! process exits) and `pid` (its process id, to see restarts); one resource,
//! `test://notes` (text).

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Resource, ResourceContents, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

struct TestServer;

fn tool(name: &'static str, description: &'static str, schema: Value) -> Tool {
    let Value::Object(schema) = schema else {
        return Tool::new(name, description, Arc::new(serde_json::Map::new()));
    };
    Tool::new(name, description, Arc::new(schema))
}

impl ServerHandler for TestServer {
    #[allow(deprecated)]
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![Resource::new(
            "test://notes",
            "notes",
        )]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != "test://notes" {
            return Err(ErrorData::resource_not_found(
                format!("no resource {}", request.uri),
                None,
            ));
        }
        Ok(ReadResourceResponse::Complete(ReadResourceResult::new(
            vec![ResourceContents::text("the notes say hi", "test://notes")],
        )))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let text = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
        let none = json!({"type": "object", "properties": {}});
        let ms = json!({"type": "object", "properties": {"ms": {"type": "integer"}}});
        Ok(ListToolsResult::with_all_items(vec![
            tool("echo", "Says the text back", text),
            tool("fail", "Always fails", none.clone()),
            tool("image", "Returns a tiny image", none.clone()),
            tool("sleep", "Sleeps ms milliseconds", ms),
            tool("crash", "Exits the server", none.clone()),
            tool("pid", "The server's process id", none),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let result = match request.name.as_ref() {
            "echo" => {
                let text = args.get("text").and_then(Value::as_str).unwrap_or("");
                CallToolResult::success(vec![ContentBlock::text(format!("echo: {text}"))])
            }
            "fail" => CallToolResult::error(vec![ContentBlock::text("the tool failed on purpose")]),
            "image" => CallToolResult::success(vec![ContentBlock::image(
                "iVBORw0KGgo=".to_string(),
                "image/png".to_string(),
            )]),
            "sleep" => {
                let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(1000);
                tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
                CallToolResult::success(vec![ContentBlock::text(format!("slept {ms} ms"))])
            }
            "crash" => std::process::exit(3),
            "pid" => {
                CallToolResult::success(vec![ContentBlock::text(std::process::id().to_string())])
            }
            other => CallToolResult::error(vec![ContentBlock::text(format!("no tool {other}"))]),
        };
        Ok(result.into())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let Ok(server) = TestServer.serve(rmcp::transport::stdio()).await else {
        std::process::exit(1);
    };
    let _ = server.waiting().await;
}
