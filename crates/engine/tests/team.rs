//! Teams end to end against the mock server, each agent's turns routed by what it was just
//! told (`when_last`): teammates working the board in dependency order, letters in order,
//! shutdown refused then agreed, a plan sent back then approved.

use rein_engine::permissions::PermissionMode;
use rein_llm::ProviderKind;
use rein_protocol::{Event, RunOutcome, TaskStatus};
use serde_json::{Value, json};

use crate::subagents::{parent, run_all};
use crate::support::*;

fn call(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

fn teammate(name: &str, prompt: &str) -> Value {
    call(
        "task",
        json!({"description": "work the board", "prompt": prompt, "name": name}),
    )
}

/// Turns for `n` requests whose last message holds `marker`, each answering `text`.
fn replies(marker: &str, text: &str, n: usize) -> Vec<Value> {
    (0..n)
        .map(|_| json!({"when_last": marker, "text": text}))
        .collect()
}

fn events_of(events: &[Event], keep: &mut dyn FnMut(&Event)) {
    for event in events {
        keep(event);
        if let Event::Subagent { event, .. } = event {
            events_of(std::slice::from_ref(event), keep);
        }
    }
}

#[tokio::test]
async fn three_teammates_complete_six_tasks_in_dependency_order() {
    let dir = tempfile::tempdir().unwrap();
    let create = |s: &str| call("task_create", json!({"subject": s, "description": s}));
    let blocked =
        |id: &str, by: &[&str]| call("task_update", json!({"taskId": id, "addBlockedBy": by}));
    let creates: Vec<Value> = ["a", "b", "c", "d", "e", "f"].map(create).to_vec();
    let mut turns = vec![
        json!({ "tool_calls": creates }),
        json!({"tool_calls": [
            blocked("3", &["1"]), blocked("4", &["2"]), blocked("5", &["3", "4"]), blocked("6", &["5"])
        ]}),
        json!({"tool_calls": [
            teammate("alice", "Take tasks from the board."),
            teammate("bob", "Take tasks from the board."),
            teammate("carol", "Take tasks from the board.")
        ]}),
        json!({"text": "The team is at work."}),
    ];
    turns.extend(replies("Take tasks from the board.", "Ready.", 3));
    for id in 1..=6 {
        turns.push(json!({"when_last": format!("You claimed task #{id} from"),
            "tool_calls": [call("task_update", json!({"taskId": id.to_string(), "status": "completed"}))]}));
        turns.extend(replies(
            &format!("Updated #{id} [completed]"),
            &format!("Finished {id}."),
            1,
        ));
    }
    turns.extend(replies("is idle; its last message", "Noted.", 40));
    let server = mock(&json!({"turns": turns}).to_string()).await;
    let mut agent = parent(
        ProviderKind::Anthropic,
        &server,
        dir.path(),
        PermissionMode::Bypass,
    );
    let (summary, events) = run_all(&mut agent, "Plan six tasks and have a team do them.").await;
    assert_eq!(
        summary.outcome,
        RunOutcome::Completed,
        "{:?}",
        summary.error
    );
    let tasks = agent.tasks();
    assert_eq!(tasks.len(), 6);
    for task in &tasks {
        assert_eq!(task.status, TaskStatus::Completed, "{task:?}");
        let owner = task.owner.as_deref().unwrap_or("");
        assert!(["alice", "bob", "carol"].contains(&owner), "{task:?}");
    }
    // Each completion came after its blockers': the order the board saw them.
    let mut completed: Vec<String> = Vec::new();
    events_of(&events, &mut |e| {
        if let Event::Tasks { tasks } = e {
            for t in tasks.iter().filter(|t| t.status == TaskStatus::Completed) {
                if !completed.contains(&t.id) {
                    completed.push(t.id.clone());
                }
            }
        }
    });
    let at = |id: &str| completed.iter().position(|c| c == id).unwrap();
    for (task, blockers) in [
        ("3", &["1"][..]),
        ("4", &["2"]),
        ("5", &["3", "4"]),
        ("6", &["5"]),
    ] {
        for b in blockers {
            assert!(at(b) < at(task), "{b} before {task}: {completed:?}");
        }
    }
    let mut states = Vec::new();
    events_of(&events, &mut |e| {
        if let Event::Teammate { name, state, .. } = e {
            states.push(format!("{name} {state}"));
        }
    });
    for name in ["alice", "bob", "carol"] {
        assert!(states.contains(&format!("{name} working")), "{states:?}");
        assert!(states.contains(&format!("{name} idle")), "{states:?}");
    }
    for name in ["alice", "bob", "carol"] {
        let asked = server
            .requests()
            .iter()
            .filter(|r| {
                r.body
                    .to_string()
                    .contains(&format!("You are `{name}`, a teammate"))
            })
            .count();
        assert!(asked >= 1, "{name} never asked the model");
    }
    println!("completed in order {completed:?}; {states:?}");
    // Nobody was told a task was blocked: teammates only ever took ready ones.
    for request in server.requests() {
        assert!(!request.body.to_string().contains("is blocked by"));
    }
}
