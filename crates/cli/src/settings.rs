//! Settings resolved once: the flags (`args.rs`), the environment and the configuration files
//! become one [`Settings`] at start-up — the workspace, rein's folders, the session store, the
//! provider, the permission policy, the OS sandbox and the agent template every agent starts
//! from (ripgrep's `LowArgs` → `HiArgs`). The parts of a run are built from it: a client for a
//! model ([`Router`]), an agent (`setup.rs`). `/clear`, `/resume` and `/model` rebuild only
//! what changes (the agent, its commands, its client).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rein_engine::AgentConfig;
use rein_engine::session::SessionStore;
use rein_engine::subagents::ModelSource;
use rein_llm::{ModelClient, ProviderConfig};
use rein_tools::ToolsProfile;

use crate::Exit;
use crate::config::Config;
use crate::env::ReadEnv;
use crate::overrides::{Mode, Overrides, Route};
use crate::resolve::{self, Folders, ProviderSettings, RoutingFlags};
use crate::secrets::Secrets;
use crate::trust::Asking;

/// Everything a run needs from its flags, environment and configuration, resolved once.
pub struct Settings {
    /// The workspace root.
    pub workspace: PathBuf,
    /// The merged configuration.
    pub config: Arc<Config>,
    /// rein's config and data folders.
    pub folders: Folders,
    /// Where sessions are stored (absent without HOME and XDG_DATA_HOME).
    pub store: Option<SessionStore>,
    /// Resolves a model name to its provider, as `--model` would.
    pub router: Router,
    /// The run's provider and model.
    pub provider: ProviderSettings,
    /// The sensitive list (built-in, configured, rein's own folders), compiled.
    pub sensitive: rein_tools::SensitivePaths,
    /// What every agent starts from: policy, limits, folders, sandbox, subagents, fallback.
    pub template: AgentConfig,
    /// Whose shapes the JSON output formats print (`--output-dialect`, `output_dialect`).
    pub output_dialect: crate::arg_values::OutputDialect,
    /// The secrets no child sees and nothing stored or sent carries, built once.
    pub secrets: Secrets,
}

impl Settings {
    /// Resolves the workspace and reads the configuration (settling the workspace's trust as
    /// `asking` says), then everything a run derives from them and what the front end set.
    pub fn new(args: &Overrides, asking: Asking, env: ReadEnv) -> Result<Self, Exit> {
        let workspace = resolve::workspace(args.cwd.as_deref())?;
        // The flags' own mistakes first, before the configuration's and the key's.
        let prompt_text = resolve::prompt_text(&args.prompt)?;
        let added_dirs = resolve::added_dirs(&args.added_dirs)?;
        crate::trust::confirm_home(&workspace, &env, asking)?;
        let folders = Folders::of(&env);
        let mut config = crate::trust::load(&workspace, &folders, args.trust, asking)?;
        config_flags(args, &mut config)?;
        let config = Arc::new(config);
        let store = open_store(args, &folders, &workspace, &config);
        let sandbox_policy = crate::sandbox::policy(args.sandbox, &config);
        let policy = resolve::policy((args.mode, &args.rules), &workspace, &env, &config)?;
        let sensitive = crate::sandbox::compile_sensitive(
            &folders.sensitive_paths(&config),
            crate::env::home(&env).as_deref(),
        )?;
        let mut added_dirs = added_dirs;
        let home = crate::env::home(&env);
        let configured = resolve::configured_dirs(&config, &workspace, home.as_deref());
        added_dirs.extend(configured);
        let lsp_found = crate::lsp::found(&config, &env, &workspace)?;
        let modes = (sandbox_policy, policy.mode);
        let sandbox = sandbox(&config, &sensitive, &env, (&added_dirs, &lsp_found), modes)?;
        let router = Router::new(&args.route, Arc::clone(&config), env);
        let subagents = crate::agents::subagents(
            &workspace,
            &config,
            &folders,
            &sensitive,
            Arc::new(router.clone()),
        );
        let provider = resolve::provider(&args.route, &env, &config)?;
        let mut template = resolve::agent_template(
            &args.limits,
            provider.model.clone(),
            workspace.clone(),
            policy,
            &folders,
            &config,
        );
        // The keys a command could print or send: never in a child's environment.
        let secrets = Secrets::of(
            &config,
            args.route.api_key_env.as_deref(),
            &provider.key_env,
        );
        template.hidden_env = secrets.names().to_vec();
        template.sandbox = sandbox;
        template.sensitive = Some(sensitive.clone());
        template.sandbox_policy = sandbox_policy;
        template.parsers = crate::sandbox::parsers();
        template.subagents = Some(subagents);
        resolve::web::give(&mut template, &config, &provider, &env)?;
        template.fallback = router.fallback(args.fallback_model.as_deref())?;
        template.tools_profile = tools_profile(&template, &config);
        template.prompt_text = prompt_text;
        template.added_dirs = added_dirs;
        template.plan_model = plan_model(&args.route, &env, &config);
        template.code = crate::lsp::code(&config, &workspace, lsp_found);
        let output_dialect = claude_code_flags(args, &config, &mut template);
        Ok(Self {
            workspace,
            config,
            folders,
            store,
            router,
            provider,
            sensitive,
            template,
            output_dialect,
            secrets,
        })
    }

