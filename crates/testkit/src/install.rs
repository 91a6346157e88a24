//! Programs end-to-end tests drive (tmux, git). `scripts/test-deps` installs them before the
//! suite runs; a test never installs anything itself. Without one, a test fails under
//! `CI=true` (CI must not pass without checking) and elsewhere skips, saying so.

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
