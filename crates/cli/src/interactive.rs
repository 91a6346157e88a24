//! `rein [PROMPT]`: the interactive terminal UI, given what it needs from the command line
//! (agents for new and stored sessions, model switching, history and command folders).

use std::path::PathBuf;
use std::sync::Arc;

use rein_engine::session::{SessionSummary, workspace_key};
use rein_tui::settings::{
    LiveChange, SettingsChange, SettingsChanged, SettingsRefused, SettingsScope,
};
use rein_tui::{Launch, SessionHost};

use crate::Exit;
use crate::args::ExecArgs;
use crate::setup::Setup;

/// The command line's side of the UI is the run's [`Setup`] itself: the agents for `/clear`,
/// `/resume` and `/model` come from the same factory `rein exec` uses (its telemetry included),
/// with nothing in between to forget a part of it.
impl SessionHost for Setup {
    fn sessions(&self) -> Vec<SessionSummary> {
        self.settings
            .store
            .as_ref()
            .map(|store| store.list())
            .unwrap_or_default()
    }

    fn history_file(&self) -> Option<PathBuf> {
        let settings = &self.settings;
        (settings.folders.data.as_ref()).map(|dir| {
            dir.join("history")
                .join(format!("{}.jsonl", workspace_key(&settings.workspace)))
        })
    }

    fn commands(&self) -> rein_engine::commands::Catalog {
        Setup::commands(self)
    }

    fn workspace(&self) -> Option<PathBuf> {
        Some(self.settings.workspace.clone())
    }

    fn mcp_servers(&self) -> Vec<rein_tui::McpServerView> {
        crate::mcp::views(&self.mcp)
    }

    fn status_command(&self) -> Option<rein_tui::StatusCommand> {
        let command = self.settings.config.status_line.as_ref()?;
        Some(self.status_command_of(&command.value))
    }

    fn paths(&self) -> Vec<String> {
        let settings = &self.settings;
        crate::paths::index(&settings.workspace, &settings.sensitive)
    }

    fn memory_files(&self) -> Vec<(PathBuf, String)> {
        let settings = &self.settings;
        let own = (settings.folders.data.as_ref()).map(|data| {
            let store = rein_engine::auto_memory::MemoryStore::for_workspace(
                &data.join(rein_engine::auto_memory::MEMORY_FOLDER),
                &settings.workspace,
            );
            let path = store.dir().join(rein_engine::auto_memory::INDEX);
            (
                path,
                "the model's memory of this workspace, private".to_string(),
            )
        });
        let files = [
            (Some(settings.workspace.clone()), "this workspace, shared"),
            (settings.folders.config.clone(), "you, in every workspace"),
        ]
        .into_iter()
        .filter_map(|(dir, whose)| {
            let dir = dir?;
            let file = memory_file(&dir).unwrap_or_else(|| dir.join("AGENTS.md"));
            Some((file, whose.to_string()))
        });
        own.into_iter().chain(files).collect()
    }

    fn change_settings(&self, change: SettingsChange) -> Result<SettingsChanged, SettingsRefused> {
        let workspace = &self.settings.workspace;
        let changed = crate::settings_edit::change(&change, workspace)
            .map_err(|exit| SettingsRefused(exit.message))?;
        // The user's own status line applies now; a workspace's waits for its trust.
        let live = match (&change, changed.rules) {
            (_, Some(edit)) => LiveChange::Rules(edit),
            (SettingsChange::Set { key, value, scope }, None)
                if key == "status_line" && *scope == SettingsScope::User =>
            {
                LiveChange::StatusLine(Some(self.status_command_of(value)))
            }
            (SettingsChange::Unset { key, scope }, None)
                if key == "status_line" && *scope == SettingsScope::User =>
            {
                LiveChange::StatusLine(None)
            }
            _ => LiveChange::Nothing,
        };
        Ok(SettingsChanged {
            message: changed.message,
            live,
        })
    }

    fn listing(&self, what: rein_tui::Listing) -> Vec<String> {
        let settings = &self.settings;
        match what {
            rein_tui::Listing::Config => {
                let layered = crate::resolve::layered(&settings.config, &crate::env::process);
                layered.map_or_else(
                    |exit| vec![exit.message],
                    |layered| {
                        let text = crate::config::render(&settings.config, &layered);
                        text.lines().map(str::to_string).collect()
                    },
                )
            }
            rein_tui::Listing::Hooks => (settings.template.hooks.iter())
                .map(|hook| {
                    let matcher = hook
                        .matcher
                        .as_deref()
                        .map_or(String::new(), |m| format!(" [{m}]"));
                    format!(
                        "{}{matcher}: {}  ({})",
                        hook.event.name(),
                        hook.command,
                        hook.source
                    )
                })
                .collect(),
            rein_tui::Listing::Doctor => crate::doctor::checks(self),
            rein_tui::Listing::Memory => memory_files(settings),
            rein_tui::Listing::Agents => (settings.template.subagents.iter())
                .flat_map(|subagents| subagents.definitions.iter())
                .map(|agent| format!("{}: {}  ({})", agent.name, agent.description, agent.source))
                .collect(),
        }
    }

