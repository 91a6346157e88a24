//! One MCP server: a stdio server started in its own process group (killed with it), or a
//! streamable HTTP endpoint, its tools listed once
//! at start. A server that stopped (crashed, closed its pipes) is started again at the next
//! call; one that fails to start again is tried later, waiting longer each time.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, ServerResult,
};
use rmcp::service::{PeerRequestOptions, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};
use tokio_util::sync::CancellationToken;

use rein_tool::HiddenEnv;

use crate::config::{ServerConfig, Transport};
use crate::error::{McpError, StartError};
use crate::stderr::StderrTail;
use crate::stdio::{FRAME_LIMIT, Oversized};

/// Longest wait before trying to start a failing server again.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// A server.
pub struct Server {
    /// Its configuration.
    pub config: ServerConfig,
    /// It said at start that it offers resources.
    pub has_resources: bool,
    /// The prompts it offered at start (slash commands).
    pub prompts: Vec<rmcp::model::Prompt>,
    /// The tools it offers (after `enabled_tools`/`disabled_tools`), as last listed.
    tools: RwLock<Vec<rmcp::model::Tool>>,
    /// Set when the server says its tool list changed, or it was started again.
    tools_changed: Arc<AtomicBool>,
    /// What it last wrote on its standard error.
    stderr: StderrTail,
    /// Its messages too long to read, which fail the calls waiting.
    oversized: Oversized,
    /// The variables its process does not inherit.
    hidden: HiddenEnv,
    conn: tokio::sync::Mutex<Conn>,
}

/// rein's side of a connection: notes when the server says its tools changed, and keeps the
/// last lines the server wrote on its standard error (said when it fails).
#[derive(Clone)]
struct Client {
    tools_changed: Arc<AtomicBool>,
    stderr: StderrTail,
    oversized: Oversized,
}

impl rmcp::ClientHandler for Client {
    async fn on_tool_list_changed(&self, _context: rmcp::service::NotificationContext<RoleClient>) {
        self.tools_changed.store(true, Ordering::SeqCst);
    }
}

type Running = RunningService<RoleClient, Client>;

