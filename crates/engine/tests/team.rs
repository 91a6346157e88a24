//! Teams end to end against the mock server, each agent's turns routed by what it was just
//! told (`when_last`): teammates working the board in dependency order, letters in order,
//! shutdown refused then agreed, a plan sent back then approved.

use rein_llm::ProviderKind;
use rein_policy::PermissionMode;
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
    // A claim is told too: the lead's stream shows a task in a teammate's hands.
    let claimed = events.iter().any(|e| {
        matches!(e, Event::Tasks { tasks } if tasks.iter().any(|t| {
            t.status == TaskStatus::InProgress && t.owner.as_deref().is_some_and(|o| o != "main")
        }))
    });
    assert!(claimed, "no top-level tasks event showed a claim");
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

fn send(to: &str, message: &str, extra: Value) -> Value {
    let mut args = json!({"to": to, "message": message});
    if let (Some(args), Some(extra)) = (args.as_object_mut(), extra.as_object()) {
        args.extend(extra.clone());
    }
    call("send_message", args)
}

#[tokio::test]
async fn letters_arrive_in_order_and_a_refused_shutdown_keeps_the_teammate_working() {
    let dir = tempfile::tempdir().unwrap();
    let turns = vec![
        json!({"tool_calls": [teammate("alice", "Wait for instructions.")]}),
        json!({"text": "Alice is starting."}),
        json!({"when_last": "Wait for instructions.", "text": "Ready for instructions."}),
        // Three letters in one reply: they must reach alice in the order written.
        json!({"when_last": "Ready for instructions.", "tool_calls": [
            send("alice", "first", json!({})),
            send("alice", "second", json!({})),
            send("alice", "third", json!({}))
        ]}),
        json!({"when_last": "Message sent to alice.", "text": "Sent."}),
        json!({"when_last": "first", "tool_calls": [send("main", "got all three", json!({}))]}),
        json!({"when_last": "Message sent to main.", "text": "Waiting."}),
        // A shutdown alice refuses, then one it agrees to.
        json!({"when_last": "got all three", "tool_calls": [
            send("alice", "time to stop", json!({"type": "shutdown_request"}))
        ]}),
        json!({"when_last": "Shutdown request shutdown-1 sent", "text": "Asked."}),
        json!({"when_last": "time to stop", "tool_calls": [
            send("main", "not yet: one more check", json!({
                "type": "shutdown_response", "request_id": "shutdown-1", "approve": false}))
        ]}),
        json!({"when_last": "Message sent to main.", "text": "Still working."}),
        json!({"when_last": "not yet: one more check", "tool_calls": [
            send("alice", "now stop", json!({"type": "shutdown_request"}))
        ]}),
        json!({"when_last": "Shutdown request shutdown-2 sent", "text": "Asked again."}),
        json!({"when_last": "now stop", "tool_calls": [
            send("main", "stopping", json!({
                "type": "shutdown_response", "request_id": "shutdown-2", "approve": true}))
        ]}),
        json!({"when_last": "Shutdown agreed", "text": "Bye."}),
    ];
    let mut turns = turns;
    turns.extend(replies("is idle; its last message", "Noted.", 10));
    turns.extend(replies("stopping", "Alice stopped.", 2));
    turns.extend(replies("stopped (shutdown)", "Done.", 2));
    let server = mock(&json!({"turns": turns}).to_string()).await;
    let mut agent = parent(
        ProviderKind::Anthropic,
        &server,
        dir.path(),
        PermissionMode::Bypass,
    );
    let (summary, events) = run_all(&mut agent, "Run a teammate.").await;
    assert_eq!(
        summary.outcome,
        RunOutcome::Completed,
        "{:?}",
        summary.error
    );
    let bodies: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    let letters = bodies
        .iter()
        .find(|b| {
            b.contains("You are `alice`") && b.contains("<message from=\\\"main\\\">\\nfirst")
        })
        .expect("alice read the letters");
    let at = |word: &str| letters.find(&format!("\\n{word}\\n</message>")).unwrap();
    assert!(at("first") < at("second") && at("second") < at("third"));
    let mut seen = Vec::new();
    events_of(&events, &mut |e| match e {
        Event::TeamMessage { from, to, kind, .. } => seen.push(format!("{from}→{to} {kind}")),
        Event::Teammate {
            name,
            state,
            reason,
            ..
        } if state == "stopped" => seen.push(format!(
            "{name} stopped {}",
            reason.as_deref().unwrap_or("")
        )),
        _ => {}
    });
    assert_eq!(
        seen,
        [
            "main→alice message",
            "main→alice message",
            "main→alice message",
            "alice→main message",
            "main→alice shutdown_request",
            "alice→main shutdown_response",
            "main→alice shutdown_request",
            "alice→main shutdown_response",
            "alice stopped shutdown"
        ]
    );
    // A stopped teammate gets no more letters.
    let roster = agent.background().list();
    let alice = roster.iter().find(|t| t.id == "alice").unwrap();
    assert!(!alice.running, "{alice:?}");
}

