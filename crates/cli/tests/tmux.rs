//! tmux for the terminal tests: one private server per test, a pane running `rein` against
//! the mock server, keys sent and the screen read.
#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// tmux on one private socket, killed when the test ends.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// A tmux server; `None` (the test skips, or fails under `CI=true`) without tmux.
    pub fn start() -> Option<Self> {
        if !rein_testkit::require("tmux", "-V", "terminal tests") {
            return None;
        }
        Some(Self {
            socket: format!("rein-test-{}-{}", std::process::id(), fastrand::u32(..)),
        })
    }

    /// Starts rein in `workspace` against the mock at `url` (with `extra` flags), and waits
    /// for its first screen.
    pub async fn launch(&self, workspace: &Path, url: &str, extra: &str) {
        let script = launcher(workspace, url, extra);
        self.open(&format!("sh '{}'", script.display()));
        self.wait_for("/help for commands").await;
    }

    pub fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Opens the 100×30 pane `ui` running `command`. A lone Escape is passed on at once
    /// (tmux would hold it for `escape-time` to see whether a sequence follows, and join it
    /// with the next key typed into an Alt chord).
    pub fn open(&self, command: &str) {
        self.run(&[
            "new-session",
            "-d",
            "-s",
            "ui",
            "-x",
            "100",
            "-y",
            "30",
            command,
        ]);
        self.run(&["set", "-s", "escape-time", "0"]);
    }

    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "ui", "-S", "-200"])
    }

    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "ui"];
        args.extend(keys);
        self.run(&args);
    }

    pub fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", "ui", "-l", text]);
    }

    /// Waits until the screen shows `text`; fails with the screen after `timeout`.
    pub async fn wait_for(&self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "the screen never showed {text:?}:\n{screen}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Tmux {
    /// Waits until the screen no longer shows `text` (a picker closed): keys typed before
    /// would reach what is closing (an Esc followed at once by `/` reads as Alt-/).
    pub async fn wait_gone(&self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.screen().contains(text) {
            assert!(
                Instant::now() < deadline,
                "the screen still shows {text:?}:\n{}",
                self.screen()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits until no run is going (the live area no longer offers Esc to cancel).
    pub async fn wait_idle(&self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.screen().contains("esc to cancel") {
            assert!(
                Instant::now() < deadline,
                "the run never ended:\n{}",
                self.screen()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}

/// A script that starts rein in `workspace` with a clean environment, then keeps the pane
/// open so its last screen can be read.
pub fn launcher(workspace: &Path, url: &str, extra: &str) -> std::path::PathBuf {
    let script = workspace.join(".rein-test-launch.sh");
    let body = format!(
        "#!/bin/sh\n\
         unset ANTHROPIC_BASE_URL OPENAI_API_KEY OPENAI_BASE_URL REIN_MODEL REIN_PERMISSION_MODE NO_COLOR\n\
         export ANTHROPIC_API_KEY=test XDG_DATA_HOME='{data}' XDG_CONFIG_HOME='{config}'\n\
         umask 0000\n\
         cd '{ws}'\n\
         '{rein}' --base-url '{url}' {extra}\n\
         echo \"rein exited with $?\"\n\
         sleep 60\n",
        data = workspace.join(".rein-test-data").display(),
        config = workspace.join(".rein-test-config").display(),
        ws = workspace.display(),
        rein = env!("CARGO_BIN_EXE_rein"),
    );
    std::fs::write(&script, body).unwrap();
    script
}
