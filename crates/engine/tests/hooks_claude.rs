//! Hook scripts written for Claude Code read what they expect: for every event (and tool) of
//! `shared/conformance/claude-hooks/`, a real hook records its stdin during a scripted session
//! through the real engine, and the input has the keys and JSON types Claude Code sends.

use std::path::Path;
use std::time::Duration;

use pretty_assertions::assert_eq;
use rein_engine::hooks::{HookEvent, HookSpec};
use rein_engine::session::SessionStore;
use rein_engine::{Agent, AgentConfig};
use rein_llm::ProviderKind;
use rein_policy::PermissionMode;
use rein_protocol::SessionRecord;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::support::*;

/// The steps of the session Claude Code's inputs were recorded from, one call per turn.
const SCRIPT: &str = r#"{"turns": [
    {"tool_calls": [{"name": "bash", "arguments": {"command": "echo status"}}]},
    {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
    {"tool_calls": [{"name": "edit_file", "arguments":
        {"path": "notes.txt", "old_string": "NOTES_4", "new_string": "EDITED_4"}}]},
    {"tool_calls": [{"name": "write_file", "arguments": {"path": "src/new.py", "content": "y = 1\n"}}]},
    {"tool_calls": [{"name": "bash", "arguments": {"command": "ls no-such-dir"}}]},
    {"text": "CASE_DONE"}
]}"#;

/// Compared by value, not only by type: what does not depend on the machine or the run.
const EXACT: &[&str] = &[
    "hook_event_name",
    "tool_name",
    "source",
    "reason",
    "stop_hook_active",
    "last_assistant_message",
    "background_tasks",
    "session_crons",
    "is_interrupt",
    "prompt",
    "tool_input.old_string",
    "tool_input.new_string",
    "tool_input.replace_all",
    "tool_response.type",
    "tool_response.interrupted",
    "tool_response.isImage",
    "tool_response.noOutputExpected",
    "tool_response.oldString",
    "tool_response.newString",
    "tool_response.originalFile",
    "tool_response.structuredPatch",
    "tool_response.userModified",
    "tool_response.replaceAll",
    "tool_response.content",
    "tool_response.file.content",
    "tool_response.file.startLine",
];

/// May be absent: `effort` is Claude Code's own setting, and Bash's `description` is an
/// optional argument of Claude Code's Bash tool that rein's `bash` does not have.
const OPTIONAL: &[&str] = &["effort", "tool_input.description"];

/// What the hooks of `event` (for tool events, of the tool named `tool`) read on stdin while
/// the scripted session ran, recorded to a session file.
struct Recorded {
    inputs: Vec<Value>,
    session_file: std::path::PathBuf,
}

async fn record(event: HookEvent, tool: Option<&str>) -> Recorded {
    let server = mock(SCRIPT).await;
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("notes.txt"), "NOTES_4\n").unwrap();
    let out = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut config = AgentConfig::new("claude-sonnet-4-5", ws.path().to_path_buf());
    config.policy.mode = PermissionMode::Bypass;
    config.hooks = vec![HookSpec {
        event,
        matcher: tool.map(str::to_string),
        command: format!("cat > \"$(mktemp '{}/hook-XXXXXX')\"", out.path().display()),
        timeout: Duration::from_secs(10),
        source: "test".into(),
    }];
    let mut agent = Agent::new(
        client(ProviderKind::Anthropic, &server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap();
    let store = SessionStore::new(data.path(), ws.path());
    let writer = store
        .create(SessionRecord::Meta {
            session_id: agent.session_id().to_string(),
            created_at: "2026-11-23T05:00:00Z".into(),
            cwd: ws.path().display().to_string(),
            model: "claude-sonnet-4-5".into(),
            provider: "anthropic".into(),
            forked_from: None,
        })
        .unwrap();
    let session_file = writer.path().to_path_buf();
    agent.record_to(writer);
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    agent
        .run("Run the scripted steps.", &tx, CancellationToken::new())
        .await;
    agent.end_session(rein_engine::EndReason::Other, &tx).await;
    let mut inputs: Vec<Value> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|entry| {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            serde_json::from_str(&text).unwrap()
        })
        .collect();
    inputs.sort_by_key(|input| input["tool_use_id"].as_str().map(str::to_string));
    Recorded {
        inputs,
        session_file,
    }
}

/// Runs the session with a recording hook on the fixture's event and tool, and compares what
/// the hook read with what Claude Code sent.
async fn assert_conforms(fixture: &str, event: HookEvent, tool: Option<&str>) {
    let Some(expected) = claude_hook_fixture(fixture) else {
        return;
    };
    let recorded = record(event, tool).await;
    let first = recorded
        .inputs
        .first()
        .unwrap_or_else(|| panic!("no {fixture} hook ran"));
    let differences = shape_differences(first, &expected, EXACT, OPTIONAL);
    assert_eq!(differences, Vec::<String>::new(), "{fixture}: {first:#}");
    assert_eq!(
        first["transcript_path"].as_str(),
        Some(recorded.session_file.to_str().unwrap()),
        "transcript_path is the session file"
    );
}

#[tokio::test]
async fn session_start_input_is_claude_codes() {
    assert_conforms("SessionStart", HookEvent::SessionStart, None).await;
}

