//! An MCP server for rein's tests, built on `rmcp`'s server side: over stdio, or with `--http`
//! over streamable HTTP on 127.0.0.1 (it prints its URL as the first line of its output;
//! `--http TOKEN` refuses requests without `Authorization: Bearer TOKEN`).
//! Tools: `echo {text}` (annotated read-only), `fail` (an `isError` result), `image` (a tiny
//! PNG), `sleep {ms, mark?}` (writes `<mark>.started` when it starts, `mark` when cancelled), `crash` (the process exits), `pid` (its process id, to see restarts)
//! and `grow` (adds the tool `extra` and says the tool list changed); one resource,
//! `test://notes` (text); one prompt, `greet {name}`. `--many N` (stdio) adds N tools `t0`….
#![allow(clippy::disallowed_methods)] // dev-only crate: the test programs start real processes and read the test environment

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::response::IntoResponse;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, ListPromptsResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, Prompt, PromptArgument, PromptMessage, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, Role, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

/// One server's state, shared by its HTTP sessions.
#[derive(Clone, Default)]
struct TestServer {
    /// `grow` was called: `extra` is listed.
    grown: Arc<AtomicBool>,
    /// `--many N`: N more tools, `t0`…, each with a long description.
    many: usize,
    /// `--probe`: also `env` (a variable's value, to prove what the server inherits) and
    /// `huge` (`mb` megabytes of text, to prove a long answer is handled at once).
    probe: bool,
}

fn tool(name: impl Into<String>, description: &'static str, schema: Value) -> Tool {
    let schema = match schema {
        Value::Object(schema) => schema,
        _ => serde_json::Map::new(),
    };
    Tool::new(name.into(), description, Arc::new(schema))
}

