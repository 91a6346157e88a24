//! The task board across `rein exec` runs: written in one, found again by `--resume` (the
//! reminder then speaks of it) and after a kill -9 by `--continue`, shown on stderr as it
//! changes, kept private.

use std::os::unix::fs::PermissionsExt;

use serde_json::{Value, json};

use crate::support::*;

fn plan_turn() -> Value {
    let create = |subject: &str, active: &str| {
        json!({"name": "task_create", "arguments":
            {"subject": subject, "description": subject, "activeForm": active}})
    };
    json!({"tool_calls": [
        create("Write the parser", "Writing the parser"),
        create("Test it", "Testing it"),
        {"name": "task_update", "arguments": {"taskId": "2", "addBlockedBy": ["1"]}},
        {"name": "task_update", "arguments": {"taskId": "1", "status": "in_progress"}}
    ]})
}

/// The board's folder for `workspace`'s only session.
fn board_dir(workspace: &std::path::Path) -> std::path::PathBuf {
    let root = workspace.join(".rein-test-data/rein/tasks");
    let key = std::fs::read_dir(&root)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::read_dir(key)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
}

#[tokio::test]
async fn a_resumed_session_keeps_its_task_board() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(&json!({"turns": [plan_turn(), {"text": "started"}]}).to_string()).await;
    let mut cmd = exec_in(dir.path(), &server, "default", "plan it");
    cmd.env("HOME", dir.path().join("home"))
        .args(["--output-format", "json"]);
    let out = output(cmd).await;
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("tasks: 0/2 done · Writing the parser"),
        "{stderr}"
    );
    let result: Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    let session = result["session_id"].as_str().unwrap().to_string();
    let board = board_dir(dir.path());
    assert!(board.ends_with(&session), "{}", board.display());
    let mode = |name: &str| {
        std::fs::metadata(board.join(name))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!((mode("1.json"), mode("2.json")), (0o600, 0o600));

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
        last.contains("The task board has not changed")
            && last.contains("#1 [in_progress] Write the parser")
            && last.contains("#2 [pending] Test it [blocked by #1]"),
        "{last}"
    );
}

#[tokio::test]
async fn a_board_written_before_a_kill_9_is_there_for_continue() {
    let dir = tempfile::tempdir().unwrap();
    // The second turn never comes back in time: the process is killed while it waits.
    let server =
        mock(&json!({"turns": [plan_turn(), {"text": "late", "delay_ms": 30000}]}).to_string())
            .await;
    let mut cmd = exec_in(dir.path(), &server, "default", "plan it");
    cmd.env("HOME", dir.path().join("home"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = cmd.spawn().unwrap();
    until("the second request", || server.requests().len() >= 2).await;
    child.kill().unwrap();
    let _ = child.wait();

    let list = json!({"turns": [
        {"tool_calls": [{"name": "task_list", "arguments": {}}]},
        {"text": "ok"}
    ]});
    let next = mock(&list.to_string()).await;
    let mut cmd = rein(dir.path());
    cmd.env("HOME", dir.path().join("home")).args([
        "exec",
        "--base-url",
        &next.url(),
        "--continue",
        "where were we?",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let result = last_message(&next, 1);
    assert!(
        result.contains("#1 [in_progress] Write the parser\\n#2 [pending] Test it [blocked by #1]"),
        "{result}"
    );
}