    fn about(&self) -> Vec<(String, String)> {
        let settings = &self.settings;
        let provider = &settings.provider;
        let key = match &provider.api_key {
            Some(_) => format!("from ${}", provider.key_env),
            None => format!("none (${} is not set)", provider.key_env),
        };
        let trust = if settings.config.workspace_trusted {
            "its own config applies"
        } else {
            "its own config is not trusted (rein trust)"
        };
        let sandbox = match &settings.template.sandbox {
            Some(sandbox) => match sandbox.launcher() {
                rein_sandbox::Launcher::Helper(_) => "rein's own namespaces",
                rein_sandbox::Launcher::Bubblewrap(_) => "bubblewrap",
            },
            None => "unavailable (shell commands run unsandboxed)",
        };
        let servers = self.mcp.servers.len();
        vec![
            ("provider".into(), provider.kind.name().to_string()),
            ("base URL".into(), provider.base_url.clone()),
            ("API key".into(), key),
            ("workspace".into(), settings.workspace.display().to_string()),
            ("trust".into(), trust.to_string()),
            (
                "sandbox".into(),
                format!(
                    "{sandbox}; other commands {}",
                    settings.template.sandbox_policy
                ),
            ),
            ("MCP servers".into(), format!("{servers} connected (/mcp)")),
        ]
    }
}

impl Setup {
    fn status_command_of(&self, command: &str) -> rein_tui::StatusCommand {
        let settings = &self.settings;
        rein_tui::StatusCommand {
            command: command.to_string(),
            cwd: settings.workspace.clone(),
            hidden: rein_tools::HiddenEnv::with(settings.template.hidden_env.iter().cloned()),
        }
    }
}

/// The memory files the system prompt carries (the workspace's and the user's own), and
/// where the others come from.
fn memory_files(settings: &crate::settings::Settings) -> Vec<String> {
    let folders = [
        ("workspace", Some(settings.workspace.clone())),
        ("yours, every workspace", settings.folders.config.clone()),
    ];
    let mut lines: Vec<String> = folders
        .into_iter()
        .filter_map(|(whose, dir)| {
            let dir = dir?;
            Some(match memory_file(&dir) {
                Some(path) => format!("{} ({whose})", path.display()),
                None => format!(
                    "none in {} ({whose}): AGENTS.md or CLAUDE.md",
                    dir.display()
                ),
            })
        })
        .collect();
    lines
        .push("a sub-folder's AGENTS.md is added when a tool first touches the folder".to_string());
    if let Some(data) = &settings.folders.data {
        let store = rein_engine::auto_memory::MemoryStore::for_workspace(
            &data.join(rein_engine::auto_memory::MEMORY_FOLDER),
            &settings.workspace,
        );
        let files = store.files().len();
        lines.insert(
            0,
            format!(
                "{} (the model's memory of this workspace: {files} file(s) under /memories; \
                 `rein memory list`)",
                store.dir().join(rein_engine::auto_memory::INDEX).display()
            ),
        );
    }
    lines
}

/// The memory file of folder `dir` (`AGENTS.md`, else `CLAUDE.md`), if there is one.
fn memory_file(dir: &std::path::Path) -> Option<PathBuf> {
    ["AGENTS.md", "CLAUDE.md"]
        .iter()
        .map(|name| dir.join(name))
        .find(|path| path.is_file())
}

/// Runs the UI until the user quits.
#[allow(clippy::disallowed_methods)] // NO_COLOR is the terminal's, read where the UI starts
pub async fn run(args: ExecArgs) -> Result<(), Exit> {
    if args.compact || args.output_format != crate::arg_values::OutputFormat::Text {
        return Err(Exit::usage(
            "--compact and --output-format belong to `rein exec`; use /compact in the UI",
        ));
    }
    if args.answers.is_some() {
        return Err(Exit::usage(
            "--answers belongs to `rein exec`: in the UI you answer the model's questions",
        ));
    }
    let overrides = crate::exec::overrides(&args)?;
    let mut setup = Setup::new(&overrides, crate::trust::Asking::Terminal)?;
    setup.start_mcp().await;
    let agent = setup.agent(setup.start(&overrides.start)?)?;
    let prompt = args.prompt.filter(|p| !p.trim().is_empty());
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let setup = Arc::new(setup);
    let launch = Launch {
        agent,
        host: Arc::clone(&setup) as Arc<dyn SessionHost>,
        prompt,
        no_color,
    };
    let session = rein_tui::run(launch).await;
    setup.close().await;
    let session = session.map_err(|e| Exit::failed(e.to_string()))?;
    if !session.is_empty() {
        eprintln!("{}", rein_tui::resume_hint(&session));
    }
    if let Some(signal) = rein_tui::stopped_by() {
        return Err(Exit::signalled(
            signal,
            "stopped by a signal: the turn was cancelled, its commands killed and the session saved",
        ));
    }
    Ok(())
}