    /// A client for the run's own provider.
    pub fn client(&self) -> Arc<dyn ModelClient> {
        self.router.client(self.provider.clone())
    }
}

/// What the flags add to the configuration: `--settings` sources over every other, the
/// `--mcp-config` files and `--strict-mcp-config`.
/// The run's OS sandbox, with among its read roots the added folders (seen read-only by
/// sandboxed commands: the file tools, which keep checkpoints and protect `.git` and
/// settings, write them) and the language servers' installations (a confined server must see
/// its own).
fn sandbox(
    config: &Config,
    sensitive: &rein_tools::SensitivePaths,
    env: &ReadEnv,
    (added_dirs, lsp_found): (&[PathBuf], &[rein_code::lsp::Found]),
    (policy, mode): (rein_sandbox::Policy, rein_policy::PermissionMode),
) -> Result<Option<Arc<rein_sandbox::Sandbox>>, Exit> {
    let mut settings = crate::sandbox::settings(config, sensitive, env);
    settings.read_roots.extend(added_dirs.iter().cloned());
    settings
        .read_roots
        .extend(crate::lsp::install_roots(lsp_found));
    crate::sandbox::detect(settings, policy, mode)
}

fn config_flags(args: &Overrides, config: &mut Config) -> Result<(), Exit> {
    // `--settings` files, the user's own choice, over every other source.
    crate::config::discover::named_sources(&args.settings_sources)
        .and_then(|sources| crate::config::extend(config, &sources))
        .map_err(|e| Exit::usage(format!("--settings: {e}")))?;
    config.mcp_flag_files = crate::mcp::flag_files(&args.mcp.configs)?;
    config.mcp_strict = args.mcp.strict;
    config.mcp_given.clone_from(&args.mcp.servers);
    Ok(())
}

/// What Claude Code's flags set in `agent`: the budget (with a warning when the model's
/// price is unknown), the bypass warning, and the output dialect, which is returned.
/// The model asked in plan mode: Opus for Claude Code's `opusplan`.
fn plan_model(route: &Route, env: &ReadEnv, config: &Config) -> Option<String> {
    let routing = resolve::routing(route, env, config);
    (routing.model?.value == "opusplan").then(|| resolve::PLAN_MODEL_OF_OPUSPLAN.to_string())
}

fn claude_code_flags(
    args: &Overrides,
    config: &Config,
    agent: &mut AgentConfig,
) -> crate::arg_values::OutputDialect {
    agent.max_budget_usd = args.limits.max_budget_usd;
    if agent.max_budget_usd.is_some() && rein_llm::price(&agent.model).is_none() {
        eprintln!(
            "rein: warning: --max-budget-usd cannot apply: rein does not know the price of {}",
            agent.model
        );
    }
    if args.mode == Some(Mode::SkipPermissions) {
        eprintln!(
            "rein: warning: --dangerously-skip-permissions: every tool call runs without asking \
             (bypass mode)"
        );
    }
    let dialect = (args.output_dialect)
        .or(config.output_dialect.as_ref().map(|d| d.value))
        .unwrap_or_default();
    agent.claude_results = dialect == crate::arg_values::OutputDialect::Claude;
    dialect
}

