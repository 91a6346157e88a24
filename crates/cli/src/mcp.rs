//! The MCP servers of an invocation: the user's and a trusted workspace's `[mcp_servers]`
//! tables, a trusted workspace's `.mcp.json` (an untrusted one's are listed with the
//! other held-back settings) and the `--mcp-config` files (with `--strict-mcp-config`, only
//! those); started together before the first request.

use std::path::Path;

use rein_mcp::{ServerConfig, Vars};
use rein_tools::HiddenEnv;

use crate::config::{Config, Scope};

/// How long servers get to exit once rein is done with them (then they are stopped).
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_millis(1500);

/// Most of a `.mcp.json` read.
const MCP_JSON_CAP: u64 = 1024 * 1024;

/// The variables no server inherits and no workspace's configuration reads: the one list of
/// secrets ([`crate::secrets`]; `key_env` is `--api-key-env`).
pub fn hidden_env(config: &Config, key_env: Option<&str>) -> HiddenEnv {
    crate::secrets::hidden(config, key_env)
}

/// The servers configured for `workspace`, and what could not be used. The user's own
/// tables read every variable; a workspace's `.mcp.json` and tables only those the user's
/// `mcp_env_allow` lists, never one of `hidden`.
pub fn configs(
    workspace: &Path,
    config: &Config,
    env: &dyn Fn(&str) -> Option<String>,
    hidden: &HiddenEnv,
) -> (Vec<ServerConfig>, Vec<String>) {
    let allowed: Vec<String> = config
        .mcp_env_allow
        .iter()
        .map(|v| v.value.clone())
        .collect();
    let user_vars = Vars::user(env);
    let workspace_vars = Vars::workspace(env, &allowed, hidden.names());
    let mut servers: Vec<ServerConfig> = Vec::new();
    let mut warnings = Vec::new();
    let add = |server: ServerConfig, servers: &mut Vec<ServerConfig>| {
        servers.retain(|s| s.name != server.name);
        servers.push(server);
    };
    let path = workspace.join(".mcp.json");
    if config.workspace_trusted && !config.mcp_strict {
        match rein_tools::read_regular(&path, MCP_JSON_CAP) {
            Ok(Some(text)) => match rein_mcp::parse_mcp_json(&text, ".mcp.json", &workspace_vars) {
                Ok(parsed) => {
                    warnings.extend(parsed.warnings);
                    for server in parsed.servers {
                        add(server, &mut servers);
                    }
                }
                Err(e) => warnings.push(format!("MCP servers not read: {e}")),
            },
            Ok(None) => {}
            Err(e) => warnings.push(format!("MCP servers not read: {e}")),
        }
    }
    let tables = config.mcp_servers.iter().filter(|_| !config.mcp_strict);
    for entry in tables {
        let vars = match entry.scope {
            Scope::User => &user_vars,
            Scope::TrustedWorkspace | Scope::UntrustedWorkspace => &workspace_vars,
        };
        let configured = entry.table.to_config(&entry.name, &entry.source, vars);
        warnings.extend(vars.take_warnings());
        match configured {
            Ok(Some(server)) => add(server, &mut servers),
            Ok(None) => {}
            Err(e) => warnings.push(e.to_string()),
        }
    }
    // `--mcp-config` files last: the user named them for this run.
    for file in &config.mcp_flag_files {
        match rein_mcp::parse_mcp_json(&file.value, &file.source, &user_vars) {
            Ok(parsed) => {
                warnings.extend(parsed.warnings);
                for server in parsed.servers {
                    add(server, &mut servers);
                }
            }
            Err(e) => warnings.push(format!("MCP servers not read: {e}")),
        }
    }
    for server in &config.mcp_given {
        add(server.clone(), &mut servers);
    }
    (servers, warnings)
}

/// Starts the configured servers, saying on stderr which could not be used.
pub async fn start(
    workspace: &Path,
    config: &Config,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
    hidden: &HiddenEnv,
) -> rein_mcp::Started {
    let (servers, warnings) = configs(workspace, config, env, hidden);
    for warning in warnings {
        eprintln!("rein: {warning}");
    }
    if servers.is_empty() {
        return rein_mcp::Started::default();
    }
    let started = rein_mcp::start_hiding(servers, hidden).await;
    for (_, failure) in &started.failures {
        eprintln!("rein: {failure}; going on without it");
    }
    started
}

/// The servers' prompts as slash commands (`/mcp__server__prompt args`).
pub fn prompt_commands(started: &rein_mcp::Started) -> Vec<rein_engine::commands::PromptCommand> {
    started
        .prompts()
        .into_iter()
        .map(|prompt| rein_engine::commands::PromptCommand {
            argument_hint: prompt.argument_hint(),
            name: prompt.command,
            description: prompt.description,
            allowed_tools: Vec::new(),
            model: None,
            body: String::new(),
            source: format!("MCP server {}", prompt.server.config.name).into(),
            skill: None,
            fetched: true,
        })
        .collect()
}

