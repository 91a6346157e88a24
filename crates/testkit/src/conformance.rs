//! Material recorded from peers (`../shared/conformance/` beside the repository) and the small
//! real things tests build on (a git repository).

use std::io::Write;
use std::path::Path;
use std::process::Command;

/// The text of `../shared/conformance/<relative>`. `Ok(None)` when it is absent outside CI: the
/// caller skips, and a `SKIPPED:` line on stderr says so (straight to stderr: the test harness
/// captures the print macros of passing tests). Under `CI=true` an absent file is an `Err`, so
/// CI never passes without checking.
pub fn conformance_file(relative: &str) -> Result<Option<String>, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/conformance")
        .join(relative);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if std::env::var("CI").as_deref() == Ok("true") => Err(format!(
            "the fixture {} is missing (CI=true): {e}",
            path.display()
        )),
        Err(e) => {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: {relative}: no fixture at {} ({e})",
                path.display()
            );
            Ok(None)
        }
    }
}

/// The folder `../shared/conformance/<relative>`, under the same rule as
/// [`conformance_file`]: `Ok(None)` (and a `SKIPPED:` line) when it is absent outside CI, an
/// `Err` under `CI=true`.
pub fn conformance_dir(relative: &str) -> Result<Option<std::path::PathBuf>, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/conformance")
        .join(relative);
    if path.is_dir() {
        return Ok(Some(path));
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        return Err(format!(
            "the fixture folder {} is missing (CI=true)",
            path.display()
        ));
    }
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: {relative}: no fixture folder at {}",
        path.display()
    );
    Ok(None)
}

/// Makes `dir` a git repository of its own.
pub fn git_init(dir: &Path) -> Result<(), String> {
    if !crate::require("git", "--version", "git_init") {
        return Err("git is needed: scripts/test-deps installs it".to_string());
    }
    let status = Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir)
        .status()
        .map_err(|e| format!("git init: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("git init failed in {}", dir.display()))
    }
}