#[tokio::test]
async fn a_plan_mode_teammates_plan_is_sent_back_then_approved_by_the_lead() {
    let dir = tempfile::tempdir().unwrap();
    let plan_teammate = call(
        "task",
        json!({"description": "plan it", "prompt": "Plan the change.", "name": "bob", "mode": "plan"}),
    );
    let mut turns = vec![
        json!({"tool_calls": [plan_teammate]}),
        json!({"text": "Bob is planning."}),
        json!({"when_last": "Plan the change.", "tool_calls": [
            call("exit_plan_mode", json!({"plan": "Plan A: edit the parser."}))
        ]}),
        json!({"when_last": "Plan A: edit the parser.", "tool_calls": [
            send("bob", "add tests first", json!({
                "type": "plan_approval_response", "request_id": "plan-1", "approve": false}))
        ]}),
        json!({"when_last": "Plan plan-1 of bob sent back", "text": "Sent back."}),
        json!({"when_last": "main sent the plan back: add tests first", "tool_calls": [
            call("exit_plan_mode", json!({"plan": "Plan B: tests, then the parser."}))
        ]}),
        json!({"when_last": "Plan B: tests, then the parser.", "tool_calls": [
            send("bob", "go ahead", json!({
                "type": "plan_approval_response", "request_id": "plan-2", "approve": true}))
        ]}),
        json!({"when_last": "Plan plan-2 of bob approved", "text": "Approved."}),
        json!({"when_last": "approved your plan", "tool_calls": [
            call("bash", json!({"command": "touch made-by-bob"}))
        ]}),
        json!({"when": "You are `bob`", "when_last": "(no output)", "text": "Carried out."}),
    ];
    turns.extend(replies("is idle; its last message", "Noted.", 5));
    let server = mock(&json!({"turns": turns}).to_string()).await;
    // Bob's own mode is plan until the lead approves its plan, then the session's (bypass).
    let mut agent = parent(
        ProviderKind::Anthropic,
        &server,
        dir.path(),
        PermissionMode::Bypass,
    );
    let (summary, _) = run_all(&mut agent, "Have bob plan it.").await;
    assert_eq!(
        summary.outcome,
        RunOutcome::Completed,
        "{:?}",
        summary.error
    );
    let bodies: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    // While it planned, bob was offered exit_plan_mode; its first plan was refused with the
    // lead's feedback, its second approved, and then it worked.
    assert!(
        bodies
            .iter()
            .any(|b| b.contains("main sent the plan back: add tests first"))
    );
    assert!(dir.path().join("made-by-bob").exists());
}