/// Where `/mcp__server__prompt` gets its text: the server.
#[derive(Debug)]
pub struct Prompts(pub std::sync::Arc<rein_mcp::Started>);

#[async_trait::async_trait]
impl rein_engine::commands::PromptSource for Prompts {
    async fn fetch(&self, name: &str, args: &str) -> Result<String, rein_engine::FrontEndError> {
        match self.0.prompts().into_iter().find(|p| p.command == name) {
            Some(prompt) => Ok(prompt.fetch(args).await?),
            None => Err(format!("no MCP server offers the prompt {name}").into()),
        }
    }
}

/// The servers as `/mcp` shows them: those that started, then those that did not.
pub fn views(started: &rein_mcp::Started) -> Vec<rein_tui::McpServerView> {
    let prompts = started.prompts();
    let mut views: Vec<rein_tui::McpServerView> = started
        .servers
        .iter()
        .map(|server| {
            let tools = server.tools();
            let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
            let mut details = vec![format!("tools: {}", names.join(", "))];
            let own: Vec<String> = prompts
                .iter()
                .filter(|p| p.server.config.name == server.config.name)
                .map(|p| format!("/{}", p.command))
                .collect();
            if !own.is_empty() {
                details.push(format!("prompts: {}", own.join(", ")));
            }
            details.push(format!("from {}", server.config.source));
            rein_tui::McpServerView {
                name: server.config.name.clone(),
                transport: server.config.transport.name().to_string(),
                status: if server.running() {
                    format!("connected · {} tools", tools.len())
                } else {
                    format!(
                        "stopped (started again at the next call) · {} tools",
                        tools.len()
                    )
                },
                details,
            }
        })
        .collect();
    for (name, why) in &started.failures {
        views.push(rein_tui::McpServerView {
            name: name.clone(),
            transport: String::new(),
            status: "failed".to_string(),
            details: vec![why.clone()],
        });
    }
    views
}

/// `rein mcp list`: each configured server started, with its transport, its status and tools,
/// or why it did not start; then the configuration problems.
pub async fn list(
    workspace: &Path,
    config: &Config,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(), crate::Exit> {
    let hidden = hidden_env(config, None);
    let (servers, mut warnings) = configs(workspace, config, env, &hidden);
    if !config.workspace_trusted && workspace.join(".mcp.json").exists() {
        warnings.push(format!(
            "this workspace's .mcp.json is not used: the workspace is not trusted (run `rein \
             trust` in {} first)",
            workspace.display()
        ));
    }
    if servers.is_empty() {
        println!(
            "no MCP servers configured (.mcp.json in a trusted workspace, or [mcp_servers] in config)"
        );
    }
    let described: Vec<(String, String, String)> = servers
        .iter()
        .map(|s| {
            let target = match &s.transport {
                rein_mcp::Transport::Stdio { command, args, .. } => {
                    std::iter::once(command.as_str())
                        .chain(args.iter().map(String::as_str))
                        .collect::<Vec<_>>()
                        .join(" ")
                }
                rein_mcp::Transport::Http { url, .. } => url.clone(),
            };
            (
                s.name.clone(),
                s.transport.name().to_string(),
                format!("{target} ({})", s.source),
            )
        })
        .collect();
    let started = rein_mcp::start_hiding(servers, &hidden).await;
    for (name, transport, target) in described {
        match started.servers.iter().find(|s| s.config.name == name) {
            Some(server) => {
                let listed = server.tools();
                let tools: Vec<&str> = listed.iter().map(|t| t.name.as_ref()).collect();
                println!(
                    "{name}  {transport}  connected  {} tools: {}",
                    tools.len(),
                    tools.join(", ")
                );
            }
            None => {
                let why = started
                    .failures
                    .iter()
                    .find(|(failed, _)| *failed == name)
                    .map(|(_, why)| why.as_str())
                    .unwrap_or_default();
                println!("{name}  {transport}  failed  {why}");
            }
        }
        println!("    {target}");
    }
    for warning in warnings {
        println!("note: {warning}");
    }
    Ok(())
}

/// The texts of the `--mcp-config` values: files, or the JSON itself when a value starts
/// with `{`.
pub fn flag_files(values: &[String]) -> Result<Vec<crate::config::Sourced<String>>, crate::Exit> {
    let refused = |message: String| crate::Exit::usage(format!("--mcp-config: {message}"));
    values
        .iter()
        .map(|value| {
            if value.trim_start().starts_with('{') {
                return Ok(crate::config::Sourced {
                    value: value.clone(),
                    source: "--mcp-config".to_string(),
                });
            }
            match rein_tools::read_regular(Path::new(value), MCP_JSON_CAP) {
                Ok(Some(text)) => Ok(crate::config::Sourced {
                    value: text,
                    source: value.clone(),
                }),
                Ok(None) => Err(refused(format!("{value}: no such file"))),
                Err(why) => Err(refused(format!("{value}: cannot read it: {why}"))),
            }
        })
        .collect()
}
