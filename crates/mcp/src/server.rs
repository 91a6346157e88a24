//! One connected MCP server: started in its own process group (killed with it), its tools
//! listed once at start.

use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};

use crate::config::{ServerConfig, Transport};

/// A running server.
pub struct Server {
    /// Its configuration.
    pub config: ServerConfig,
    /// The tools it offers (after `enabled_tools`/`disabled_tools`).
    pub tools: Vec<rmcp::model::Tool>,
    client: RunningService<RoleClient, ()>,
    /// Its process group, killed when it is dropped (a stdio server's children too).
    group: Option<i32>,
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
        let timeout = config.startup_timeout;
        match tokio::time::timeout(timeout, Self::start(config)).await {
            Ok(result) => result.map_err(|e| format!("MCP server `{name}` did not start: {e}")),
            Err(_) => Err(format!(
                "MCP server `{name}` did not start within {:.0} s",
                timeout.as_secs_f64()
            )),
        }
    }

    async fn start(config: ServerConfig) -> Result<Self, String> {
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
        let (transport, _stderr) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run `{command}`: {e}"))?;
        let group = transport.id().and_then(|id| i32::try_from(id).ok());
        let guard = GroupGuard(group);
        let client =
            ().serve(transport)
                .await
                .map_err(|e| format!("the MCP handshake failed: {e}"))?;
        let mut tools = client
            .list_all_tools()
            .await
            .map_err(|e| format!("listing its tools failed: {e}"))?;
        tools.retain(|t| {
            let name = t.name.as_ref();
            config
                .enabled_tools
                .as_ref()
                .is_none_or(|only| only.iter().any(|o| o == name))
                && !config.disabled_tools.iter().any(|d| d == name)
        });
        std::mem::forget(guard);
        Ok(Self {
            config,
            tools,
            client,
            group,
        })
    }

    /// Calls `tool` with `arguments`, within the server's tool timeout.
    pub async fn call(
        &self,
        tool: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
    ) -> Result<CallToolResult, String> {
        let mut params = CallToolRequestParams::new(tool.to_string());
        if let Some(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        let timeout: Duration = self.config.tool_timeout;
        match tokio::time::timeout(timeout, self.client.call_tool(params)).await {
            Ok(result) => result.map_err(|e| e.to_string()),
            Err(_) => Err(format!(
                "the call timed out after {:.0} s",
                timeout.as_secs_f64()
            )),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        GroupGuard(self.group);
    }
}

/// Kills a process group when dropped.
struct GroupGuard(Option<i32>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(group) = self.0 {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(group),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}
