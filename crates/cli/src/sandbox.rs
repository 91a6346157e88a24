//! The OS sandbox as the CLI sets it up: the policy from `--sandbox` or the config, the
//! settings from the config, detection once per invocation, and what to say when this
//! machine has none (`auto` and an explicit policy refuse to start; otherwise one notice).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rein_policy::PermissionMode;
use rein_sandbox::{Policy, Sandbox, Settings, Support};

use crate::Exit;
use crate::config::Config;

/// The policy of shell commands not proven read-only: `--sandbox`, else the config, else off.
pub fn policy(flag: Option<Policy>, config: &Config) -> Policy {
    flag.unwrap_or_else(|| (config.sandbox.policy.as_ref()).map_or(Policy::Off, |p| p.value))
}

/// The settings from the config: network, the default and configured read roots, writable
/// roots, and the sensitive folders to hide.
pub fn settings(
    config: &Config,
    sensitive: &rein_tools::SensitivePaths,
    env: crate::env::Env<'_>,
) -> Settings {
    let home = crate::env::home(env).filter(|h| !h.as_os_str().is_empty());
    let expand = |text: &str| match (text.strip_prefix("~/"), &home) {
        (Some(rest), Some(home)) => Some(home.join(rest)),
        (Some(_), None) => None,
        (None, _) => Some(PathBuf::from(text)),
    };
    let mut settings = Settings::with_home(home.as_deref());
    settings.network = config.sandbox.network.as_ref().is_some_and(|n| n.value);
    let configured = |roots: &[crate::config::Sourced<String>]| -> Vec<PathBuf> {
        roots.iter().filter_map(|r| expand(&r.value)).collect()
    };
    settings
        .read_roots
        .extend(configured(&config.sandbox.read_roots));
    settings.writable_roots = configured(&config.sandbox.writable_roots);
    settings.hidden = sensitive.named_paths().map(Path::to_path_buf).collect();
    settings
}

/// The executable of the native sandbox helper: this one, as the kernel knows it (a rein
/// rebuilt or removed since it started still runs its own code as the helper). `None` when
/// `REIN_SANDBOX_HELPER=off` asks for bubblewrap.
#[allow(clippy::disallowed_methods)] // a switch of rein's own test and debug builds
pub fn helper() -> Option<PathBuf> {
    let off = std::env::var_os("REIN_SANDBOX_HELPER").is_some_and(|v| v == "off");
    (!off).then(|| PathBuf::from("/proc/self/exe"))
}

/// Where outside input (web pages, PDFs, pictures) is parsed: this binary started again as
/// `rein __parse …` under memory, CPU, stack and time limits ([`rein_sandbox::bounded`]).
pub fn parsers() -> rein_sandbox::bounded::Parsers {
    rein_sandbox::bounded::Parsers::child(PathBuf::from("/proc/self/exe"))
}

/// The sandbox for this invocation (the native helper, else bubblewrap), or why not: an
/// error when `mode` or `policy` needs one this machine lacks; else `None` with a notice on
/// stderr (proven read-only commands then run unconfined).
pub fn detect(
    settings: Settings,
    policy: Policy,
    mode: PermissionMode,
) -> Result<Option<Arc<Sandbox>>, Exit> {
    match Sandbox::find(settings, helper().as_deref()) {
        Ok(sandbox) => Ok(Some(Arc::new(sandbox))),
        Err(why) if mode == PermissionMode::Auto => Err(Exit::usage(format!(
            "--permission-mode auto runs commands without asking only inside the OS sandbox, \
             which is unavailable here: {why}. Use --permission-mode accept-edits (edits run, \
             commands ask) or default instead."
        ))),
        Err(why) if policy != Policy::Off => Err(Exit::usage(format!(
            "the {policy} sandbox is configured but unavailable here: {why}. Pass --sandbox off \
             to run commands unconfined."
        ))),
        Err(why) => {
            eprintln!("rein: note: no OS sandbox ({why}); shell commands run unconfined");
            Ok(None)
        }
    }
}

/// `rein sandbox check`: what this machine supports with the configuration of `workspace`.
pub fn check(workspace: &Path) -> Result<(), Exit> {
    let env = crate::env::process;
    let config = crate::trust::load_for_reading(workspace)?;
    let sensitive = sensitive_list(&config, &env)?;
    let support = Support::check(settings(&config, &sensitive, &env), helper().as_deref());
    let policy = policy(None, &config);
    print!("{support}");
    if let Ok(sandbox) = &support.sandbox {
        print!("{}", sandbox.git_report(workspace));
    }
    println!("  configured policy: {policy} (proven read-only commands: read-only)");
    Ok(())
}

/// The sensitive list of `config` (built-in patterns plus the configured ones).
pub fn sensitive_list(
    config: &Config,
    env: crate::env::Env<'_>,
) -> Result<rein_tools::SensitivePaths, Exit> {
    compile_sensitive(
        &crate::resolve::sensitive_paths(config, env),
        crate::env::home(env).as_deref(),
    )
}

/// The built-in sensitive patterns plus `extra`, compiled (`~/` expands to `home`).
pub fn compile_sensitive(
    extra: &[String],
    home: Option<&Path>,
) -> Result<rein_tools::SensitivePaths, Exit> {
    rein_tools::SensitivePaths::new(
        rein_tools::DEFAULT_SENSITIVE
            .iter()
            .copied()
            .chain(extra.iter().map(String::as_str)),
        home,
    )
    .map_err(|e| Exit::usage(e.to_string()))
}
