//! Links `rein` as a position-dependent executable on Linux: its code's own addresses are then
//! fixed at link time instead of patched by the dynamic loader at every start (about 26,000
//! relocations, 130 pages copied), which is most of what an `exec` of rein costs beyond a tiny
//! program's. rein is run again for every sandboxed shell call (`rein __sandbox`), so this is
//! half a millisecond per call; shared libraries, stack and heap stay randomised.
//!
//! Also names the build for `rein --version` (`REIN_BUILD`: the commit and the build date):
//! the commit from `REIN_COMMIT`, else git; the date from `SOURCE_DATE_EPOCH` (reproducible
//! builds), else today.
#![allow(clippy::disallowed_methods)] // the build script asks git for the commit it builds

use std::path::Path;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.contains("-linux-") {
        println!("cargo:rustc-link-arg-bin=rein=-no-pie");
    }
    println!("cargo:rustc-env=REIN_BUILD={} {}", commit(), date());
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=REIN_COMMIT");
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");
}

/// The commit built, short; `unknown` outside a git checkout (a packaged crate).
fn commit() -> String {
    if let Ok(commit) = std::env::var("REIN_COMMIT") {
        return commit;
    }
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(&dir)
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    // Only rein's own checkout: a packaged crate may sit inside some other repository.
    let workspace = Path::new(&dir).join("../..").canonicalize().ok();
    let top =
        git(&["rev-parse", "--show-toplevel"]).and_then(|t| Path::new(&t).canonicalize().ok());
    if top.is_none() || top != workspace {
        return "unknown".to_string();
    }
    let Some(commit) = git(&["rev-parse", "--short=12", "HEAD"]) else {
        return "unknown".to_string();
    };
    // Built again when the checkout moves to another commit.
    if let Some(git_dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        let git_dir = Path::new(&git_dir);
        println!("cargo:rerun-if-changed={}", git_dir.join("HEAD").display());
        let branch = git(&["symbolic-ref", "-q", "HEAD"]).map(|head| git_dir.join(head));
        match branch {
            Some(branch) if branch.exists() => {
                println!("cargo:rerun-if-changed={}", branch.display());
            }
            _ => println!(
                "cargo:rerun-if-changed={}",
                git_dir.join("packed-refs").display()
            ),
        }
    }
    commit
}

/// The build's date, `YYYY-MM-DD` in UTC.
fn date() -> String {
    let seconds = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.parse::<i64>().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0)
        });
    // Howard Hinnant's days-to-civil-date.
    let days = seconds.div_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}
