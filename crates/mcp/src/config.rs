//! MCP server configuration as users already have it: Claude Code's `.mcp.json` (with or
//! without the `mcpServers` wrapper; `type` absent or `stdio`, `http`, `sse`; `${VAR}` and
//! `${VAR:-default}` expanded) and codex's `[mcp_servers.<name>]` TOML tables.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;

use crate::McpError;
use crate::vars::{Lookup, Vars, expand_vars};

/// How long a server may take to start and list its tools, unless configured.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one tool call may take, unless configured.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(600);

/// One server, ready to connect.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    /// Its name (`mcp__<name>__<tool>`).
    pub name: String,
    /// How to reach it.
    pub transport: Transport,
    /// The folder a stdio server runs in (rein's own when `None`).
    pub cwd: Option<String>,
    /// Longest wait for it to start and list its tools.
    pub startup_timeout: Duration,
    /// Longest one call may run.
    pub tool_timeout: Duration,
    /// Only these tools are offered, when set.
    pub enabled_tools: Option<Vec<String>>,
    /// These tools are never offered.
    pub disabled_tools: Vec<String>,
    /// Where it was configured (a file path).
    pub source: String,
}

impl ServerConfig {
    /// Server `name` reached by `transport`, configured at `source`, with the default
    /// timeouts, every tool offered and rein's own folder as a stdio server's.
    pub fn new(name: String, transport: Transport, source: &str) -> Self {
        Self {
            name,
            transport,
            cwd: None,
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
            tool_timeout: DEFAULT_TOOL_TIMEOUT,
            enabled_tools: None,
            disabled_tools: Vec::new(),
            source: source.to_string(),
        }
    }
}

/// How a server is reached.
#[derive(Debug, Clone, PartialEq)]
pub enum Transport {
    /// A process speaking MCP on its standard input and output.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to its environment.
        env: BTreeMap<String, String>,
    },
    /// A streamable HTTP (or legacy SSE) endpoint.
    Http {
        /// The endpoint.
        url: String,
        /// Headers sent with every request (a bearer token among them).
        headers: BTreeMap<String, String>,
        /// The endpoint speaks the legacy SSE transport (`type: "sse"`).
        sse: bool,
    },
}

impl Transport {
    /// `stdio`, `http` or `sse`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Stdio { .. } => "stdio",
            Self::Http { sse: false, .. } => "http",
            Self::Http { sse: true, .. } => "sse",
        }
    }
}

/// Servers read from a file, and what could not be used.
#[derive(Debug, Default)]
pub struct Parsed {
    /// The servers, in the file's order.
    pub servers: Vec<ServerConfig>,
    /// Servers skipped and variables that were not set, each named.
    pub warnings: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct JsonServer {
    #[serde(rename = "type")]
    kind: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
}

/// The servers of a `.mcp.json` text read from `source`; `vars` gives the variables the file
/// may read (and `CLAUDE_PLUGIN_ROOT` when the file belongs to a plugin). A server whose name
/// cannot be told apart in tool names ([`check_name`]) is skipped with a warning.
pub fn parse_mcp_json(text: &str, source: &str, vars: &Vars<'_>) -> Result<Parsed, McpError> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|error| McpError::NotJson {
            origin: source.to_string(),
            error,
        })?;
    let table = match value.get("mcpServers") {
        Some(inner) => inner.clone(),
        None => value,
    };
    let serde_json::Value::Object(entries) = table else {
        return Err(McpError::NotAnObject {
            origin: source.to_string(),
        });
    };
    let mut parsed = Parsed::default();
    for (name, entry) in by_name(entries) {
        // `_comment` and other notes beside the servers.
        if name.starts_with('_') || !entry.is_object() {
            continue;
        }
        if let Err(why) = check_name(&name, source) {
            parsed.warnings.push(why.to_string());
            continue;
        }
        let server: JsonServer = match serde_json::from_value(entry) {
            Ok(server) => server,
            Err(e) => {
                parsed
                    .warnings
                    .push(format!("MCP server `{name}` ({source}) skipped: {e}"));
                continue;
            }
        };
        let mut expand = |text: &str| expand_vars(text, vars, &name, source, &mut parsed.warnings);
        let transport = match (server.kind.as_deref(), server.command, server.url) {
            (None | Some("stdio"), Some(command), _) => Transport::Stdio {
                command: expand(&command),
                args: server.args.iter().map(|a| expand(a)).collect(),
                env: server
                    .env
                    .iter()
                    .map(|(k, v)| (k.clone(), expand(v)))
                    .collect(),
            },
            (None | Some("http" | "streamable-http" | "sse"), _, Some(url)) => Transport::Http {
                url: expand(&url),
                headers: server
                    .headers
                    .iter()
                    .map(|(k, v)| (k.clone(), expand(v)))
                    .collect(),
                sse: server.kind.as_deref() == Some("sse"),
            },
            (kind, _, _) => {
                parsed.warnings.push(format!(
                    "MCP server `{name}` ({source}) skipped: {}",
                    match kind {
                        Some(kind) => format!("type `{kind}` needs a command or a url"),
                        None => "it has neither a command nor a url".to_string(),
                    }
                ));
                continue;
            }
        };
        parsed
            .servers
            .push(ServerConfig::new(name, transport, source));
    }
    parsed.warnings.extend(vars.take_warnings());
    Ok(parsed)
}