/// The running process and its client, when there is one.
struct Conn {
    client: Option<Running>,
    /// Killed when replaced or dropped.
    _group: GroupGuard,
    /// Failed starts in a row.
    failures: u32,
    /// No new start before this.
    retry_at: Option<Instant>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.config.name)
            .field("tools", &self.tools().len())
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Starts the server and lists its tools, within its startup timeout; a stdio server's
    /// process does not inherit the variables of `hidden` (the provider keys).
    pub async fn connect(config: ServerConfig, hidden: HiddenEnv) -> Result<Self, McpError> {
        let name = config.name.clone();
        let handler = Client {
            tools_changed: Arc::new(AtomicBool::new(false)),
            stderr: StderrTail::default(),
            oversized: Oversized::default(),
        };
        let (client, group) = start_within(&config, &handler, &hidden)
            .await
            .map_err(|reason| McpError::NotStarted {
                server: name.clone(),
                reason: Box::new(reason),
            })?;
        let tools =
            list_tools(client.peer(), &config)
                .await
                .map_err(|error| McpError::ToolsNotListed {
                    server: name.clone(),
                    error: Box::new(error),
                })?;
        let capabilities = client.peer_info().map(|info| info.capabilities.clone());
        let has_resources = capabilities.as_ref().is_some_and(|c| c.resources.is_some());
        let prompts = match capabilities.as_ref().and_then(|c| c.prompts.as_ref()) {
            // A server whose prompts cannot be listed still serves its tools.
            Some(_) => client.list_all_prompts().await.unwrap_or_default(),
            None => Vec::new(),
        };
        Ok(Self {
            config,
            tools: RwLock::new(tools),
            tools_changed: handler.tools_changed,
            stderr: handler.stderr,
            oversized: handler.oversized,
            hidden,
            has_resources,
            prompts,
            conn: tokio::sync::Mutex::new(Conn {
                client: Some(client),
                _group: group,
                failures: 0,
                retry_at: None,
            }),
        })
    }

    /// Whether its connection is up (a server busy with a call counts as up); one that
    /// stopped is started again at the next call.
    pub fn running(&self) -> bool {
        match self.conn.try_lock() {
            Ok(conn) => conn
                .client
                .as_ref()
                .is_some_and(|c| !c.is_closed() && !c.peer().is_transport_closed()),
            Err(_) => true,
        }
    }

    /// The tools it offers, as last listed.
    pub fn tools(&self) -> Vec<rmcp::model::Tool> {
        self.tools.read().map(|t| t.clone()).unwrap_or_default()
    }

    /// Lists its tools again when it said they changed (or was started again); whether it
    /// did. A server that cannot list them keeps the last list.
    pub async fn refresh_tools(&self) -> bool {
        if !self.tools_changed.swap(false, Ordering::SeqCst) {
            return false;
        }
        let Ok(peer) = self.peer().await else {
            return false;
        };
        match list_tools(&peer, &self.config).await {
            Ok(tools) => {
                if let Ok(mut listed) = self.tools.write() {
                    *listed = tools;
                }
                true
            }
            Err(_) => false,
        }
    }

    /// The messages of prompt `name` with `arguments`, as text.
    pub async fn prompt(
        &self,
        name: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> Result<rmcp::model::GetPromptResult, McpError> {
        let peer = self.peer().await?;
        let params = rmcp::model::GetPromptRequestParams::new(name).with_arguments(arguments);
        match tokio::time::timeout(self.config.tool_timeout, peer.get_prompt(params)).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(e)) => Err(McpError::from(e)),
            Err(_) => Err(McpError::PromptTimedOut),
        }
    }

    /// Calls `tool` with `arguments`, within the server's tool timeout; starts the server
    /// again first when it stopped. When `cancel` fires first, the server is told
    /// (`notifications/cancelled`) before this returns.
    pub async fn call(
        &self,
        tool: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
        cancel: &CancellationToken,
    ) -> Result<CallToolResult, McpError> {
        let peer = self.peer().await?;
        let mut params = CallToolRequestParams::new(tool.to_string());
        if let Some(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        let timeout = self.config.tool_timeout;
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let options = PeerRequestOptions::with_timeout(timeout);
        let mut oversized = self.oversized.watch();
        let handle = match peer.send_cancellable_request(request, options).await {
            Ok(handle) => handle,
            Err(e) => return Err(describe(e, timeout, &self.stderr)),
        };
        let id = handle.id.clone();
        tokio::select! {
            response = handle.await_response() => match response {
                Ok(ServerResult::CallToolResult(result)) => Ok(result),
                Ok(_) => Err(McpError::UnexpectedAnswer),
                Err(e) => Err(describe(e, timeout, &self.stderr)),
            },
            () = cancel.cancelled() => {
                let reason = "cancelled by the user".to_string();
                let _ = peer
                    .notify_cancelled(CancelledNotificationParam::new(Some(id), Some(reason)))
                    .await;
                Err(McpError::Cancelled)
            }
            // The answer (or another message of the server while this call waited) is being
            // dropped: it would never arrive.
            Ok(()) = oversized.changed() => {
                let reason = "its answer was too long to read".to_string();
                let _ = peer
                    .notify_cancelled(CancelledNotificationParam::new(Some(id), Some(reason)))
                    .await;
                Err(McpError::Oversized {
                    limit_mib: FRAME_LIMIT / (1024 * 1024),
                })
            }
        }
    }

    /// Ends the connection politely: the server's input is closed and it is given `grace`
    /// to exit (then it is stopped); what was sent before, a cancellation among it, reaches
    /// it first.
    pub async fn shutdown(&self, grace: Duration) {
        let mut conn = self.conn.lock().await;
        if let Some(mut client) = conn.client.take() {
            let _ = client.close_with_timeout(grace).await;
        }
    }

    /// The resources the server lists now.
    pub async fn resources(&self) -> Result<Vec<rmcp::model::Resource>, McpError> {
        let peer = self.peer().await?;
        Ok(peer.list_all_resources().await?)
    }

    /// The contents of the resource at `uri`.
    pub async fn read_resource(
        &self,
        uri: &str,
    ) -> Result<Vec<rmcp::model::ResourceContents>, McpError> {
        let peer = self.peer().await?;
        let params = rmcp::model::ReadResourceRequestParams::new(uri);
        match tokio::time::timeout(self.config.tool_timeout, peer.read_resource(params)).await {
            Ok(Ok(result)) => Ok(result.contents),
            Ok(Err(e)) => Err(McpError::from(e)),
            Err(_) => Err(McpError::ReadTimedOut),
        }
    }

    /// A handle on the running client, starting the server again when it stopped.
    async fn peer(&self) -> Result<rmcp::Peer<RoleClient>, McpError> {
        let mut conn = self.conn.lock().await;
        let alive = conn
            .client
            .as_ref()
            .is_some_and(|c| !c.is_closed() && !c.peer().is_transport_closed());
        if !alive {
            if let Some(at) = conn.retry_at
                && Instant::now() < at
            {
                return Err(McpError::Backoff {
                    seconds: (at - Instant::now()).as_secs_f64().ceil(),
                });
            }
            conn.client = None;
            conn._group = GroupGuard(None);
            let handler = Client {
                tools_changed: Arc::clone(&self.tools_changed),
                stderr: self.stderr.clone(),
                oversized: self.oversized.clone(),
            };
            match start_within(&self.config, &handler, &self.hidden).await {
                Ok((client, group)) => {
                    conn.client = Some(client);
                    conn._group = group;
                    conn.failures = 0;
                    conn.retry_at = None;
                    // A server started again may offer other tools.
                    self.tools_changed.store(true, Ordering::SeqCst);
                }
                Err(e) => {
                    conn.failures += 1;
                    let wait = Duration::from_secs(1 << conn.failures.min(5)).min(MAX_BACKOFF);
                    conn.retry_at = Some(Instant::now() + wait);
                    return Err(McpError::NotRestarted {
                        reason: Box::new(e),
                    });
                }
            }
        }
        match &conn.client {
            Some(client) => Ok(client.peer().clone()),
            None => Err(McpError::NotRunning),
        }
    }
}

