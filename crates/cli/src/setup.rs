//! The parts of a run built from its [`Settings`]: the agents (the first, then `/clear`,
//! `/resume` and forks: each a new agent with the commands as their folders hold them now)
//! and the MCP servers (started once). Shared by `rein exec` and the interactive UI; the
//! controller reaches them through the [`rein_engine::AgentFactory`] in `factory.rs`.

use std::sync::{Arc, Mutex};

use rein_engine::Agent;
use rein_engine::commands::Catalog;
use rein_tools::ToolRegistry;

use crate::Exit;
use crate::overrides::{Overrides, SessionStart};
use crate::sessions::{self, Start};
use crate::settings::Settings;

/// A run's settings and the live parts every agent shares.
pub struct Setup {
    /// The settings, resolved once.
    pub settings: Settings,
    /// The catalog the latest agent got (`None` before the first): the UI lists the same.
    commands: Mutex<Option<Catalog>>,
    /// The MCP servers that started (see [`Setup::start_mcp`]), shared by every agent.
    pub mcp: Arc<rein_mcp::Started>,
    /// Folders added during the session (`/add-dir`), for the agents made after.
    pub added: Mutex<Added>,
    /// The editor whose buffers the file tools use (`rein acp`), for every agent.
    pub editor: rein_tools::Editor,
    /// Traces and metrics of the session's events, when configured.
    pub telemetry: Option<rein_telemetry::Telemetry>,
}

/// Folders added to the workspace during the session, and the sandbox that shows them.
#[derive(Debug, Default)]
pub struct Added {
    /// The folders, canonical.
    pub dirs: Vec<std::path::PathBuf>,
    /// The sandbox with the folders among its read roots (`None` inside: there is none).
    pub sandbox: Option<Option<Arc<rein_sandbox::Sandbox>>>,
}

impl Setup {
    /// Resolves the settings `args` override, settling the workspace's trust as `asking` says.
    pub fn new(args: &Overrides, asking: crate::trust::Asking) -> Result<Self, Exit> {
        let settings = Settings::new(args, asking, crate::env::process)?;
        let telemetry = crate::telemetry::start(&settings, args.trace.clone())?;
        Ok(Self {
            settings,
            commands: Mutex::default(),
            mcp: Arc::default(),
            added: Mutex::default(),
            editor: rein_tools::Editor::default(),
            telemetry,
        })
    }

    /// At the end of the process: flushes the telemetry (bounded in time) and stops the MCP
    /// servers and the language servers.
    pub async fn close(&self) {
        crate::telemetry::finish(self.telemetry.as_ref()).await;
        self.mcp.shutdown(crate::mcp::SHUTDOWN_GRACE).await;
        let code = &self.settings.template.code;
        code.shutdown(crate::lsp::SHUTDOWN_GRACE).await;
    }

    /// Starts the configured MCP servers (before the first agent is made).
    pub async fn start_mcp(&mut self) {
        let settings = &self.settings;
        let hidden = settings.secrets.hidden().clone();
        let env = crate::env::process;
        let started = crate::mcp::start(&settings.workspace, &settings.config, &env, &hidden).await;
        self.mcp = Arc::new(started);
    }

    /// The custom commands and skills as their folders hold them now, with the MCP servers'
    /// prompts: read for each new agent, so a command added during a session is there after
    /// `/clear`. Problems with the files are said the first time only.
    fn load_commands(&self) -> Catalog {
        let mut kept = self.commands.lock().unwrap_or_else(|p| p.into_inner());
        let warnings = if kept.is_none() {
            crate::agents::Warnings::Said
        } else {
            crate::agents::Warnings::Quiet
        };
        let settings = &self.settings;
        let mut commands = crate::agents::commands(
            &settings.workspace,
            &settings.config,
            &settings.folders,
            &settings.sensitive,
            warnings,
        );
        let prompts = crate::mcp::prompt_commands(&self.mcp);
        if !prompts.is_empty() {
            commands = commands.with(prompts);
        }
        *kept = Some(commands.clone());
        commands
    }

    /// The catalog the latest agent got (read now when no agent was made yet).
    pub fn commands(&self) -> Catalog {
        let kept = self
            .commands
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        kept.unwrap_or_else(|| self.load_commands())
    }

    /// How the session starts as `start` says: `--resume`/`--continue`'s session loaded.
    pub fn start(&self, start: &SessionStart) -> Result<Start, Exit> {
        Start::of(start, self.settings.store.as_ref())
    }

    /// An agent starting its session as `start` says: the template with this moment's
    /// commands, a client for the run's provider, recording to its session file.
    pub fn agent(&self, start: Start) -> Result<Agent, Exit> {
        let settings = &self.settings;
        let mut config = settings.template.clone();
        config.commands = self.load_commands();
        config.session_id = start.session_id();
        config.tool_source = Some(self.mcp.clone());
        config.editor = self.editor.clone();
        config.prompt_source = Some(Arc::new(crate::mcp::Prompts(self.mcp.clone())));
        {
            let added = self.added.lock().unwrap_or_else(|p| p.into_inner());
            config.added_dirs.extend(added.dirs.iter().cloned());
            if let Some(sandbox) = &added.sandbox {
                config.sandbox.clone_from(sandbox);
            }
        }
        let mut tools = ToolRegistry::for_model(&config.model);
        if let Some(max) = &settings.config.max_terminals {
            tools.terminals().set_max_open(max.value);
        }
        match repo_map_tool(settings.config.repo_map_tokens.as_ref().map(|t| t.value)) {
            Some(tool) => {
                let at_start = settings.config.repo_map_at_start.as_ref();
                if at_start.is_some_and(|on| on.value) {
                    config.prompt_text.repo_map = Some(tool.clone());
                }
                tools.register(rein_tools::typed(tool));
            }
            None => tools.remove(&[rein_tools::REPO_MAP.to_string()]),
        }
        // The language servers' tools, in a project of a server found.
        if config.code.servers().is_some_and(|s| s.serves_workspace()) {
            for tool in rein_tools::lsp_tools() {
                tools.register(tool);
            }
        }
        let mut agent =
            Agent::new(settings.client(), tools, config).map_err(|e| Exit::usage(e.to_string()))?;
        sessions::record(
            &mut agent,
            settings.store.as_ref(),
            start,
            settings.provider.kind.name(),
            &settings.workspace,
        )?;
        Ok(agent)
    }
}

/// `repo_map` as configured, its tags cached under rein's cache folder; `None` when
/// `[tools] repo_map_tokens = 0` turns it off.
pub(crate) fn repo_map_tool(tokens: Option<usize>) -> Option<rein_tools::RepoMapTool> {
    let budget = tokens.unwrap_or(rein_tools::REPO_MAP_TOKENS);
    (budget > 0).then(|| rein_tools::RepoMapTool {
        cache_dir: Some(crate::env::cache_dir(&crate::env::process).join("repo-map")),
        budget,
    })
}
