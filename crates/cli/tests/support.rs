#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rein_testkit::{MockServer, Scenario};

/// Env vars that would leak the developer's real configuration into a test.
const SCRUBBED: [&str; 9] = [
    "ANTHROPIC_API_KEY",
    "CLAUDE_CONFIG_DIR",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "REIN_MODEL",
    "REIN_PERMISSION_MODE",
    "REIN_SANDBOX_HELPER",
    "RUST_BACKTRACE",
];

pub fn rein(workspace: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rein"));
    for key in SCRUBBED {
        cmd.env_remove(key);
    }
    // Saved outputs (and later sessions) go to a folder of the test, not the user's.
    cmd.env("XDG_DATA_HOME", workspace.join(".rein-test-data"));
    cmd.env("XDG_CONFIG_HOME", workspace.join(".rein-test-config"));
    cmd.env("XDG_CACHE_HOME", workspace.join(".rein-test-cache"));
    // The machine's managed settings (an administrator's) are not the test's.
    cmd.env(
        "REIN_MANAGED_SETTINGS",
        workspace.join(".rein-test-managed.json"),
    );
    cmd.current_dir(workspace);
    cmd
}

pub async fn mock(scenario: &str) -> MockServer {
    MockServer::start(Scenario::from_json(scenario).unwrap())
        .await
        .unwrap()
}

/// Runs a command to completion off the async runtime so the mock server keeps serving.
pub async fn output(mut cmd: Command) -> Output {
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub const DEMO: &str = include_str!("../../testkit/scenarios/demo.json");

/// The session files rein recorded for `workspace` (under its test data folder).
pub fn session_files(workspace: &Path) -> Vec<PathBuf> {
    let root = workspace.join(".rein-test-data/rein/sessions");
    let mut files = Vec::new();
    for dir in std::fs::read_dir(root).into_iter().flatten().flatten() {
        for file in std::fs::read_dir(dir.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            // Sessions only: not a header being written (`.ID.jsonl.partial`).
            let path = file.path();
            let name = file.file_name().to_string_lossy().into_owned();
            if name.ends_with(".jsonl") && !name.starts_with('.') {
                files.push(path);
            }
        }
    }
    files
}

/// `rein exec` in `workspace` against `server` in permission mode `mode`, with `prompt`.
pub fn exec_in(workspace: &Path, server: &MockServer, mode: &str, prompt: &str) -> Command {
    let mut cmd = rein(workspace);
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--permission-mode",
        mode,
        prompt,
    ]);
    cmd
}

/// The newest message of the `n`-th request `server` received (0-based): what the last turn
/// added, such as the results of its tool calls.
pub fn last_message(server: &MockServer, n: usize) -> String {
    server.requests()[n].body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .map(|m| m.to_string())
        .unwrap_or_default()
}

/// Writes the user's `config.toml` (in the test's own config folder).
pub fn write_user_config(workspace: &Path, text: &str) {
    let dir = workspace.join(".rein-test-config/rein");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.toml"), text).unwrap();
}

/// Waits until `done` holds, polling; a wait past the testkit's hang limit fails the test as
/// hung (this proves "does not block", not "is fast").
#[allow(clippy::panic)]
pub async fn until(what: &str, mut done: impl FnMut() -> bool) {
    let waited = tokio::time::timeout(rein_testkit::HANG_LIMIT, async {
        while !done() {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    })
    .await;
    if waited.is_err() {
        panic!("{what} hung (not within {:?})", rein_testkit::HANG_LIMIT);
    }
}

/// A long-running `rein` (`rein serve`) whose stderr is read as it comes.
pub struct Served {
    child: std::process::Child,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Served {
    /// Starts `cmd`, its stderr kept.
    pub fn spawn(mut cmd: Command) -> Self {
        use std::io::BufRead;
        cmd.stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let pipe = child.stderr.take().unwrap();
        let kept = std::sync::Arc::clone(&stderr);
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                let mut all = kept.lock().unwrap();
                all.push_str(&line);
                all.push('\n');
            }
        });
        Self { child, stderr }
    }

    /// What it said on stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// The address of its webhook server, once it says it (`http://127.0.0.1:…`).
    pub async fn webhooks(&self) -> String {
        let said = || {
            let stderr = self.stderr();
            let at = stderr.find("webhooks at ")?;
            let url = stderr[at + "webhooks at ".len()..]
                .split_whitespace()
                .next()?;
            Some(url.to_string())
        };
        until("the webhook server", || said().is_some()).await;
        said().unwrap()
    }

    /// Stops it; everything it said on stderr.
    pub fn stop(mut self) -> String {
        self.kill();
        // The reader ends with the pipe; give it a moment to take the last lines.
        std::thread::sleep(std::time::Duration::from_millis(50));
        self.stderr()
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Served {
    /// A failed test's `rein serve` does not outlive it.
    fn drop(&mut self) {
        self.kill();
    }
}
