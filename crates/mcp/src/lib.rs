//! rein's MCP client: the servers users configure (`.mcp.json`, `[mcp_servers]`), started
//! together when a session starts, their tools offered as rein [`rein_tool::Tool`]s named
//! `mcp__<server>__<tool>` and guarded like built-in ones.
#![deny(missing_docs)]

pub mod config;
mod error;
mod prompts;
mod resources;
mod server;
mod stderr;
mod stdio;
mod tool;
mod vars;

use std::sync::Arc;

pub use config::{ServerConfig, TomlServer, Transport, check_name, parse_mcp_json};
pub use error::{McpError, StartError};
pub use prompts::McpPrompt;
pub use server::Server;
pub use tool::McpTool;
pub use vars::Vars;

/// The servers of a session that started, and those that did not.
#[derive(Debug, Default)]
pub struct Started {
    /// Servers that answered, in configuration order.
    pub servers: Vec<Arc<Server>>,
    /// The servers that failed: (name, one line saying why).
    pub failures: Vec<(String, String)>,
}

impl Started {
    /// Every server's tools, uniquely named beside `taken` (the built-in tools' names), and
    /// the resource tools when a server offers resources.
    pub fn tools(&self, taken: &[String]) -> Vec<Arc<dyn rein_tool::Tool>> {
        let mut names = taken.to_vec();
        let mut tools: Vec<Arc<dyn rein_tool::Tool>> = self
            .servers
            .iter()
            .flat_map(|server| McpTool::all_of(server, &mut names))
            .map(|tool| Arc::new(tool) as Arc<dyn rein_tool::Tool>)
            .collect();
        tools.extend(resources::tools(&self.servers));
        tools
    }

    /// Ends every connection politely (each server gets `grace` to exit; see
    /// [`Server::shutdown`]).
    pub async fn shutdown(&self, grace: std::time::Duration) {
        futures::future::join_all(self.servers.iter().map(|s| s.shutdown(grace))).await;
    }

    /// Every server's prompts, as slash commands.
    pub fn prompts(&self) -> Vec<McpPrompt> {
        prompts::all(&self.servers)
    }
}

#[async_trait::async_trait]
impl rein_tool::ToolSource for Started {
    fn tools(&self, taken: &[String]) -> Vec<Arc<dyn rein_tool::Tool>> {
        Started::tools(self, taken)
    }

    async fn refresh(&self) -> bool {
        let refreshed =
            futures::future::join_all(self.servers.iter().map(|s| s.refresh_tools())).await;
        refreshed.into_iter().any(|changed| changed)
    }
}

/// Starts every server at once; each has its own startup timeout. Stdio servers do not
/// inherit the built-in provider keys ([`rein_tool::PROVIDER_KEY_VARS`]).
pub async fn start(configs: Vec<ServerConfig>) -> Started {
    start_hiding(configs, &rein_tool::HiddenEnv::default()).await
}

/// [`start`], stdio servers inheriting none of `hidden`'s variables (the provider keys and
/// the configured key variable, as commands and hooks).
pub async fn start_hiding(configs: Vec<ServerConfig>, hidden: &rein_tool::HiddenEnv) -> Started {
    let names: Vec<String> = configs.iter().map(|c| c.name.clone()).collect();
    let connecting = configs
        .into_iter()
        .map(|config| Server::connect(config, hidden.clone()));
    let results = futures::future::join_all(connecting).await;
    let mut started = Started::default();
    for (name, result) in names.into_iter().zip(results) {
        match result {
            Ok(server) => started.servers.push(Arc::new(server)),
            Err(failure) => started.failures.push((name, failure.to_string())),
        }
    }
    started
}