/// A config's servers by name: the map's own order depends on serde_json's features
/// (insertion order once any crate of the build asks for `preserve_order`).
fn by_name(
    entries: serde_json::Map<String, serde_json::Value>,
) -> Vec<(String, serde_json::Value)> {
    let mut entries: Vec<(String, serde_json::Value)> = entries.into_iter().collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries
}

/// Refuses a server name that would make tool names ambiguous. Tools are named
/// `mcp__<server>__<tool>` and rules name a server as `mcp__<server>`: with `__` in a name
/// (`docs__x`), or `_` at its ends, the rule `mcp__docs` would also cover every tool of
/// `docs__x`. rein refuses such a name rather than escape it, so a rule means what it says.
pub fn check_name(name: &str, source: &str) -> Result<(), McpError> {
    let shown = crate::tool::sanitise(name);
    if shown.is_empty() || shown.contains("__") || shown.starts_with('_') || shown.ends_with('_') {
        return Err(McpError::AmbiguousName {
            name: name.to_string(),
            origin: source.to_string(),
            suggestion: suggest(&shown),
            shown,
        });
    }
    Ok(())
}

/// `shown` with runs of `_` made one `-` and none at the ends.
fn suggest(shown: &str) -> String {
    let parts: Vec<&str> = shown.split('_').filter(|p| !p.is_empty()).collect();
    if parts.is_empty() {
        "server".to_string()
    } else {
        parts.join("-")
    }
}

/// A `[mcp_servers.<name>]` table, with codex's keys.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TomlServer {
    /// The program of a stdio server.
    pub command: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Variables added to its environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Variables passed through from rein's environment.
    #[serde(default)]
    pub env_vars: Vec<String>,
    /// The folder it runs in.
    pub cwd: Option<String>,
    /// The endpoint of an HTTP server.
    pub url: Option<String>,
    /// The variable holding a bearer token for it.
    pub bearer_token_env_var: Option<String>,
    /// Headers with fixed values.
    #[serde(default)]
    pub http_headers: BTreeMap<String, String>,
    /// Headers whose values are read from variables.
    #[serde(default)]
    pub env_http_headers: BTreeMap<String, String>,
    /// Seconds it may take to start.
    pub startup_timeout_sec: Option<f64>,
    /// Seconds one call may take.
    pub tool_timeout_sec: Option<f64>,
    /// Only these tools are offered.
    pub enabled_tools: Option<Vec<String>>,
    /// These tools are never offered.
    #[serde(default)]
    pub disabled_tools: Vec<String>,
    /// `false` leaves it out.
    pub enabled: Option<bool>,
    /// Whether the session fails without it (accepted; rein goes on without it).
    pub required: Option<bool>,
}

impl TomlServer {
    /// The server this table describes, or why not; `None` when it is disabled.
    pub fn to_config(
        &self,
        name: &str,
        source: &str,
        vars: &Vars<'_>,
    ) -> Result<Option<ServerConfig>, McpError> {
        if self.enabled == Some(false) {
            return Ok(None);
        }
        check_name(name, source)?;
        let transport = match (&self.command, &self.url) {
            (Some(command), None) => {
                let mut env = self.env.clone();
                for key in &self.env_vars {
                    if let Some(value) = vars.get(key, name, source) {
                        env.insert(key.clone(), value);
                    }
                }
                Transport::Stdio {
                    command: command.clone(),
                    args: self.args.clone(),
                    env,
                }
            }
            (None, Some(url)) => {
                let mut headers = self.http_headers.clone();
                for (header, var) in &self.env_http_headers {
                    if let Some(value) = vars.get(var, name, source) {
                        headers.insert(header.clone(), value);
                    }
                }
                if let Some(var) = &self.bearer_token_env_var {
                    let token = match vars.lookup(var, name, source) {
                        Lookup::Value(token) => token,
                        Lookup::Unset => {
                            return Err(McpError::TokenUnset {
                                server: name.to_string(),
                                origin: source.to_string(),
                                var: var.clone(),
                            });
                        }
                        Lookup::Refused => {
                            return Err(McpError::TokenRefused {
                                server: name.to_string(),
                                origin: source.to_string(),
                                var: var.clone(),
                            });
                        }
                    };
                    headers.insert("Authorization".into(), format!("Bearer {token}"));
                }
                Transport::Http {
                    url: url.clone(),
                    headers,
                    sse: false,
                }
            }
            _ => {
                return Err(McpError::NoTransport {
                    server: name.to_string(),
                    origin: source.to_string(),
                });
            }
        };
        let seconds = |s: Option<f64>, default: Duration| {
            s.filter(|s| s.is_finite() && *s > 0.0)
                .map_or(default, Duration::from_secs_f64)
        };
        Ok(Some(ServerConfig {
            name: name.to_string(),
            transport,
            cwd: self.cwd.clone(),
            startup_timeout: seconds(self.startup_timeout_sec, DEFAULT_STARTUP_TIMEOUT),
            tool_timeout: seconds(self.tool_timeout_sec, DEFAULT_TOOL_TIMEOUT),
            enabled_tools: self.enabled_tools.clone(),
            disabled_tools: self.disabled_tools.clone(),
            source: source.to_string(),
        }))
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
