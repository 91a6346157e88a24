//! The arguments of `rein mcp`: the MCP servers a workspace starts (`list`, `add`, `remove`)
//! and rein served as one (`serve`, whose flags `rein acp` takes too).

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use crate::arg_values::{ProviderArg, mode_flag, positive_usd, sandbox_flag};

/// `rein mcp …`.
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Start each configured server and show its transport, status, tools and errors.
    List {
        /// Workspace directory (default: the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
    },
    /// Add a server: `rein mcp add NAME -- COMMAND [ARGS…]` or
    /// `rein mcp add --transport http NAME URL`.
    Add(McpAddArgs),
    /// Serve rein itself as an MCP server over stdio: the tools `rein` (run a prompt in a new
    /// session, to its answer) and `rein-reply` (continue a session), for Claude Desktop,
    /// another agent or an IDE.
    Serve(Box<ServeArgs>),
    /// Remove a server (from the scope given, or from the one place it is).
    Remove {
        /// The server's name.
        name: String,
        /// Where it is: the user's config.toml or the workspace's .mcp.json.
        #[arg(long, value_enum)]
        scope: Option<McpScope>,
        /// Workspace directory (default: the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
    },
}

/// `rein mcp serve`: the defaults of every session it runs; a call may narrow them (another
/// model, a narrower permission mode, more rules), never widen the mode.
#[derive(Debug, Clone, Default, Args)]
pub struct ServeArgs {
    /// The model and where it is asked.
    #[command(flatten)]
    pub route: ModelRoute,
    /// The default workspace, for calls that name no `cwd` (default: the current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// The permission mode of every session, and the broadest a call may ask for: default,
    /// accept-edits, auto, plan or bypass (default: the config's, else default). Calls the
    /// mode would ask about are asked through the client (MCP elicitation) when it can;
    /// otherwise they are refused, as in `rein exec`.
    #[arg(long, value_parser = ["default", "accept-edits", "auto", "plan", "bypass", "acceptEdits", "bypassPermissions"])]
    pub permission_mode: Option<String>,
    /// OS sandbox of shell commands: read-only, workspace-write or off.
    #[arg(long, value_parser = ["read-only", "workspace-write", "off"])]
    pub sandbox: Option<String>,
    /// Rules for calls that run without approval in every session (as in `rein exec`).
    #[arg(long, value_name = "RULES")]
    pub allowed_tools: Vec<String>,
    /// Rules for calls that never run in any session.
    #[arg(long, value_name = "RULES")]
    pub disallowed_tools: Vec<String>,
    /// Maximum model requests per prompt (default 50).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: Option<u32>,
    /// Stop a session before its next model request once it has cost this much (USD); a
    /// call may ask for less.
    #[arg(long, value_name = "USD", value_parser = positive_usd)]
    pub max_budget_usd: Option<f64>,
}

/// The model and where it is asked, as `rein mcp serve`, `rein acp` and `rein eval` take them.
#[derive(Debug, Clone, Default, Args)]
pub struct ModelRoute {
    /// Model name (default: claude-sonnet-4-5, or $REIN_MODEL).
    #[arg(long, short = 'm')]
    pub model: Option<String>,
    /// Wire protocol; inferred from the model name when absent.
    #[arg(long, value_enum)]
    pub provider: Option<ProviderArg>,
    /// API base URL (Anthropic: without /v1; OpenAI-style: ending in /v1).
    #[arg(long)]
    pub base_url: Option<String>,
    /// Environment variable holding the API key.
    #[arg(long)]
    pub api_key_env: Option<String>,
}

/// Where `rein mcp add` writes a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum McpScope {
    /// The user's config.toml (`[mcp_servers.NAME]`): every workspace, only this user.
    User,
    /// The workspace's .mcp.json: shared with everyone who clones it (once they trust it).
    Project,
}

/// `rein mcp add`.
#[derive(Debug, Args)]
pub struct McpAddArgs {
    /// The server's name (tools become `mcp__NAME__tool`).
    pub name: String,
    /// After `--`, the command and its arguments; with --transport http, the URL.
    #[arg(value_name = "COMMAND|URL")]
    pub target: Vec<String>,
    /// `stdio` (default) or `http` (streamable HTTP).
    #[arg(long, short = 't')]
    pub transport: Option<String>,
    /// A variable of the server's environment, KEY=VALUE (repeatable).
    #[arg(long = "env", short = 'e', value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// A header sent to an HTTP server, "Name: value" (repeatable; `Bearer ${VAR}` is read
    /// from the environment when rein starts).
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE")]
    pub header: Vec<String>,
    /// Where to write it.
    #[arg(long, value_enum, default_value = "user")]
    pub scope: McpScope,
    /// Workspace directory (default: the current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
}

impl ModelRoute {
    /// The route as the settings take it.
    pub fn overrides(&self) -> crate::overrides::Route {
        crate::overrides::Route {
            provider: self.provider.map(ProviderArg::kind),
            model: self.model.clone(),
            base_url: self.base_url.clone(),
            api_key_env: self.api_key_env.clone(),
        }
    }
}

impl ServeArgs {
    /// What the server's flags set in every session it runs (`rein mcp serve`, `rein acp`);
    /// an unknown mode or sandbox is a usage error naming the flag.
    pub fn overrides(&self) -> Result<crate::overrides::Overrides, crate::Exit> {
        use crate::overrides::{Limits, Mode, Overrides, RuleTexts};
        let mode = (self.permission_mode.as_deref())
            .map(|name| mode_flag(name).map(Mode::Named))
            .transpose()?;
        let sandbox = self.sandbox.as_deref().map(sandbox_flag).transpose()?;
        Ok(Overrides {
            cwd: self.cwd.clone(),
            route: self.route.overrides(),
            mode,
            sandbox,
            rules: RuleTexts {
                allow: self.allowed_tools.clone(),
                deny: self.disallowed_tools.clone(),
            },
            limits: Limits {
                max_turns: self.max_turns,
                max_budget_usd: self.max_budget_usd,
                ..Limits::default()
            },
            ..Overrides::default()
        })
    }
}
