//! Saved tool outputs are keyed by workspace and session: a session of the same id in another
//! workspace can neither find nor read them.

use std::path::Path;

use rein_engine::session::workspace_key;
use rein_engine::{Agent, AgentConfig};
use rein_llm::ProviderKind;
use tokio_util::sync::CancellationToken;

use crate::support::*;

fn agent_with_outputs(server: &rein_testkit::MockServer, ws: &Path, outputs: &Path) -> Agent {
    let mut config = AgentConfig::new("claude-sonnet-4-5", ws.to_path_buf());
    config.policy.mode = rein_policy::PermissionMode::Bypass;
    config.session_id = Some("same-id".into());
    config.outputs_root = Some(outputs.to_path_buf());
    Agent::new(
        client(ProviderKind::Anthropic, server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap()
}

fn read_then_done(path: &Path) -> String {
    serde_json::json!({"turns": [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": path, "limit": 2}}]},
        {"text": "done"}
    ]})
    .to_string()
}

#[tokio::test]
async fn saved_outputs_are_readable_only_by_the_same_session_in_the_same_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let outputs = dir.path().join("outputs");
    let [ours, theirs] = ["ours", "theirs"].map(|name| {
        std::fs::create_dir_all(dir.path().join(name)).unwrap();
        dir.path().join(name).canonicalize().unwrap()
    });
    let saved = outputs
        .join(workspace_key(&ours))
        .join("same-id")
        .join("0001-bash.txt");

    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "bash", "arguments": {"command": "seq 1 20000"}}]},
          {"text": "saved"}
        ]}"#,
    )
    .await;
    let mut agent = agent_with_outputs(&server, &ours, &outputs);
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    agent.run("count", &tx, CancellationToken::new()).await;
    let (text, is_error) = tool_results(&agent.transcript()[2]).remove(0);
    assert!(!is_error, "{text}");
    assert!(text.contains(&saved.display().to_string()), "{text}");
    assert!(saved.is_file());

    // The same session id in another workspace: its own folder, and ours is out of reach.
    let server = mock(&read_then_done(&saved)).await;
    let mut other = agent_with_outputs(&server, &theirs, &outputs);
    other.run("peek", &tx, CancellationToken::new()).await;
    let (text, is_error) = tool_results(&other.transcript()[2]).remove(0);
    assert!(
        is_error,
        "another workspace's saved output was read: {text}"
    );

    // The session itself, resumed in its workspace, still reads it.
    let server = mock(&read_then_done(&saved)).await;
    let mut resumed = agent_with_outputs(&server, &ours, &outputs);
    resumed.run("read it", &tx, CancellationToken::new()).await;
    let (text, is_error) = tool_results(&resumed.transcript()[2]).remove(0);
    assert!(!is_error, "{text}");
    assert!(text.contains("\t1\n"), "{text}");
}
