//! Building an agent from flags, configuration and stored sessions: shared by `rein exec` and
//! the interactive UI (which builds more than one: `/clear`, `/resume`).

use std::path::PathBuf;

use rein_engine::Agent;
use rein_engine::session::SessionStore;
use rein_llm::{ProviderConfig, ProviderKind};
use rein_tools::ToolRegistry;

use crate::Exit;
use crate::args::ExecArgs;
use crate::config::Config;
use crate::env::process as env;
use crate::resolve;
use crate::sessions::{self, Start};

/// The resolved workspace, configuration and session store of one invocation.
pub struct Setup {
    /// The flags.
    pub args: ExecArgs,
    /// The workspace root.
    pub workspace: PathBuf,
    /// The merged configuration.
    pub config: Config,
    /// Where sessions are stored (absent without HOME and XDG_DATA_HOME).
    pub store: Option<SessionStore>,
    /// The OS sandbox, detected once (absent where this machine has none).
    pub sandbox: Option<std::sync::Arc<rein_sandbox::Sandbox>>,
    /// The sandbox policy of commands not proven read-only.
    pub sandbox_policy: rein_sandbox::Policy,
    /// The subagents the `task` tool offers (definitions read once).
    pub subagents: rein_engine::subagents::Subagents,
    /// Whether the command folders' warnings were said (once per run).
    /// The catalog the latest agent got (`None` before the first): the UI lists the same.
    commands: std::sync::Mutex<Option<rein_engine::commands::Catalog>>,
    /// The MCP servers that started (see [`Setup::start_mcp`]), shared by every agent.
    pub mcp: std::sync::Arc<rein_mcp::Started>,
}

/// Narrows rein's data folder to its owner when an older rein (or the umask) left it readable
/// by others, saying so once.
fn private_store(data_dir: &std::path::Path) {
    match rein_tools::private::narrow_tree(data_dir) {
        Ok(0) => {}
        Ok(n) => eprintln!(
            "rein: note: {} was readable by other users; narrowed {n} folders and files to \
             owner-only (0700/0600)",
            data_dir.display()
        ),
        Err(e) => eprintln!(
            "rein: warning: cannot make {} private: {e}",
            data_dir.display()
        ),
    }
}

impl Setup {
    /// Resolves the workspace and reads the configuration, settling the workspace's trust
    /// as `asking` says.
    pub fn new(args: ExecArgs, asking: crate::trust::Asking) -> Result<Self, Exit> {
        let workspace = resolve::workspace(args.cwd.as_deref())?;
        crate::trust::confirm_home(&workspace, &env, asking)?;
        let flag = if args.trust_workspace {
            crate::trust::TrustFlag::Given
        } else {
            crate::trust::TrustFlag::Absent
        };
        let config = crate::trust::load(&workspace, &env, flag, asking)?;
        let data_dir = resolve::data_dir(&env);
        let store = data_dir
            .as_ref()
            .map(|dir| SessionStore::new(dir, &workspace));
        if let Some(dir) = &data_dir {
            private_store(dir);
            let keep = args.resume.clone().or_else(|| {
                args.continue_latest
                    .then(|| store.as_ref().and_then(SessionStore::latest))
                    .flatten()
            });
            sessions::prune_in_background(dir.clone(), sessions::retention_days(&config), keep);
        }
        let sandbox_policy = crate::sandbox::policy(args.sandbox.as_deref(), &config)?;
        let mode = resolve::policy(&args, &workspace, &env, &config)?.mode;
        let sensitive = crate::sandbox::sensitive_list(&config, &env)?;
        let settings = crate::sandbox::settings(&config, &sensitive, &env);
        let sandbox = crate::sandbox::detect(settings, sandbox_policy, mode)?;
        let subagents = crate::agents::subagents(&args, &workspace, &config, &env);
        Ok(Self {
            subagents,
            commands: Default::default(),
            mcp: Default::default(),
            args,
            workspace,
            config,
            store,
            sandbox,
            sandbox_policy,
        })
    }

    /// Starts the configured MCP servers (before the first agent is made).
    pub async fn start_mcp(&mut self) {
        let env = crate::env::process;
        let hidden = crate::mcp::hidden_env(&self.config, self.args.api_key_env.as_deref());
        let started = crate::mcp::start(&self.workspace, &self.config, &env, &hidden).await;
        self.mcp = std::sync::Arc::new(started);
    }

    /// The custom commands and skills as their folders hold them now, with the MCP servers'
    /// prompts: read for each new agent, so a command added during a session is there after
    /// `/clear`. Problems with the files are said the first time only.
    fn load_commands(&self) -> rein_engine::commands::Catalog {
        let env = crate::env::process;
        let mut kept = self.commands.lock().unwrap_or_else(|p| p.into_inner());
        let warnings = if kept.is_none() {
            crate::agents::Warnings::Said
        } else {
            crate::agents::Warnings::Quiet
        };
        let mut commands = crate::agents::commands(&self.workspace, &self.config, &env, warnings);
        let prompts = crate::mcp::prompt_commands(&self.mcp);
        if !prompts.is_empty() {
            commands = commands.with(prompts);
        }
        *kept = Some(commands.clone());
        commands
    }

