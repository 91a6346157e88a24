//! Programs end-to-end tests need (tmux, git) that a fresh Debian machine may lack: checked,
//! and installed from Debian's packages when missing (as root, or through password-less
//! sudo), the package lists refreshed first when a plain install fails.

use std::collections::HashMap;
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// Whether each program works, decided once per test process (tests run in parallel threads
/// and must not race each other into apt's lock).
static READY: OnceLock<Mutex<HashMap<String, bool>>> = OnceLock::new();

/// Whether `program` runs (`program --version`-style `probe` succeeds), installing the Debian
/// `package` first when it does not and we may.
pub fn ensure_installed(program: &str, probe: &str, package: &str) -> bool {
    let table = READY.get_or_init(Mutex::default);
    let mut table = table.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(ready) = table.get(program) {
        return *ready;
    }
    let works = || {
        Command::new(program)
            .arg(probe)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let ready = works() || {
        install(program, package);
        works()
    };
    table.insert(program.to_string(), ready);
    ready
}

fn install(program: &str, package: &str) {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let apt = |args: &[&str]| {
        let mut command = if root {
            Command::new("apt-get")
        } else {
            let mut sudo = Command::new("sudo");
            sudo.args(["-n", "apt-get"]);
            sudo
        };
        command
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    eprintln!("{program} is missing; installing {package} with apt-get");
    if !apt(&["install", "-y", "-qq", package]) {
        apt(&["update", "-qq"]);
        apt(&["install", "-y", "-qq", package]);
    }
}