impl ServerHandler for TestServer {
    #[allow(deprecated)]
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_prompts()
                .enable_resources()
                .enable_tools()
                .enable_tool_list_changed()
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
        let ms = json!({"type": "object", "properties": {
            "ms": {"type": "integer"}, "mark": {"type": "string"}
        }});
        let mut tools = vec![
            tool("echo", "Says the text back", text)
                .annotate(ToolAnnotations::new().read_only(true)),
            tool("fail", "Always fails", none.clone()),
            tool("image", "Returns a tiny image", none.clone()),
            tool("sleep", "Sleeps ms milliseconds", ms),
            tool("crash", "Exits the server", none.clone()),
            tool("pid", "The server's process id", none.clone()),
            tool("grow", "Adds the tool `extra`", none.clone()),
        ];
        if self.probe {
            let name = json!({"type": "object", "properties": {"name": {"type": "string"}}});
            let mb = json!({"type": "object", "properties": {"mb": {"type": "integer"}}});
            tools.push(tool("env", "A variable of the server's environment", name));
            tools.push(tool("huge", "mb megabytes of text", mb));
        }
        if self.grown.load(Ordering::SeqCst) {
            tools.push(tool("extra", "Appears after grow", none.clone()));
        }
        for n in 0..self.many {
            tools.push(tool(
                format!("t{n}"),
                "One of many tools, there to make the list long",
                none.clone(),
            ));
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "greet",
            Some("Asks for a greeting"),
            Some(vec![
                PromptArgument::new("name")
                    .with_description("who to greet")
                    .with_required(true),
                PromptArgument::new("style").with_description("how"),
            ]),
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != "greet" {
            return Err(ErrorData::invalid_params(
                format!("no prompt {}", request.name),
                None,
            ));
        }
        let args = request.arguments.unwrap_or_default();
        let Some(name) = args.get("name").and_then(Value::as_str) else {
            return Err(ErrorData::invalid_params("`name` is required", None));
        };
        let style = args
            .get("style")
            .and_then(Value::as_str)
            .unwrap_or("plainly");
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Greet {name} {style}."),
        )])
        .into())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let result = match request.name.as_ref() {
            "echo" => {
                let text = args.get("text").and_then(Value::as_str).unwrap_or("");
                CallToolResult::success(vec![ContentBlock::text(format!("echo: {text}"))])
            }
            "fail" => CallToolResult::error(vec![ContentBlock::text("the tool failed on purpose")]),
            "image" => CallToolResult::success(vec![ContentBlock::image(
                // A real 1×1 PNG.
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
                    .to_string(),
                "image/png".to_string(),
            )]),
            "sleep" => {
                let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(1000);
                let mark = args.get("mark").and_then(Value::as_str);
                if let Some(mark) = mark {
                    let _ = std::fs::write(format!("{mark}.started"), "started");
                }
                let slept = tokio::time::sleep(std::time::Duration::from_millis(ms));
                tokio::select! {
                    () = slept => {}
                    () = context.ct.cancelled() => {
                        // `mark`: a file written when the client cancels the call.
                        if let Some(mark) = mark {
                            let _ = std::fs::write(mark, "cancelled");
                        }
                        return Err(ErrorData::internal_error("cancelled", None));
                    }
                }
                CallToolResult::success(vec![ContentBlock::text(format!("slept {ms} ms"))])
            }
            "crash" => {
                eprintln!("crashing on purpose");
                std::process::exit(3)
            }
            "grow" => {
                self.grown.store(true, Ordering::SeqCst);
                let _ = context.peer.notify_tool_list_changed().await;
                CallToolResult::success(vec![ContentBlock::text("grown")])
            }
            "extra" => CallToolResult::success(vec![ContentBlock::text("extra ran")]),
            "env" => {
                let name = args.get("name").and_then(Value::as_str).unwrap_or("");
                let value = std::env::var(name).unwrap_or_else(|_| "(unset)".to_string());
                CallToolResult::success(vec![ContentBlock::text(format!("{name}={value}"))])
            }
            "huge" => {
                let mb = args.get("mb").and_then(Value::as_u64).unwrap_or(1);
                let line = "0123456789abcdef".repeat(4) + "\n";
                let lines = usize::try_from(mb * 1024 * 1024 / 65).unwrap_or(0);
                CallToolResult::success(vec![ContentBlock::text(line.repeat(lines))])
            }
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
    if std::env::args().nth(1).as_deref() == Some("--http") {
        serve_http().await;
        return;
    }
    let args: Vec<String> = std::env::args().collect();
    let many = args
        .iter()
        .position(|a| a == "--many")
        .and_then(|at| args.get(at + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let server = TestServer {
        many,
        probe: args.iter().any(|a| a == "--probe"),
        ..TestServer::default()
    };
    let Ok(server) = server.serve(rmcp::transport::stdio()).await else {
        std::process::exit(1);
    };
    let _ = server.waiting().await;
}

/// Serves streamable HTTP at `/mcp` on a free port of 127.0.0.1, printing the URL first.
async fn serve_http() {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    };
    let state = TestServer::default();
    let service = StreamableHttpService::new(
        move || Ok(state.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    // `--http TOKEN`: every request must carry `Authorization: Bearer TOKEN`.
    let token = std::env::args().nth(2).map(|t| format!("Bearer {t}"));
    let router =
        axum::Router::new()
            .nest_service("/mcp", service)
            .layer(axum::middleware::from_fn(
                move |request: axum::extract::Request, next: axum::middleware::Next| {
                    let expected = token.clone();
                    async move {
                        let given = request
                            .headers()
                            .get("authorization")
                            .and_then(|v| v.to_str().ok());
                        match expected {
                            Some(expected) if given != Some(expected.as_str()) => {
                                axum::http::StatusCode::UNAUTHORIZED.into_response()
                            }
                            _ => next.run(request).await,
                        }
                    }
                },
            ));
    let Ok(listener) = tokio::net::TcpListener::bind("127.0.0.1:0").await else {
        std::process::exit(1);
    };
    let Ok(addr) = listener.local_addr() else {
        std::process::exit(1);
    };
    println!("http://{addr}/mcp");
    let _ = axum::serve(listener, router).await;
}
