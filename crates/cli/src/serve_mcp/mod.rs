//! `rein mcp serve`: rein as an MCP server over stdio (rmcp's server side), so an MCP client
//! (Claude Desktop, another agent, an IDE) can hand it a coding task. Two tools, as codex's
//! `codex`/`codex-reply`: `rein` runs a prompt in a new session to its answer and returns it
//! with the session id; `rein-reply` continues a session. While a prompt runs the client gets
//! progress notifications (each tool call); calls the permission mode asks about are asked
//! through the client (elicitation) when it can, else refused as in `rein exec`; a cancelled
//! call cancels the turn. Each session is a front end of the session controller, like the TUI.

mod calls;

mod elicit;
mod progress;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rein_engine::Approver;
use rein_policy::PermissionMode;
use rein_protocol::RunOutcome;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::{ElicitationMode, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::json;

use crate::Exit;
use crate::hosted::{Hosted, Reply};
use crate::mcp_args::ServeArgs;
use progress::Progress;

/// A session the server holds, driven by one call at a time.
type Held = Arc<Hosted>;

/// The server: what its flags set, the broadest mode a call may ask for, and its sessions
/// by id.
#[derive(Clone)]
struct ReinServer {
    args: Arc<crate::overrides::Overrides>,
    ceiling: PermissionMode,
    sessions: Arc<Mutex<HashMap<String, Held>>>,
}

pub async fn run(args: ServeArgs) -> Result<(), Exit> {
    // The server's own settings, resolved once: a bad flag or a missing key fails here, not
    // in the first call; their mode is the broadest a call may ask for.
    let base = args.overrides()?;
    let settings =
        crate::settings::Settings::new(&base, crate::trust::Asking::Never, crate::env::process)?;
    let server = ReinServer {
        args: Arc::new(base),
        ceiling: settings.template.policy.mode,
        sessions: Arc::default(),
    };
    drop(settings);
    let running = server
        .clone()
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| Exit::failed(format!("the MCP client's handshake failed: {e}")))?;
    let _ = running.waiting().await;
    let held: Vec<Held> = server
        .sessions
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .drain()
        .map(|(_, live)| live)
        .collect();
    for live in held {
        live.close().await;
    }
    Ok(())
}

impl ServerHandler for ReinServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("rein", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "rein is a coding agent. Call `rein` with a task (and the workspace as `cwd`); \
                 it works on it with its own tools and returns its answer and a session id. \
                 Continue with `rein-reply`.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(calls::tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut progress = Progress::new(context.peer.clone(), context.meta.get_progress_token());
        let answered = match request.name.as_ref() {
            calls::RUN => self.run(request.arguments, &mut progress, &context).await,
            calls::REPLY => self.reply(request.arguments, &mut progress, &context).await,
            other => Err(format!(
                "no tool {other}: this server has {} and {}",
                calls::RUN,
                calls::REPLY
            )),
        };
        let result =
            answered.unwrap_or_else(|why| CallToolResult::error(vec![ContentBlock::text(why)]));
        Ok(result.into())
    }
}

impl ReinServer {
    /// `rein`: a new session, asked the call's prompt.
    async fn run(
        &self,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
        progress: &mut Progress,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, String> {
        let call: calls::RunCall = calls::parse(calls::RUN, arguments).map_err(|e| e.0)?;
        let prompt = nonempty(&call.prompt)?;
        let args = calls::for_run(&self.args, self.ceiling, call).map_err(|e| e.0)?;
        let held = self.start(&args, context).await?;
        let id = held.id.clone();
        // First the id: a client that cancels this call can still continue the session.
        progress.say(format!("session {id}")).await;
        let reply = held.ask(prompt, progress, &context.ct).await;
        Ok(result(&id, reply.map_err(|_| busy(&id))?))
    }

    /// `rein-reply`: the next prompt of a session this server holds, or of a stored one.
    async fn reply(
        &self,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
        progress: &mut Progress,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, String> {
        let call: calls::ReplyCall = calls::parse(calls::REPLY, arguments).map_err(|e| e.0)?;
        let prompt = nonempty(&call.prompt)?;
        let held = self
            .sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&call.session_id)
            .cloned();
        let held = match held {
            Some(held) => held,
            None => {
                self.start(&calls::for_reply(&self.args, &call), context)
                    .await?
            }
        };
        let reply = held.ask(prompt, progress, &context.ct).await;
        Ok(result(
            &call.session_id,
            reply.map_err(|_| busy(&call.session_id))?,
        ))
    }

    /// Starts the session `args` say and holds it by its id.
    async fn start(
        &self,
        args: &crate::overrides::Overrides,
        context: &RequestContext<RoleServer>,
    ) -> Result<Held, String> {
        let editor = rein_tools::Editor::default();
        let live = Hosted::start(args, approver(&context.peer), editor)
            .await
            .map_err(|exit| exit.message)?;
        let held = Arc::new(live);
        self.sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(held.id.clone(), Arc::clone(&held));
        Ok(held)
    }
}

/// Who is asked about calls: the client, when it can answer a form.
fn approver(peer: &rmcp::service::Peer<RoleServer>) -> Option<Arc<dyn Approver>> {
    let modes = peer.supported_elicitation_modes();
    modes.contains(&ElicitationMode::Form).then(|| {
        let approver: Arc<dyn Approver> = Arc::new(elicit::Elicit { peer: peer.clone() });
        approver
    })
}

fn busy(id: &str) -> String {
    format!(
        "session {id} is still working on a prompt; wait for its answer (or cancel that call) \
         first"
    )
}

fn nonempty(prompt: &str) -> Result<String, String> {
    if prompt.trim().is_empty() {
        return Err("the prompt is empty".to_string());
    }
    Ok(prompt.to_string())
}

/// The tool result of a prompt: the answer and the session id as text (what a calling model
/// reads), and all of it with the usage as structured content. Anything but a completed run is
/// an error result saying how it ended.
fn result(session_id: &str, reply: Reply) -> CallToolResult {
    let outcome = serde_json::to_value(reply.outcome).unwrap_or_default();
    let outcome = outcome.as_str().unwrap_or("failed");
    let answer = match reply.outcome {
        RunOutcome::Completed => reply.text.clone(),
        _ if reply.text.is_empty() => format!("[{outcome}]"),
        _ => format!("[{outcome}] {}", reply.text),
    };
    let content = vec![
        ContentBlock::text(answer),
        ContentBlock::text(format!("session_id: {session_id}")),
    ];
    let mut result = if reply.outcome == RunOutcome::Completed {
        CallToolResult::success(content)
    } else {
        CallToolResult::error(content)
    };
    result.structured_content = Some(json!({
        "session_id": session_id,
        "outcome": outcome,
        "answer": reply.text,
        "turns": reply.turns,
        "usage": reply.usage,
        "cost_usd": reply.cost_usd,
    }));
    result
}
