//! One MCP server: started in its own process group (killed with it), its tools listed once
//! at start. A server that stopped (crashed, closed its pipes) is started again at the next
//! call; one that fails to start again is tried later, waiting longer each time.

use std::process::Stdio;
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};

use crate::config::{ServerConfig, Transport};

/// Longest wait before trying to start a failing server again.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// A server.
pub struct Server {
    /// Its configuration.
    pub config: ServerConfig,
    /// The tools it offers (after `enabled_tools`/`disabled_tools`), as listed at start.
    pub tools: Vec<rmcp::model::Tool>,
    /// It said at start that it offers resources.
    pub has_resources: bool,
    conn: tokio::sync::Mutex<Conn>,
}

/// The running process and its client, when there is one.
struct Conn {
    client: Option<RunningService<RoleClient, ()>>,
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
            .field("tools", &self.tools.len())
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Starts the server and lists its tools, within its startup timeout.
    pub async fn connect(config: ServerConfig) -> Result<Self, String> {
        let name = config.name.clone();
        let (client, group) = start_within(&config)
            .await
            .map_err(|e| format!("MCP server `{name}` did not start: {e}"))?;
        let mut tools = client
            .list_all_tools()
            .await
            .map_err(|e| format!("MCP server `{name}` did not list its tools: {e}"))?;
        let has_resources = client
            .peer_info()
            .is_some_and(|info| info.capabilities.resources.is_some());
        tools.retain(|t| {
            let name = t.name.as_ref();
            config
                .enabled_tools
                .as_ref()
                .is_none_or(|only| only.iter().any(|o| o == name))
                && !config.disabled_tools.iter().any(|d| d == name)
        });
        Ok(Self {
            config,
            tools,
            has_resources,
            conn: tokio::sync::Mutex::new(Conn {
                client: Some(client),
                _group: group,
                failures: 0,
                retry_at: None,
            }),
        })
    }

    /// Calls `tool` with `arguments`, within the server's tool timeout; starts the server
    /// again first when it stopped.
    pub async fn call(
        &self,
        tool: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
    ) -> Result<CallToolResult, String> {
        let peer = self.peer().await?;
        let mut params = CallToolRequestParams::new(tool.to_string());
        if let Some(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        let timeout = self.config.tool_timeout;
        match tokio::time::timeout(timeout, peer.call_tool(params)).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(ServiceError::TransportClosed)) => Err(
                "the server stopped during the call; it is started again at the next call"
                    .to_string(),
            ),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!(
                "the call timed out after {:.0} s",
                timeout.as_secs_f64()
            )),
        }
    }

    /// The resources the server lists now.
    pub async fn resources(&self) -> Result<Vec<rmcp::model::Resource>, String> {
        let peer = self.peer().await?;
        peer.list_all_resources().await.map_err(|e| e.to_string())
    }

    /// The contents of the resource at `uri`.
    pub async fn read_resource(
        &self,
        uri: &str,
    ) -> Result<Vec<rmcp::model::ResourceContents>, String> {
        let peer = self.peer().await?;
        let params = rmcp::model::ReadResourceRequestParams::new(uri);
        match tokio::time::timeout(self.config.tool_timeout, peer.read_resource(params)).await {
            Ok(Ok(result)) => Ok(result.contents),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err("the read timed out".to_string()),
        }
    }

    /// A handle on the running client, starting the server again when it stopped.
    async fn peer(&self) -> Result<rmcp::Peer<RoleClient>, String> {
        let mut conn = self.conn.lock().await;
        let alive = conn
            .client
            .as_ref()
            .is_some_and(|c| !c.is_closed() && !c.peer().is_transport_closed());
        if !alive {
            if let Some(at) = conn.retry_at
                && Instant::now() < at
            {
                return Err(format!(
                    "the server stopped and could not be started again; next try in {:.0} s",
                    (at - Instant::now()).as_secs_f64().ceil()
                ));
            }
            conn.client = None;
            conn._group = GroupGuard(None);
            match start_within(&self.config).await {
                Ok((client, group)) => {
                    conn.client = Some(client);
                    conn._group = group;
                    conn.failures = 0;
                    conn.retry_at = None;
                }
                Err(e) => {
                    conn.failures += 1;
                    let wait = Duration::from_secs(1 << conn.failures.min(5)).min(MAX_BACKOFF);
                    conn.retry_at = Some(Instant::now() + wait);
                    return Err(format!(
                        "the server stopped and could not be started again: {e}"
                    ));
                }
            }
        }
        match &conn.client {
            Some(client) => Ok(client.peer().clone()),
            None => Err("the server is not running".to_string()),
        }
    }
}

/// Starts the server's process and does the handshake within its startup timeout.
async fn start_within(
    config: &ServerConfig,
) -> Result<(RunningService<RoleClient, ()>, GroupGuard), String> {
    let timeout = config.startup_timeout;
    match tokio::time::timeout(timeout, start(config)).await {
        Ok(result) => result,
        Err(_) => Err(format!("no answer within {:.0} s", timeout.as_secs_f64())),
    }
}

async fn start(
    config: &ServerConfig,
) -> Result<(RunningService<RoleClient, ()>, GroupGuard), String> {
    let (command, args, env) = match &config.transport {
        Transport::Stdio { command, args, env } => (command, args, env),
        Transport::Http { .. } => {
            return Err(format!(
                "{} servers are not supported yet (stdio only)",
                config.transport.name()
            ));
        }
    };
    let mut cmd = tokio::process::Command::new(command);
    cmd.args(args).envs(env).process_group(0).kill_on_drop(true);
    if let Some(cwd) = &config.cwd {
        cmd.current_dir(cwd);
    }
    let (transport, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run `{command}`: {e}"))?;
    let group = GroupGuard(transport.id().and_then(|id| i32::try_from(id).ok()));
    let client = ().serve(transport).await.map_err(|e| format!("the MCP handshake failed: {e}"))?;
    Ok((client, group))
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