/// The tools `peer` lists that `config` lets through (`enabled_tools`, `disabled_tools`).
async fn list_tools(
    peer: &rmcp::Peer<RoleClient>,
    config: &ServerConfig,
) -> Result<Vec<rmcp::model::Tool>, ServiceError> {
    let mut tools = peer.list_all_tools().await?;
    tools.retain(|t| {
        let name = t.name.as_ref();
        config
            .enabled_tools
            .as_ref()
            .is_none_or(|only| only.iter().any(|o| o == name))
            && !config.disabled_tools.iter().any(|d| d == name)
    });
    Ok(tools)
}

/// One line for a failed call.
fn describe(error: ServiceError, timeout: Duration, stderr: &StderrTail) -> McpError {
    match error {
        ServiceError::TransportClosed => McpError::StoppedDuringCall {
            stderr: stderr.said(),
        },
        ServiceError::Timeout { .. } => McpError::CallTimedOut { timeout },
        other => McpError::Service(Box::new(other)),
    }
}

/// Starts the server's process and does the handshake within its startup timeout.
async fn start_within(
    config: &ServerConfig,
    client: &Client,
    hidden: &HiddenEnv,
) -> Result<(Running, GroupGuard), StartError> {
    let timeout = config.startup_timeout;
    match tokio::time::timeout(timeout, start(config, client.clone(), hidden)).await {
        Ok(result) => result,
        Err(_) => Err(StartError::NoAnswer {
            timeout,
            stderr: client.stderr.said(),
        }),
    }
}

async fn start(
    config: &ServerConfig,
    client: Client,
    hidden: &HiddenEnv,
) -> Result<(Running, GroupGuard), StartError> {
    match &config.transport {
        Transport::Stdio { command, args, env } => {
            start_stdio(config, command, args, env, client, hidden).await
        }
        Transport::Http {
            url,
            headers,
            sse: false,
        } => Ok((start_http(url, headers, client).await?, GroupGuard(None))),
        Transport::Http { sse: true, .. } => Err(StartError::LegacySse),
    }
}

async fn start_stdio(
    config: &ServerConfig,
    command: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
    client: Client,
    hidden: &HiddenEnv,
) -> Result<(Running, GroupGuard), StartError> {
    let spawned = crate::stdio::spawn(config, command, args, env, hidden, &client.oversized)
        .map_err(|error| StartError::CannotRun {
            command: command.to_string(),
            error,
        })?;
    let group = GroupGuard(spawned.pid.and_then(|id| i32::try_from(id).ok()));
    let tail = client.stderr.clone();
    let reading = spawned.stderr.map(|stderr| tail.follow(stderr));
    match client.serve(spawned.transport).await {
        Ok(client) => Ok((client, group)),
        Err(error) => {
            // A server that failed has usually said why on its way out.
            if let Some(reading) = reading {
                let _ = tokio::time::timeout(Duration::from_millis(500), reading).await;
            }
            Err(StartError::Handshake {
                error,
                stderr: tail.said(),
            })
        }
    }
}

/// Connects to a streamable HTTP endpoint, sending `headers` with every request.
async fn start_http(
    url: &str,
    headers: &BTreeMap<String, String>,
    client: Client,
) -> Result<Running, StartError> {
    let mut custom = std::collections::HashMap::new();
    for (name, value) in headers {
        let name = HeaderName::try_from(name.as_str())
            .map_err(|_| StartError::HeaderName(name.clone()))?;
        let value = HeaderValue::try_from(value.as_str())
            .map_err(|_| StartError::HeaderValue(name.to_string()))?;
        custom.insert(name, value);
    }
    // reqwest is built without a TLS provider of its own (see rein-llm).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(30))
        .build()
        .map_err(StartError::HttpClient)?;
    let transport = StreamableHttpClientTransport::with_client(
        http,
        StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom),
    );
    client
        .serve(transport)
        .await
        .map_err(|error| StartError::HttpHandshake {
            url: url.to_string(),
            error,
        })
}

/// Kills a process group when dropped.
struct GroupGuard(Option<i32>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(group) = self.0.take() {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(group),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}