#[tokio::test]
async fn user_prompt_submit_input_is_claude_codes() {
    assert_conforms("UserPromptSubmit", HookEvent::UserPromptSubmit, None).await;
}

#[tokio::test]
async fn pre_tool_use_bash_input_is_claude_codes() {
    assert_conforms("PreToolUse-Bash", HookEvent::PreToolUse, Some("Bash")).await;
}

#[tokio::test]
async fn pre_tool_use_read_input_is_claude_codes() {
    assert_conforms("PreToolUse-Read", HookEvent::PreToolUse, Some("Read")).await;
}

#[tokio::test]
async fn pre_tool_use_edit_input_is_claude_codes() {
    assert_conforms("PreToolUse-Edit", HookEvent::PreToolUse, Some("Edit")).await;
}

#[tokio::test]
async fn pre_tool_use_write_input_is_claude_codes() {
    assert_conforms("PreToolUse-Write", HookEvent::PreToolUse, Some("Write")).await;
}

#[tokio::test]
async fn post_tool_use_bash_input_is_claude_codes() {
    assert_conforms("PostToolUse-Bash", HookEvent::PostToolUse, Some("Bash")).await;
}

#[tokio::test]
async fn post_tool_use_read_input_is_claude_codes() {
    assert_conforms("PostToolUse-Read", HookEvent::PostToolUse, Some("Read")).await;
}

#[tokio::test]
async fn post_tool_use_edit_input_is_claude_codes() {
    assert_conforms("PostToolUse-Edit", HookEvent::PostToolUse, Some("Edit")).await;
}

#[tokio::test]
async fn post_tool_use_write_input_is_claude_codes() {
    assert_conforms("PostToolUse-Write", HookEvent::PostToolUse, Some("Write")).await;
}

#[tokio::test]
async fn post_tool_use_failure_bash_input_is_claude_codes() {
    assert_conforms(
        "PostToolUseFailure-Bash",
        HookEvent::PostToolUseFailure,
        Some("Bash"),
    )
    .await;
}

#[tokio::test]
async fn stop_input_is_claude_codes() {
    assert_conforms("Stop", HookEvent::Stop, None).await;
}

#[tokio::test]
async fn session_end_input_is_claude_codes() {
    assert_conforms("SessionEnd", HookEvent::SessionEnd, None).await;
}

#[tokio::test]
async fn every_event_of_one_prompt_carries_the_same_prompt_id() {
    let recorded = record(HookEvent::PostToolUse, None).await;
    let ids: Vec<&Value> = recorded.inputs.iter().map(|i| &i["prompt_id"]).collect();
    assert_eq!(ids.len(), 4, "bash, read, edit and write succeeded");
    assert!(ids[0].is_string());
    assert!(ids.iter().all(|id| *id == ids[0]), "{ids:?}");
}

#[tokio::test]
async fn tool_input_paths_are_absolute_in_the_workspace() {
    let recorded = record(HookEvent::PreToolUse, Some("Read")).await;
    let input = &recorded.inputs[0];
    let cwd = input["cwd"].as_str().unwrap();
    assert_eq!(
        input["tool_input"]["file_path"].as_str(),
        Some(Path::new(cwd).join("notes.txt").to_str().unwrap())
    );
}

#[tokio::test]
async fn a_call_the_user_interrupted_is_a_failure_with_is_interrupt() {
    let server = mock(
        r#"{"turns": [{"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 30"}}]}]}"#,
    )
    .await;
    let ws = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let mut config = AgentConfig::new("claude-sonnet-4-5", ws.path().to_path_buf());
    config.policy.mode = PermissionMode::Bypass;
    config.hooks = vec![HookSpec {
        event: HookEvent::PostToolUseFailure,
        matcher: None,
        command: format!("cat > '{}/input.json'", out.path().display()),
        timeout: Duration::from_secs(10),
        source: "test".into(),
    }];
    let mut agent = Agent::new(
        client(ProviderKind::Anthropic, &server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    // Interrupted half a second after the call started, however late it started.
    tokio::spawn(async move {
        while let Some(event) = rx.recv().await {
            if matches!(event, rein_protocol::Event::ToolCallStart { .. }) {
                tokio::time::sleep(Duration::from_millis(500)).await;
                trigger.cancel();
            }
        }
    });
    agent.run("sleep", &tx, cancel).await;
    let text = std::fs::read_to_string(out.path().join("input.json")).unwrap();
    let input: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(input["is_interrupt"], Value::Bool(true));
    assert!(input["duration_ms"].as_u64().unwrap() >= 400, "{input}");
}

#[test]
fn shape_differences_name_missing_extra_and_mistyped_keys() {
    let expected = serde_json::json!({"a": 1, "b": {"c": "x"}, "effort": {}});
    let actual = serde_json::json!({"a": "1", "b": {"c": "y", "d": true}, "rein_tool_name": "t"});
    assert_eq!(
        shape_differences(&actual, &expected, &[], &["effort"]),
        [
            "a: a string (\"1\") instead of a number",
            "b.d: not in Claude Code's input",
        ]
    );
    assert_eq!(
        shape_differences(&actual, &expected, &["b.c"], &["effort"]),
        [
            "a: a string (\"1\") instead of a number",
            "b.c: \"y\" instead of \"x\"",
            "b.d: not in Claude Code's input",
        ]
    );
}