    /// The catalog the latest agent got (read now when no agent was made yet).
    pub fn commands(&self) -> rein_engine::commands::Catalog {
        let kept = self
            .commands
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        kept.unwrap_or_else(|| self.load_commands())
    }

    /// How the flags start the session: `--resume`/`--continue`'s session loaded.
    pub fn start(&self) -> Result<Start, Exit> {
        Start::from_args(&self.args, self.store.as_ref())
    }

    /// An agent starting its session as `start` says.
    pub fn agent(&self, start: Start) -> Result<Agent, Exit> {
        let settings = resolve::provider(&self.args, &env, &self.config)?;
        let key_env = settings.key_env.clone();
        let provider = settings.kind.name();
        let model = settings.model.clone();
        let client = rein_llm::connect(self.provider_config(settings));
        let mut config = resolve::agent_config(
            &self.args,
            model,
            self.workspace.clone(),
            &env,
            &self.config,
        )?;
        // The key a command could print or send: never in a child's environment.
        config.hidden_env.push(key_env);
        config.sandbox = self.sandbox.clone();
        config.sandbox_policy = self.sandbox_policy;
        config.subagents = Some(self.subagents.clone());
        config.commands = self.load_commands();
        config.fallback = crate::agents::fallback(&self.args, &self.config)?;
        config.session_id = start.session_id();
        config.tool_source = Some(self.mcp.clone());
        config.prompt_source = Some(std::sync::Arc::new(crate::mcp::Prompts(self.mcp.clone())));
        let tools = ToolRegistry::for_model(&config.model);
        let mut agent =
            Agent::new(client, tools, config).map_err(|e| Exit::usage(e.to_string()))?;
        sessions::record(
            &mut agent,
            self.store.as_ref(),
            start,
            provider,
            &self.workspace,
        )?;
        Ok(agent)
    }

    fn provider_config(&self, settings: resolve::ProviderSettings) -> ProviderConfig {
        provider_config(&self.config, settings)
    }

    /// A client for `model` with the provider it implies (or the configured one).
    pub fn switch_model(&self, agent: &mut Agent, model: &str) -> Result<(), Exit> {
        let args = ExecArgs {
            model: Some(model.to_string()),
            ..self.args.clone()
        };
        let settings = resolve::provider(&args, &env, &self.config)?;
        let model = settings.model.clone();
        // The base URL was given for the run's own provider, whatever the agent uses now.
        let given_for = resolve::routing(&self.args, &env, &self.config).kind.value;
        if let Some(notice) = switch_notice(&settings, given_for) {
            agent.add_notice(notice);
        }
        let client = rein_llm::connect(self.provider_config(settings));
        agent.set_model(model, client);
        Ok(())
    }
}

/// What to say when `/model` picks `settings`, guessed from the model's name, while the base
/// URL given for the run's provider `given_for` is kept: a server may not speak both protocols.
fn switch_notice(settings: &resolve::ProviderSettings, given_for: ProviderKind) -> Option<String> {
    let kind = settings.kind;
    if kind == given_for || settings.base_url == rein_llm::default_base_url(kind) {
        return None;
    }
    Some(format!(
        "`{}` → {}, guessed from the name, but the base URL {} was given for {} and is kept: \
         if that server does not speak {} the next request fails; restart with --provider and \
         --base-url for this model",
        settings.model,
        kind.name(),
        settings.base_url,
        given_for.name(),
        kind.name()
    ))
}

/// The provider connection for `settings`, with the configured stream timeouts.
pub fn provider_config(config: &Config, settings: resolve::ProviderSettings) -> ProviderConfig {
    let mut provider = ProviderConfig::new(
        settings.kind,
        settings.base_url,
        settings.api_key,
        settings.key_env,
    );
    let secs = |s: &Option<crate::config::Sourced<u64>>| {
        s.as_ref().map(|s| std::time::Duration::from_secs(s.value))
    };
    if let Some(idle) = secs(&config.idle_timeout_secs) {
        provider.idle_timeout = idle;
    }
    if let Some(deadline) = secs(&config.no_progress_timeout_secs) {
        provider.no_progress_timeout = deadline;
    }
    provider
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(kind: ProviderKind, model: &str, base_url: &str) -> resolve::ProviderSettings {
        resolve::ProviderSettings {
            kind,
            model: model.into(),
            base_url: base_url.into(),
            api_key: None,
            key_env: "KEY".into(),
        }
    }

    #[test]
    fn the_switch_notice_is_one_sentence_naming_the_provider_the_url_was_given_for() {
        let to_gpt = settings(ProviderKind::Openai, "gpt-5", "http://local:1");
        assert_eq!(
            switch_notice(&to_gpt, ProviderKind::Anthropic).as_deref(),
            Some(
                "`gpt-5` → openai, guessed from the name, but the base URL http://local:1 was \
                 given for anthropic and is kept: if that server does not speak openai the next \
                 request fails; restart with --provider and --base-url for this model"
            )
        );
        let back = settings(ProviderKind::Anthropic, "claude-opus-4-5", "http://local:1");
        assert_eq!(switch_notice(&back, ProviderKind::Anthropic), None);
        let default_url = rein_llm::default_base_url(ProviderKind::Openai);
        let own_url = settings(ProviderKind::Openai, "gpt-5", default_url);
        assert_eq!(switch_notice(&own_url, ProviderKind::Anthropic), None);
    }
}
