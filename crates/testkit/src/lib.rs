//! Test support for rein: [`MockServer`], an HTTP server on 127.0.0.1 that speaks the Anthropic
//! Messages, OpenAI Responses and OpenAI Chat Completions streaming protocols, plays a
//! [`Scenario`] one turn per request, and records every request it receives.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use rein_testkit::{MockServer, Scenario};
//!
//! let scenario = Scenario::from_json(r#"{"turns": [{"text": "Hello!"}]}"#).unwrap();
//! let server = MockServer::start(scenario).await?;
//! // Point an Anthropic client at server.url(), an OpenAI client at server.openai_url(),
//! // run it, then assert on what it sent:
//! let sent = server.requests();
//! # Ok(()) }
//! ```
//!
//! Routes: `POST /v1/messages` (Anthropic), `POST /v1/responses` (OpenAI Responses),
//! `POST /v1/chat/completions` (Chat Completions). Anything else gets a 404 with a JSON error;
//! requests past the last turn get a 500 saying the scenario is exhausted. Both are recorded.
#![allow(clippy::disallowed_methods)] // dev-only crate: the test programs start real processes and read the test environment
#![deny(missing_docs)]

mod anthropic;
mod body;
mod cache;
mod conformance;
mod feishu;
mod hang;
mod install;
mod openai_chat;
mod openai_responses;
mod recorded;
mod scenario;
mod server;
mod slack;
mod slack_socket;
mod sse;
mod telegram;
mod to_rein;
mod whole;
mod wire;

pub use conformance::{
    FixtureError, committed_repo, conformance_dir, conformance_file, git, git_init, has_git,
};
pub use feishu::{FakeFeishu, FeishuApp, feishu_encrypt, feishu_signature};
pub use hang::{HANG_LIMIT, without_hanging};
pub use install::{node_folder, node_program, require, skip};
pub use recorded::RecordedRequest;
pub use scenario::{Fault, Scenario, ScenarioError, ScenarioToolCall, ScenarioTurn, ScenarioUsage};
pub use server::MockServer;
pub use slack::{FakeSlack, slack_signature};
pub use slack_socket::SocketSide;
pub use telegram::{BotCall, FakeTelegram};
pub use to_rein::epoch_secs;

/// The path of `rein-mcp-test-server` (an MCP server over stdio for tests), built first when
/// this test run has not built it.
pub fn mcp_test_server() -> std::path::PathBuf {
    static BUILT: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            // Test binaries live in target/<profile>/deps; the workspace's binaries one up.
            let exe = std::env::current_exe().unwrap_or_default();
            let dir = exe
                .parent()
                .and_then(|deps| deps.parent())
                .map(std::path::Path::to_path_buf)
                .unwrap_or_default();
            let path = dir.join("rein-mcp-test-server");
            if !path.is_file() {
                let status = std::process::Command::new(env!("CARGO"))
                    .args([
                        "build",
                        "-q",
                        "-p",
                        "rein-testkit",
                        "--bin",
                        "rein-mcp-test-server",
                    ])
                    .current_dir(env!("CARGO_MANIFEST_DIR"))
                    .status();
                if !status.is_ok_and(|s| s.success()) || !path.is_file() {
                    let _ = std::io::Write::write_fmt(
                        &mut std::io::stderr(),
                        format_args!("cannot build rein-mcp-test-server into {}\n", dir.display()),
                    );
                }
            }
            path
        })
        .clone()
}

/// `rein-mcp-test-server --http` running: its URL (`http://127.0.0.1:PORT/mcp`); the process
/// is killed when this is dropped.
pub struct McpHttpServer {
    /// The streamable HTTP endpoint.
    pub url: String,
    child: std::process::Child,
}

impl McpHttpServer {
    /// Starts the server, which wants `Authorization: Bearer <token>` when `token` is given,
    /// and reads its URL; `None` when it did not start.
    pub fn start(token: Option<&str>) -> Option<Self> {
        let mut child = std::process::Command::new(mcp_test_server())
            .arg("--http")
            .args(token)
            .stdout(std::process::Stdio::piped())
            .stdin(std::process::Stdio::null())
            .spawn()
            .ok()?;
        let mut line = String::new();
        let read = child
            .stdout
            .take()
            .map(|out| std::io::BufRead::read_line(&mut std::io::BufReader::new(out), &mut line));
        let url = line.trim().to_string();
        let server = Self { url, child };
        match read {
            Some(Ok(n)) if n > 0 && server.url.starts_with("http://") => Some(server),
            _ => None,
        }
    }

    /// Stops the server (as if it crashed).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for McpHttpServer {
    fn drop(&mut self) {
        self.kill();
    }
}
