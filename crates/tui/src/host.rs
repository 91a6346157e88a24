//! What the UI is given: the binary's side ([`SessionHost`]: sessions, models, commands,
//! listings, settings) and what it starts with ([`Launch`]).

use std::path::PathBuf;
use std::sync::Arc;

use rein_engine::session::SessionSummary;
use rein_engine::{Agent, AgentFactory};

use crate::settings::{SettingsChange, SettingsChanged, SettingsRefused};

/// What the binary provides: sessions and models, which need its configuration.
/// Agents for `/clear`, `/resume` and `/model` come from its [`AgentFactory`] side.
pub trait SessionHost: AgentFactory {
    /// This workspace's stored sessions, newest first.
    fn sessions(&self) -> Vec<SessionSummary>;
    /// Where this workspace's prompt history is kept.
    fn history_file(&self) -> Option<PathBuf>;
    /// The custom commands and skills the user may type.
    fn commands(&self) -> rein_engine::commands::Catalog;
    /// The session's MCP servers, for `/mcp`.
    fn mcp_servers(&self) -> Vec<McpServerView> {
        Vec::new()
    }
    /// The workspace, for the start line.
    fn workspace(&self) -> Option<PathBuf> {
        None
    }
    /// What `/status` says beyond the session's own status: (label, value) lines such as the
    /// provider, its base URL, the workspace and its trust, the sandbox.
    fn about(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    /// The user's status line command (Claude Code's `statusLine`), if any.
    fn status_command(&self) -> Option<crate::StatusCommand> {
        None
    }
    /// The lines of a listing (`/config`, `/hooks`, `/agents`); none: nothing to list.
    fn listing(&self, what: Listing) -> Vec<String> {
        let _ = what;
        Vec::new()
    }
    /// The workspace's paths for `@` completion, relative (folders end with `/`), what
    /// .gitignore ignores and the sensitive ones left out.
    fn paths(&self) -> Vec<String> {
        Vec::new()
    }
    /// The memory files `#` writes to and `/memory` offers to edit, existing or not, each
    /// with whose it is: the model's own memory of the workspace (`MEMORY.md` in rein's data
    /// folder), the workspace's `AGENTS.md`, the user's own.
    fn memory_files(&self) -> Vec<(PathBuf, String)> {
        Vec::new()
    }
    /// Writes `change` to its settings file (`/config set`, `/permissions allow …`).
    fn change_settings(&self, change: SettingsChange) -> Result<SettingsChanged, SettingsRefused> {
        let _ = change;
        Err(SettingsRefused(
            "settings cannot be changed from here".to_string(),
        ))
    }
}

/// What a listing command shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    /// `/config`: the merged configuration, each value with its source.
    Config,
    /// `/hooks`: the hooks configured and where.
    Hooks,
    /// `/agents`: the subagent definitions and where they come from.
    Agents,
    /// `/doctor`: what could stop the session from working, each with its fix.
    Doctor,
    /// `/memory`: the memory files the system prompt carries.
    Memory,
}

impl Listing {
    /// The heading of its list.
    pub fn title(self) -> &'static str {
        match self {
            Self::Config => "Configuration",
            Self::Hooks => "Hooks",
            Self::Agents => "Subagents",
            Self::Doctor => "Checks",
            Self::Memory => "Memory files",
        }
    }
}

/// One MCP server as `/mcp` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerView {
    /// Its name.
    pub name: String,
    /// `stdio` or `http`.
    pub transport: String,
    /// `connected · 7 tools`, or why it failed.
    pub status: String,
    /// More lines: its tools, its prompts, where it is configured.
    pub details: Vec<String>,
}

/// What `rein` starts the UI with.
pub struct Launch {
    /// The agent (new or resumed, already recording).
    pub agent: Agent,
    /// Sessions and models.
    pub host: Arc<dyn SessionHost>,
    /// A prompt to send at once.
    pub prompt: Option<String>,
    /// `NO_COLOR` is set.
    pub no_color: bool,
}