/// The configured tools profile, else the one the window of `agent`'s model calls for (lean
/// up to [`rein_tools::LEAN_WINDOW`] tokens).
fn tools_profile(agent: &AgentConfig, config: &Config) -> ToolsProfile {
    match &config.tools_profile {
        Some(profile) => profile.value,
        None => ToolsProfile::for_window(agent.context_window.unwrap_or_else(|| {
            rein_engine::context::context_window_with(&agent.model, &agent.context_windows)
        })),
    }
}

/// The session store of `workspace`, made private and pruned in the background (never the
/// session `--resume`/`--continue` names).
fn open_store(
    args: &Overrides,
    folders: &Folders,
    workspace: &Path,
    config: &Config,
) -> Option<SessionStore> {
    let dir = folders.data.as_ref()?;
    let store = SessionStore::new(dir, workspace);
    private_store(dir);
    let keep = match &args.start.at {
        crate::overrides::StartAt::New => None,
        crate::overrides::StartAt::Latest => store.latest(),
        crate::overrides::StartAt::Resume(id) => Some(id.clone()),
    };
    let days = crate::sessions::retention_days(config);
    crate::sessions::prune_in_background(dir.clone(), days, keep);
    Some(store)
}

/// Narrows rein's data folder to its owner when an older rein (or the umask) left it readable
/// by others, saying so once.
fn private_store(data_dir: &Path) {
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

/// Resolves a model name to its provider and client as `--model` would: the other routing
/// flags and the configuration as the run has them. Used by `/model`, subagent definitions
/// naming a model and the fallback model.
#[derive(Debug, Clone)]
pub struct Router {
    /// The run's routing flags; the model is the one asked for each time.
    route: Route,
    config: Arc<Config>,
    env: ReadEnv,
}

impl Router {
    fn new(route: &Route, config: Arc<Config>, env: ReadEnv) -> Self {
        let route = Route {
            model: None,
            ..route.clone()
        };
        Self { route, config, env }
    }

    /// The provider settings for `model` (an alias or a name; `None`: the one the environment
    /// or the config names, else the default).
    pub fn settings(&self, model: Option<&str>) -> Result<ProviderSettings, Exit> {
        let flags = RoutingFlags {
            model,
            ..RoutingFlags::of(&self.route)
        };
        resolve::provider_of(flags, &self.env, &self.config)
    }

    /// A client for `settings`, with the configured stream timeouts.
    pub fn client(&self, settings: ProviderSettings) -> Arc<dyn ModelClient> {
        rein_llm::connect(provider_config(&self.config, settings))
    }

    /// The fallback model of `--fallback-model` (`flag`) or `fallback_model`, with its client.
    fn fallback(&self, flag: Option<&str>) -> Result<Option<rein_engine::Fallback>, Exit> {
        let Some(model) = flag
            .map(str::to_string)
            .or_else(|| self.config.fallback_model.as_ref().map(|m| m.value.clone()))
        else {
            return Ok(None);
        };
        let settings = self
            .settings(Some(&model))
            .map_err(|e| Exit::usage(format!("the fallback model {model}: {}", e.message)))?;
        let model = settings.model.clone();
        let client = self.client(settings);
        Ok(Some(rein_engine::Fallback { model, client }))
    }
}

impl ModelSource for Router {
    fn client_for(
        &self,
        model: &str,
    ) -> Result<(String, Arc<dyn ModelClient>), rein_engine::FrontEndError> {
        let settings = self.settings(Some(model)).map_err(|e| e.message)?;
        let model = settings.model.clone();
        Ok((model, self.client(settings)))
    }
}

/// The provider connection for `settings`, with the configured stream timeouts and longest
/// retry wait.
fn provider_config(config: &Config, settings: ProviderSettings) -> ProviderConfig {
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
    if let Some(longest) = secs(&config.max_retry_wait_secs) {
        provider.retry.max_wait = longest;
    }
    provider
}
