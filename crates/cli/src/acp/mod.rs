//! `rein acp`: rein as an Agent Client Protocol agent over stdio, for editors (Zed, JetBrains
//! IDEs, Neovim and Emacs plugins), with the `agent-client-protocol` crate. Each ACP session
//! is a hosted rein session: its prompt turns stream as `session/update`s, its approvals are
//! asked with `session/request_permission`, its modes are rein's permission modes, its model a
//! config option. Permissions, hooks, the sandbox and checkpoints are the session's own, as in
//! the terminal UI.
//!
//! Handlers answer at once or spawn their work: the connection's dispatch loop waits for a
//! handler, and a prompt turn sends requests (approvals) whose answers come through it.

mod files;
mod handlers;
mod modes;
mod permission;
mod prompt;
mod session;
mod updates;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, AuthMethod, AuthMethodAgent, AuthenticateRequest, AuthenticateResponse,
    CancelNotification, ClientCapabilities, Implementation, InitializeRequest, InitializeResponse,
    LoadSessionRequest, LoadSessionResponse, McpCapabilities, McpServer, NewSessionRequest,
    NewSessionResponse, PromptCapabilities, PromptRequest, PromptResponse, SessionId,
    SetSessionConfigOptionRequest, SetSessionConfigOptionResponse, SetSessionModeRequest,
};
use agent_client_protocol::{Agent, Client, Error, Stdio};
use rein_engine::Op;
use rein_policy::PermissionMode;
use serde_json::json;

use crate::Exit;
use crate::mcp_args::ServeArgs;
use crate::overrides::{Overrides, SessionStart, StartAt};
use session::{AcpSession, Ended};

/// The agent's state: what its flags set and its sessions by id.
struct State {
    args: Overrides,
    /// What the editor offers (its files, its terminals), as its `initialize` said.
    client: Mutex<ClientCapabilities>,
    sessions: Mutex<HashMap<String, Arc<AcpSession>>>,
}

pub async fn run(args: ServeArgs) -> Result<(), Exit> {
    // The flags resolved once: a bad one fails here, not in the editor's first session. A
    // missing key does not: the editor is told at `session/new` (auth required), where it can
    // say so to its user.
    let args = args.overrides()?;
    let checked =
        crate::settings::Settings::new(&args, crate::trust::Asking::Never, crate::env::process);
    if let Err(exit) = checked {
        if !needs_key(&exit) {
            return Err(exit);
        }
        eprintln!("rein: {}", exit.message);
    }
    let state = Arc::new(State {
        args,
        client: Mutex::default(),
        sessions: Mutex::default(),
    });
    let served = serve(Arc::clone(&state)).await;
    let held: Vec<Arc<AcpSession>> = (state.sessions.lock().unwrap_or_else(|p| p.into_inner()))
        .drain()
        .map(|(_, session)| session)
        .collect();
    for session in held {
        session.hosted.close().await;
    }
    served.map_err(|e| Exit::failed(format!("the ACP connection failed: {}", e.message)))
}

