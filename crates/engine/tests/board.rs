//! The task board through the loop: ids in call order, dependencies enforced, the board
//! reported after each change and found again by the session's next agent.

use rein_engine::{Agent, AgentConfig};
use rein_protocol::{Event, TaskStatus};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::support::*;

fn call(name: &str, arguments: Value) -> Value {
    serde_json::json!({"name": name, "arguments": arguments})
}

fn board_agent(
    server: &rein_testkit::MockServer,
    workspace: &std::path::Path,
    data: &std::path::Path,
) -> Agent {
    let mut config = AgentConfig::new("claude-sonnet-4-5", workspace.to_path_buf());
    config.policy.mode = rein_policy::PermissionMode::Bypass;
    config.tasks_root = Some(data.join("tasks"));
    config.session_id = Some("board-session".into());
    Agent::new(
        client(rein_llm::ProviderKind::Anthropic, server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap()
}

#[tokio::test]
async fn tasks_get_ids_in_call_order_wait_for_their_blockers_and_outlive_the_agent() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let create = |s: &str| {
        call(
            "task_create",
            serde_json::json!({"subject": s, "description": s}),
        )
    };
    let update = |args: Value| call("task_update", args);
    let turns = serde_json::json!({"turns": [
        {"tool_calls": [create("Design"), create("Build"), create("Test")]},
        {"tool_calls": [
            update(serde_json::json!({"taskId": "2", "addBlockedBy": ["1"]})),
            update(serde_json::json!({"taskId": "3", "addBlockedBy": ["2"]})),
            update(serde_json::json!({"taskId": "1", "addBlockedBy": ["3"]}))
        ]},
        {"tool_calls": [
            update(serde_json::json!({"taskId": "2", "status": "in_progress"})),
            update(serde_json::json!({"taskId": "1", "status": "completed", "owner": "main"})),
            call("task_list", serde_json::json!({}))
        ]},
        {"text": "planned"}
    ]});
    let server = mock(&turns.to_string()).await;
    let mut agent = board_agent(&server, dir.path(), data.path());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    agent.run("plan it", &tx, CancellationToken::new()).await;
    let transcript = agent.transcript();
    let created = tool_results(&transcript[2]);
    let texts: Vec<&str> = created.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Task #1 created successfully: Design",
            "Task #2 created successfully: Build",
            "Task #3 created successfully: Test"
        ]
    );
    let linked = tool_results(&transcript[4]);
    assert!(!linked[0].1 && !linked[1].1, "{linked:?}");
    assert!(linked[2].1, "{linked:?}");
    assert!(
        linked[2]
            .0
            .contains("task 1 cannot depend on task 3: 3 already waits for 1 (3 → 2 → 1)"),
        "{linked:?}"
    );
    let worked = tool_results(&transcript[6]);
    assert_eq!(
        worked[0],
        (
            "task 2 is blocked by 1 (pending): complete those first".to_string(),
            true
        )
    );
    assert_eq!(
        worked[1].0,
        "Updated #1 [completed] Design (owner: main)\nNow unblocked: #2"
    );
    assert_eq!(
        worked[2].0,
        "#1 [completed] Design (owner: main)\n#2 [pending] Build\n#3 [pending] Test [blocked by \
         #2]\nReady to start (unowned, unblocked): #2"
    );
    // One `tasks` event (and its `todos` view) per batch that changed the board.
    let boards: Vec<Vec<rein_protocol::BoardTask>> = drain(&mut rx)
        .into_iter()
        .filter_map(|e| match e {
            Event::Tasks { tasks } => Some(tasks),
            _ => None,
        })
        .collect();
    assert_eq!(boards.len(), 3);
    assert_eq!(boards[2][0].status, TaskStatus::Completed);
    assert_eq!(boards[2][2].blocked_by, ["2"]);
    drop(agent);
    // The session's next agent (`--continue`) finds the board where it was left.
    let again = board_agent(&server, dir.path(), data.path());
    let subjects: Vec<(String, TaskStatus)> = again
        .tasks()
        .into_iter()
        .map(|t| (t.subject, t.status))
        .collect();
    assert_eq!(
        subjects,
        [
            ("Design".to_string(), TaskStatus::Completed),
            ("Build".to_string(), TaskStatus::Pending),
            ("Test".to_string(), TaskStatus::Pending)
        ]
    );
}
