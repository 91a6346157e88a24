//! The todo list across `rein exec` runs: written in one, restored by `--resume` (the
//! reminder then speaks of it), and shown on stderr as it changes.

use serde_json::Value;

use crate::support::*;

#[tokio::test]
async fn a_resumed_session_keeps_its_todo_list() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "todo_write", "arguments": {"todos": [
            {"content": "Write the parser", "status": "in_progress", "activeForm": "Writing the parser"},
            {"content": "Test it", "status": "pending", "activeForm": "Testing it"}]}}]},
          {"text": "started"}
        ]}"#,
    )
    .await;
    let mut cmd = exec_in(dir.path(), &server, "default", "plan it");
    cmd.env("HOME", dir.path().join("home"))
        .args(["--output-format", "json"]);
    let out = output(cmd).await;
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("todos: 0/2 done · Writing the parser"),
        "{stderr}"
    );
    let result: Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    let session = result["session_id"].as_str().unwrap().to_string();

    let look = r#"{"tool_calls": [{"name": "glob", "arguments": {"pattern": "*"}}]}"#;
    let next = mock(&format!(
        r#"{{"turns": [{look}, {look}, {look}, {{"text": "ok"}}]}}"#
    ))
    .await;
    let mut cmd = rein(dir.path());
    cmd.env("HOME", dir.path().join("home")).args([
        "exec",
        "--base-url",
        &next.url(),
        "--resume",
        &session,
        "go on",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let last = next.requests()[3].body.to_string();
    assert!(
        last.contains("Your todo list has not changed")
            && last.contains("- [in_progress] Write the parser"),
        "{last}"
    );
}
