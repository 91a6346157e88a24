//! The language servers of a run: the table (built-in, with `[lsp.servers.*]` applied), the
//! ones found on this machine, the session's handle on them, and `rein lsp check`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rein_code::lsp::{Found, Servers};

use crate::Exit;
use crate::config::Config;
use crate::env::Env;

/// How long `rein lsp check` waits for a server to start.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// How long each server gets to exit at the end of a session.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// Each server of the table and where its program is, when found (`PATH`'s absolute entries
/// outside `workspace`, or the configured path).
pub fn table(
    config: &Config,
    env: Env<'_>,
    workspace: &Path,
) -> Result<Vec<(rein_code::lsp::ServerSpec, Option<PathBuf>)>, Exit> {
    let table = rein_code::lsp::with_entries(&config.lsp.servers)
        .map_err(|e| Exit::usage(format!("config: {e}")))?;
    let path = env("PATH").map(std::ffi::OsString::from);
    Ok(table
        .into_iter()
        .map(|spec| {
            let program = spec.find_program(path.as_deref(), workspace);
            (spec, program)
        })
        .collect())
}

/// The servers found on this machine; none when `[lsp] enabled = false`.
pub fn found(config: &Config, env: Env<'_>, workspace: &Path) -> Result<Vec<Found>, Exit> {
    if !config.lsp.enabled() {
        return Ok(Vec::new());
    }
    Ok(table(config, env, workspace)?
        .into_iter()
        .filter_map(|(spec, program)| {
            Some(Found {
                spec,
                program: program?,
            })
        })
        .collect())
}

/// The folders a confined server must see to run: each program's installation (the
/// `node_modules` folder holding an npm-installed one, else the folder of the program it
/// resolves to).
pub fn install_roots(found: &[Found]) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = found
        .iter()
        .filter_map(|f| {
            let real = f.program.canonicalize().ok()?;
            let installed = real
                .ancestors()
                .find(|dir| dir.file_name().is_some_and(|n| n == "node_modules"))
                .or_else(|| real.parent())?;
            Some(installed.to_path_buf())
        })
        .collect();
    roots.sort();
    roots.dedup();
    roots
}

/// The session's handle on the servers of `found` (none started yet).
pub fn code(config: &Config, workspace: &Path, found: Vec<Found>) -> rein_tools::Code {
    if found.is_empty() {
        return rein_tools::Code::default();
    }
    let servers = Servers::new(workspace.to_path_buf(), found, config.lsp.settings());
    rein_tools::Code::new(Arc::new(servers))
}

/// `rein lsp check`: every server of the table, whether it was found, and for those found
/// whether it starts (initialised in the workspace, then shut down) and what it calls itself;
/// then the settings.
pub async fn check(workspace: &Path) -> Result<(), Exit> {
    let config = crate::trust::load_for_reading(workspace)?;
    let env = crate::env::process;
    let workspace = workspace
        .canonicalize()
        .map_err(|e| Exit::usage(format!("{}: {e}", workspace.display())))?;
    let mut out = String::new();
    if !config.lsp.enabled() {
        out.push_str("Language servers are off ([lsp] enabled = false).\n");
    }
    for (spec, program) in table(&config, &env, &workspace)? {
        let files = spec
            .extensions
            .iter()
            .map(|e| format!(".{e}"))
            .collect::<Vec<_>>()
            .join(" ");
        let state = match &program {
            None => format!("not found ({} is not on PATH)", spec.command[0]),
            Some(program) => match starts(&spec, program, &workspace).await {
                Ok(info) => format!("{}: starts{info}", program.display()),
                Err(why) => format!("{}: does not start: {why}", program.display()),
            },
        };
        out.push_str(&format!("{:<28} {files}\n  {state}\n", spec.name));
    }
    let settings = config.lsp.settings();
    out.push_str(&format!(
        "A change waits up to {} ms for diagnostics; {} are reported, {} at most.\n",
        settings.settle.as_millis(),
        match settings.shown {
            rein_code::lsp::Shown::Errors => "errors",
            rein_code::lsp::Shown::Warnings => "errors and warnings",
        },
        settings.max_diagnostics
    ));
    crate::output::print_all(&out)
}

/// Starts `spec`'s server on `workspace` and shuts it down: what it calls itself, or why it
/// did not start.
async fn starts(
    spec: &rein_code::lsp::ServerSpec,
    program: &Path,
    workspace: &Path,
) -> Result<String, String> {
    let launch = rein_code::lsp::Unconfined;
    let client = rein_code::lsp::Client::start(spec, program, workspace, &launch, START_TIMEOUT)
        .await
        .map_err(|e| e.to_string())?;
    let info = client.server_info().map(|info| format!(" ({info})"));
    client.shutdown(SHUTDOWN_GRACE).await;
    Ok(info.unwrap_or_default())
}