/// The lead is a model: its approval of a plan is not the user's. Without a user to ask (and
/// not in `bypass`), or while the session itself plans, the teammate keeps planning.
#[tokio::test]
async fn a_plan_the_lead_approved_is_not_carried_out_without_the_users_say() {
    for (mode, why) in [
        (
            PermissionMode::Default,
            "only the user can let a teammate leave plan mode",
        ),
        (PermissionMode::Plan, "the session is in plan mode"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let plan_teammate = call(
            "task",
            json!({"description": "plan it", "prompt": "Plan the change.", "name": "bob", "mode": "plan"}),
        );
        let mut turns = vec![
            json!({"tool_calls": [plan_teammate]}),
            json!({"text": "Bob is planning."}),
            json!({"when_last": "Plan the change.", "tool_calls": [
                call("exit_plan_mode", json!({"plan": "Plan A: touch a file."}))
            ]}),
            json!({"when_last": "Plan A: touch a file.", "tool_calls": [
                send("bob", "go ahead", json!({
                    "type": "plan_approval_response", "request_id": "plan-1", "approve": true}))
            ]}),
            json!({"when_last": "Plan plan-1 of bob approved", "text": "Approved."}),
            json!({"when_last": "approved your plan", "tool_calls": [
                call("bash", json!({"command": "touch made-by-bob"}))
            ]}),
            json!({"when_last": "keep planning", "text": "Still planning."}),
        ];
        turns.extend(replies("is idle; its last message", "Noted.", 5));
        let server = mock(&json!({"turns": turns}).to_string()).await;
        let mut agent = parent(ProviderKind::Anthropic, &server, dir.path(), mode);
        let (summary, _) = run_all(&mut agent, "Have bob plan it.").await;
        assert_eq!(
            summary.outcome,
            RunOutcome::Completed,
            "{mode:?}: {:?}",
            summary.error
        );
        let bodies: Vec<String> = server
            .requests()
            .iter()
            .map(|r| r.body.to_string())
            .collect();
        assert!(
            bodies.iter().any(|b| b.contains(why)),
            "{mode:?}: the teammate was told why"
        );
        assert!(
            !dir.path().join("made-by-bob").exists(),
            "{mode:?}: the teammate acted on the lead's word alone"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_teammates_racing_for_a_hundred_tasks_claim_each_once() {
    let dir = tempfile::tempdir().unwrap();
    let creates: Vec<Value> = (1..=100)
        .map(|n| {
            call(
                "task_create",
                json!({"subject": format!("t{n}"), "description": "x"}),
            )
        })
        .collect();
    let names = ["a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8"];
    let team: Vec<Value> = names.iter().map(|n| teammate(n, "Take tasks.")).collect();
    let mut turns = vec![
        json!({ "tool_calls": creates }),
        json!({ "tool_calls": team }),
        json!({"text": "Go."}),
    ];
    turns.extend(replies("Take tasks.", "Ready.", 8));
    for id in 1..=100 {
        turns.push(json!({"when_last": format!("You claimed task #{id} from"),
            "tool_calls": [call("task_update", json!({"taskId": id.to_string(), "status": "completed"}))]}));
        turns.extend(replies(&format!("Updated #{id} [completed]"), "Done.", 1));
    }
    turns.extend(replies("is idle; its last message", "Noted.", 60));
    let server = mock(&json!({"turns": turns}).to_string()).await;
    let mut agent = parent(
        ProviderKind::Anthropic,
        &server,
        dir.path(),
        PermissionMode::Bypass,
    );
    let (summary, _) = run_all(&mut agent, "Go.").await;
    assert_eq!(
        summary.outcome,
        RunOutcome::Completed,
        "{:?}",
        summary.error
    );
    let tasks = agent.tasks();
    assert_eq!(tasks.len(), 100);
    assert!(tasks.iter().all(|t| t.status == TaskStatus::Completed));
    // Each task was handed out once: one "You claimed task #N" request per task.
    let lasts: Vec<String> = (server.requests().iter())
        .filter_map(|r| r.body["messages"].as_array()?.last().map(Value::to_string))
        .collect();
    for id in 1..=100 {
        let marker = format!("You claimed task #{id} from");
        let claimed = lasts.iter().filter(|last| last.contains(&marker)).count();
        assert_eq!(claimed, 1, "task {id}");
    }
}

#[tokio::test]
async fn a_resumed_session_starts_its_teammates_again_with_their_context() {
    use rein_engine::session::SessionStore;
    use rein_protocol::SessionRecord;
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let store = SessionStore::new(data.path(), dir.path());
    let first = json!({"turns": [
        {"tool_calls": [teammate("ann", "Remember the word kumquat, then wait.")]},
        {"text": "Ann is waiting."},
        {"when_last": "Remember the word kumquat", "text": "Noted the word."},
        {"when_last": "ann is idle", "text": "Fine."},
        {"when_last": "ann is idle", "text": "Fine."}
    ]});
    let server = mock(&first.to_string()).await;
    let mut agent = parent(
        ProviderKind::Anthropic,
        &server,
        dir.path(),
        PermissionMode::Bypass,
    );
    let id = agent.session_id().to_string();
    let writer = store
        .create(SessionRecord::Meta {
            session_id: id.clone(),
            created_at: "2026-11-27T02:00:00Z".into(),
            cwd: dir.path().display().to_string(),
            model: "claude-sonnet-4-5".into(),
            provider: "anthropic".into(),
            forked_from: None,
        })
        .unwrap();
    agent.record_to(writer);
    let (summary, _) = run_all(&mut agent, "Start ann.").await;
    assert_eq!(
        summary.outcome,
        RunOutcome::Completed,
        "{:?}",
        summary.error
    );
    // The process ends (its teammates with it): ann stays on the roster.
    drop(agent);

    let loaded = store.load(&id).unwrap();
    assert_eq!(loaded.roster.len(), 1, "{:?}", loaded.roster);
    let second = json!({"turns": [
        {"when_last": "Ask ann", "tool_calls": [send("ann", "Which word?", json!({}))]},
        {"when_last": "Message sent to ann.", "text": "Asked."},
        {"when_last": "Which word?", "tool_calls": [send("main", "kumquat", json!({}))]},
        {"when_last": "Message sent to main.", "text": "Answered."},
        {"when_last": "kumquat", "text": "Ann said kumquat."},
        {"when_last": "ann is idle", "text": "Fine."},
        {"when_last": "ann is idle", "text": "Fine."}
    ]});
    let server = mock(&second.to_string()).await;
    let mut agent = parent(
        ProviderKind::Anthropic,
        &server,
        dir.path(),
        PermissionMode::Bypass,
    );
    // Its teammates end a moment after it (they are cancelled, then let the file go).
    let writer = loop {
        match store.append_to(&id) {
            Ok(writer) => break writer,
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(20)).await,
        }
    };
    agent.record_to(writer);
    agent.resume_from(loaded);
    let (summary, _) = run_all(&mut agent, "Ask ann which word she noted.").await;
    assert_eq!(
        summary.outcome,
        RunOutcome::Completed,
        "{:?}",
        summary.error
    );
    let asked = server
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .find(|b| b.contains("Which word?") && b.contains("You are `ann`"))
        .expect("ann was asked");
    // Ann's context is her stored one: her brief and her earlier answer.
    assert!(asked.contains("Remember the word kumquat") && asked.contains("Noted the word."));
    let roster = agent.background().list();
    assert!(
        roster.iter().any(|t| t.id == "ann" && t.running),
        "{roster:?}"
    );
}

#[tokio::test]
async fn more_teammates_than_allowed_are_refused_and_names_are_checked() {
    use rein_engine::subagents::{Subagents, built_in};
    let dir = tempfile::tempdir().unwrap();
    let turns = json!({"turns": [
        {"tool_calls": [
            teammate("one", "Wait here."),
            teammate("two", "Wait here."),
            teammate("main", "Wait here."),
            teammate("../x", "Wait here.")
        ]},
        {"text": "Tried."},
        {"when_last": "Wait here.", "text": "Waiting."},
        {"when_last": "one is idle", "text": "Fine."},
        {"when_last": "one is idle", "text": "Fine."}
    ]});
    let server = mock(&turns.to_string()).await;
    let mut config = rein_engine::AgentConfig::new("claude-sonnet-4-5", dir.path().to_path_buf());
    config.policy.mode = PermissionMode::Bypass;
    let mut subagents = Subagents::new(built_in(None));
    subagents.max_teammates = 1;
    config.subagents = Some(subagents);
    let mut agent = rein_engine::Agent::new(
        client(ProviderKind::Anthropic, &server),
        rein_tools::ToolRegistry::for_model("claude-sonnet-4-5"),
        config,
    )
    .unwrap();
    run_all(&mut agent, "Start a team.").await;
    let results = tool_results(&agent.transcript()[2]);
    assert!(!results[0].1, "{results:?}");
    assert!(
        results[1].1
            && results[1]
                .0
                .contains("the team is full: at most 1 running at once"),
        "{results:?}"
    );
    assert!(
        results[2].1 && results[2].0.contains("`main` is not a valid teammate name"),
        "{results:?}"
    );
    assert!(
        results[3].1 && results[3].0.contains("`../x` is not a valid teammate name"),
        "{results:?}"
    );
}