/// Serves the connection on stdin and stdout until the editor closes it. Each handler that
/// waits answers from spawned work (see `handlers.rs`).
async fn serve(state: Arc<State>) -> Result<(), Error> {
    let (hello, new, load) = (state.clone(), state.clone(), state.clone());
    let (prompt, cancel, mode) = (state.clone(), state.clone(), state.clone());
    let (option, model) = (state.clone(), state);
    Agent
        .v1()
        .name("rein")
        .on_receive_request(
            async move |request: InitializeRequest, responder, _cx| {
                hello.on_initialize(&request, responder)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            // The key comes from the environment; there is nothing to log in to.
            async move |_: AuthenticateRequest, responder, _cx| {
                responder.respond(AuthenticateResponse::new())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest, responder, cx| {
                new.on_new(request, responder, cx)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: LoadSessionRequest, responder, cx| {
                load.on_load(request, responder, cx)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: PromptRequest, responder, cx| {
                prompt.on_prompt(request, responder, cx)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |notification: CancelNotification, _cx| {
                cancel.on_cancel(&notification.session_id);
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |request: SetSessionModeRequest, responder, cx| {
                mode.on_set_mode(request, responder, cx)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionConfigOptionRequest, responder, cx| {
                option.on_set_option(request, responder, cx)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: modes::SetModelRequest, responder, cx| {
                model.on_set_model(request, responder, cx)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_to(Stdio::new())
        .await
}

/// The agent's side of `initialize`: what rein can do, and how it is authenticated (the
/// provider's key from the environment).
fn initialize() -> InitializeResponse {
    let capabilities = AgentCapabilities::new()
        .load_session(true)
        .prompt_capabilities(PromptCapabilities::new().image(true).embedded_context(true))
        .mcp_capabilities(McpCapabilities::new().http(true));
    // rein speaks version 1, whichever the client asked for (it may then disconnect).
    InitializeResponse::new(agent_client_protocol::schema::ProtocolVersion::V1)
        .agent_capabilities(capabilities)
        .auth_methods(vec![AuthMethod::Agent(
            AuthMethodAgent::new("environment", "API key from the environment").description(
                "rein reads the provider's key from ANTHROPIC_API_KEY or OPENAI_API_KEY (or the \
                 variable --api-key-env names) in the environment it was started with"
                    .to_string(),
            ),
        )])
        .agent_info(
            Implementation::new("rein", env!("CARGO_PKG_VERSION")).title("rein".to_string()),
        )
}

impl State {
    fn client(&self) -> ClientCapabilities {
        self.client
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn session(&self, id: &SessionId) -> Option<Arc<AcpSession>> {
        (self.sessions.lock().unwrap_or_else(|p| p.into_inner()))
            .get(&*id.0)
            .cloned()
    }

    fn known(&self, id: &SessionId) -> Result<Arc<AcpSession>, Error> {
        self.session(id)
            .ok_or_else(|| Error::invalid_params().data(json!(format!("no session {}", id.0))))
    }

    fn hold(&self, session: Arc<AcpSession>) {
        (self.sessions.lock().unwrap_or_else(|p| p.into_inner()))
            .insert(session.id.0.to_string(), session);
    }

    /// The settings of a session in `cwd` with the editor's folders and MCP servers.
    fn session_args(
        &self,
        cwd: PathBuf,
        folders: Vec<PathBuf>,
        servers: &[McpServer],
    ) -> Result<Overrides, Error> {
        let mut args = self.args.clone();
        args.cwd = Some(cwd);
        args.added_dirs = folders;
        args.mcp.servers = editor_servers(servers)?;
        Ok(args)
    }

    async fn new_session(
        &self,
        request: NewSessionRequest,
        cx: &ConnectionTo<Client>,
    ) -> Result<NewSessionResponse, Error> {
        let args = self.session_args(
            request.cwd,
            request.additional_directories,
            &request.mcp_servers,
        )?;
        let session = Arc::new(
            AcpSession::start(&args, cx, &self.client())
                .await
                .map_err(start_error)?,
        );
        let status = session.hosted.status().await;
        self.hold(Arc::clone(&session));
        Ok(NewSessionResponse::new(session.id.clone())
            .modes(modes::state(status.mode))
            .config_options(modes::options(&status)))
    }

    /// `session/load`: the stored session (or the one held) replayed as updates, then its
    /// modes and model.
    async fn load_session(
        &self,
        request: LoadSessionRequest,
        cx: &ConnectionTo<Client>,
    ) -> Result<LoadSessionResponse, Error> {
        let session = match self.session(&request.session_id) {
            Some(session) => session,
            None => {
                let mut args = self.session_args(
                    request.cwd,
                    request.additional_directories,
                    &request.mcp_servers,
                )?;
                args.start = SessionStart {
                    at: StartAt::Resume(request.session_id.0.to_string()),
                    fork: false,
                };
                let session = Arc::new(
                    AcpSession::start(&args, cx, &self.client())
                        .await
                        .map_err(start_error)?,
                );
                self.hold(Arc::clone(&session));
                session
            }
        };
        let transcript = session.hosted.transcript().await;
        for update in updates::replay(&transcript, &session.workspace) {
            session.send(cx, update);
        }
        session.send_commands(cx);
        let status = session.hosted.status().await;
        Ok(LoadSessionResponse::new()
            .modes(modes::state(status.mode))
            .config_options(modes::options(&status)))
    }

    async fn prompt(
        &self,
        request: PromptRequest,
        cx: &ConnectionTo<Client>,
    ) -> Result<PromptResponse, Error> {
        let session = self.known(&request.session_id)?;
        let outputs = session.hosted.status().await.outputs_dir;
        let next = || session.next_picture() + 1;
        let text = prompt::text(
            &request.prompt,
            &session.workspace,
            prompt::Pictures {
                dir: outputs.as_deref(),
                next: &next,
            },
        )
        .map_err(|why| Error::invalid_params().data(json!(why.to_string())))?;
        match session.prompt(text, cx).await {
            Ended::Stopped(reason) => Ok(PromptResponse::new(reason)),
            Ended::Failed(why) => Err(Error::internal_error().data(json!(why))),
        }
    }

    async fn set_mode(&self, id: &SessionId, mode: &str) -> Result<(), Error> {
        let session = self.known(id)?;
        let mode = PermissionMode::parse(mode).ok_or_else(|| {
            Error::invalid_params().data(json!(format!(
                "no mode {mode}: default, accept-edits, plan, auto or bypass"
            )))
        })?;
        session
            .hosted
            .apply(Op::SetMode(mode))
            .await
            .map_err(|e| Error::invalid_params().data(json!(e.to_string())))?;
        session.mode_set(mode);
        Ok(())
    }

    async fn set_model(&self, id: &SessionId, model: &str) -> Result<(), Error> {
        let session = self.known(id)?;
        session
            .hosted
            .apply(Op::SetModel(model.to_string()))
            .await
            .map_err(|e| Error::invalid_params().data(json!(e.to_string())))?;
        Ok(())
    }

    async fn set_option(
        &self,
        request: SetSessionConfigOptionRequest,
    ) -> Result<SetSessionConfigOptionResponse, Error> {
        let Some(value) = request.value.as_value_id() else {
            return Err(
                Error::invalid_params().data(json!("the value is one of the option's values"))
            );
        };
        match &*request.config_id.0 {
            modes::MODEL => self.set_model(&request.session_id, &value.0).await?,
            modes::MODE => self.set_mode(&request.session_id, &value.0).await?,
            other => {
                return Err(Error::invalid_params().data(json!(format!(
                    "no option {other}: rein's are {} and {}",
                    modes::MODE,
                    modes::MODEL
                ))));
            }
        }
        let status = self.known(&request.session_id)?.hosted.status().await;
        Ok(SetSessionConfigOptionResponse::new(modes::options(&status)))
    }
}

/// A session that could not start, as the editor is told: a missing key asks it to
/// authenticate (which says where the key goes).
fn start_error(exit: Exit) -> Error {
    if needs_key(&exit) {
        return Error::auth_required().data(json!(exit.message));
    }
    Error::internal_error().data(json!(exit.message))
}

/// Whether `exit` says the provider's key is missing.
fn needs_key(exit: &Exit) -> bool {
    exit.message.contains("API key") || exit.message.contains("_API_KEY is not set")
}

/// Where the editor's servers are said to come from.
const FROM_EDITOR: &str = "the editor (session/new)";

/// The editor's MCP servers, ready to start; one whose name would make tool names ambiguous
/// is skipped with a warning, as in a configuration file.
fn editor_servers(servers: &[McpServer]) -> Result<Vec<rein_mcp::ServerConfig>, Error> {
    let mut configs = Vec::new();
    for server in servers {
        let (name, transport) = match server {
            McpServer::Stdio(server) => (
                server.name.clone(),
                rein_mcp::Transport::Stdio {
                    command: server.command.to_string_lossy().into_owned(),
                    args: server.args.clone(),
                    env: (server.env.iter())
                        .map(|v| (v.name.clone(), v.value.clone()))
                        .collect(),
                },
            ),
            McpServer::Http(server) => (
                server.name.clone(),
                rein_mcp::Transport::Http {
                    url: server.url.clone(),
                    headers: (server.headers.iter())
                        .map(|h| (h.name.clone(), h.value.clone()))
                        .collect(),
                    sse: false,
                },
            ),
            other => {
                return Err(Error::invalid_params().data(json!(format!(
                    "rein does not take this kind of MCP server (only stdio and http): {}",
                    serde_json::to_string(other).unwrap_or_default()
                ))));
            }
        };
        if let Err(why) = rein_mcp::check_name(&name, FROM_EDITOR) {
            eprintln!("rein: {why}");
            continue;
        }
        configs.push(rein_mcp::ServerConfig::new(name, transport, FROM_EDITOR));
    }
    Ok(configs)
}
