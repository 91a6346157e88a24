//! MCP in the interactive UI, in a real terminal (tmux): `/mcp` shows the servers, a server's
//! prompt is typed as a slash command, and Ctrl-C during a slow MCP call interrupts the turn,
//! tells the server (which stops the call) and leaves the session going.

use std::time::Duration;

use serde_json::json;

use crate::support::*;
use crate::tmux::Tmux;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_servers_prompts_and_cancellation_in_the_ui() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let kit = rein_testkit::mcp_test_server().display().to_string();
    std::fs::write(
        dir.path().join(".mcp.json"),
        json!({"mcpServers": {"kit": {"command": kit}}}).to_string(),
    )
    .unwrap();
    let mark = dir.path().join("cancelled-mark");
    let sleep = json!({"tool_calls": [{"name": "mcp__kit__sleep",
        "arguments": {"ms": 60_000, "mark": mark}}]});
    let server = mock(&format!(
        r#"{{"turns": [{{"text": "Hello Ada!"}}, {sleep}, {{"text": "never"}}]}}"#
    ))
    .await;
    tmux.launch(
        dir.path(),
        &server.url(),
        "--trust-workspace --allowed-tools mcp__kit",
    )
    .await;

    tmux.type_text("/mcp");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("kit  stdio  connected · 7 tools").await;
    assert!(screen.contains("prompts: /mcp__kit__greet"), "{screen}");

    tmux.type_text("/mcp__kit__greet Ada");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Hello Ada!").await;
    assert!(last_message(&server, 0).contains("Greet Ada plainly."));

    tmux.type_text("wait a while");
    tmux.keys(&["Enter"]);
    let started = dir.path().join("cancelled-mark.started");
    rein_testkit::without_hanging("the MCP call to start", move || {
        while !started.exists() {
            std::thread::sleep(Duration::from_millis(10));
        }
    });
    tmux.keys(&["C-c"]);
    tmux.wait_for("Interrupted. Tell the model").await;
    // The session goes on, and the server was told to stop the call.
    let told = mark.clone();
    rein_testkit::without_hanging("the server to see the cancellation", move || {
        while !told.exists() {
            std::thread::sleep(Duration::from_millis(10));
        }
    });
    tmux.wait_for("/help for commands").await;
    tmux.type_text("/quit");
    tmux.keys(&["Enter"]);
    tmux.wait_for("rein exited with 0").await;
    assert_eq!(server.requests().len(), 2, "no request after the cancel");
}
