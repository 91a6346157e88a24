//! What the terminal UI does for a session beyond the screen, as `rein exec` does: its events
//! go to telemetry, and quitting stops the language servers politely.

use crate::support::*;
use crate::tmux::Tmux;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interactive_session_is_traced() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi"}}]},
          {"text": "Hello there."}]}"#,
    )
    .await;
    let file = dir.path().join("trace.jsonl");
    let extra = format!("--permission-mode bypass --trace '{}'", file.display());
    tmux.launch(dir.path(), &server.url(), &extra).await;
    tmux.type_text("say hello");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Hello there.").await;
    tmux.type_text("/quit");
    tmux.keys(&["Enter"]);
    tmux.wait_for("rein exited with 0").await;
    let names: Vec<String> = std::fs::read_to_string(&file)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["name"].to_string())
        .collect();
    for span in ["execute_tool bash", "rein.session"] {
        assert!(names.iter().any(|n| n.contains(span)), "{span}: {names:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quitting_the_ui_stops_the_language_servers() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = crate::lsp::probe_workspace();
    let ws = dir.path();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "edit_file", "arguments":
            {"path": "app.py", "old_string": "'x'", "new_string": "undefined_name"}}]},
          {"text": "Edited."}]}"#,
    )
    .await;
    tmux.launch(ws, &server.url(), "--permission-mode bypass")
        .await;
    tmux.type_text("break it");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Edited.").await;
    let seen = server.requests()[1].body.to_string();
    assert!(seen.contains("app.py: 1 error (probe)"), "{seen}");
    tmux.type_text("/quit");
    tmux.keys(&["Enter"]);
    tmux.wait_for("rein exited with 0").await;
    assert!(ws.join("probe.shutdown").exists(), "{}", tmux.screen());
}
