//! Programs end-to-end tests drive (tmux, git). `scripts/test-deps` installs them before the
//! suite runs; a test never installs anything itself. Without one, a test fails under
//! `CI=true` (CI must not pass without checking) and elsewhere skips, saying so.
#![allow(clippy::disallowed_methods)] // dev-only crate: the test programs start real processes and read the test environment

use std::collections::HashMap;
use std::io::Write;
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// Whether each program works, decided once per test process.
static READY: OnceLock<Mutex<HashMap<String, bool>>> = OnceLock::new();

/// Whether `program` runs (`program <probe>` succeeds). When it does not: under `CI=true` a
/// panic naming it; elsewhere `false` and a `SKIPPED:` line for `test` on stderr, written
/// straight to it (the harness captures the print macros of passing tests).
pub fn require(program: &str, probe: &str, test: &str) -> bool {
    let table = READY.get_or_init(Mutex::default);
    let ready = *table
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .entry(program.to_string())
        .or_insert_with(|| {
            Command::new(program)
                .arg(probe)
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if !ready {
        skip(
            test,
            &format!("{program} is not installed (scripts/test-deps installs it)"),
        );
    }
    ready
}

/// Says that `test` did not run and why: a panic under `CI=true`, else a `SKIPPED:` line.
pub fn skip(test: &str, why: &str) {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{test} cannot run (CI=true): {why}"
    );
    let _ = writeln!(std::io::stderr(), "SKIPPED: {test}: {why}");
}

/// The Node program `name` that `scripts/test-deps` installs from `scripts/node` (the MCP
/// Inspector's CLI, the ACP SDK's scripts): its path under the scratch folder
/// (`REIN_TEST_NODE`, default `~/.cache/rein-test/node`), or `None` after [`skip`] says why.
pub fn node_program(name: &str, test: &str) -> Option<std::path::PathBuf> {
    let dir = node_folder();
    let program = dir.join("node_modules/.bin").join(name);
    if program.exists() {
        return Some(program);
    }
    skip(
        test,
        &format!(
            "{} is missing (scripts/test-deps installs scripts/node there with npm)",
            program.display()
        ),
    );
    None
}

/// Where `scripts/test-deps` installs the Node programs.
pub fn node_folder() -> std::path::PathBuf {
    if let Some(dir) = std::env::var_os("REIN_TEST_NODE") {
        return dir.into();
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| std::path::Path::new(&home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    cache.join("rein-test/node")
}
