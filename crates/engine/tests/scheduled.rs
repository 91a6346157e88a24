//! Scheduled jobs in a controlled session, on a fake clock: what the model schedules fires at
//! its minute, waits for the running turn, runs as the next job; `/loop`; a wake-up; what
//! `rein exec --stay` waits for.

use std::sync::Arc;
use std::time::Duration;

use chrono::{Local, TimeZone};
use rein_engine::{Agent, AgentConfig, Controller, Op};
use rein_llm::ProviderKind;
use rein_protocol::{Event, JobKind};
use rein_schedule::FakeClock;
use rein_testkit::MockServer;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::support::*;

/// 2026-03-02 10:00:30, local time.
fn start() -> FakeClock {
    FakeClock::at(
        Local
            .with_ymd_and_hms(2026, 3, 2, 10, 0, 30)
            .single()
            .unwrap(),
    )
}

async fn controller(
    server: &MockServer,
    dir: &std::path::Path,
    clock: &FakeClock,
) -> (Controller, UnboundedReceiver<Event>) {
    let mut config = AgentConfig::new("claude-sonnet-4-5", dir.to_path_buf());
    config.policy.mode = rein_policy::PermissionMode::Bypass;
    config.clock = Arc::new(clock.clone());
    let agent = Agent::new(
        client(ProviderKind::Anthropic, server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap();
    // New sessions talk to a server of their own.
    let factory = Arc::new(Factory {
        server: mock(r#"{"turns": []}"#).await,
        workspace: dir.to_path_buf(),
    });
    let (tx, events) = tokio::sync::mpsc::unbounded_channel();
    let mut controller = Controller::new(agent, factory, tx, None);
    controller.serve_schedule();
    (controller, events)
}

/// Events until the `n`-th `Result` (inclusive).
async fn until_results(events: &mut UnboundedReceiver<Event>, n: usize) -> Vec<Event> {
    let mut seen = Vec::new();
    let mut results = 0;
    while results < n {
        let event = tokio::time::timeout(Duration::from_secs(20), events.recv())
            .await
            .expect("an event within 20 s")
            .expect("the stream is open");
        results += usize::from(matches!(event, Event::Result { .. }));
        seen.push(event);
    }
    seen
}

fn last_user_text(server: &MockServer, request: usize) -> String {
    let body = &server.requests()[request].body;
    let last = body["messages"].as_array().unwrap().last().unwrap().clone();
    match &last["content"] {
        serde_json::Value::String(text) => text.clone(),
        blocks => blocks
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

#[tokio::test]
async fn a_job_fires_at_its_minute_and_waits_for_the_running_turn() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "cron_create", "arguments": {"cron": "*/5 * * * *", "prompt": "check the build"}}]},
          {"text": "scheduled"},
          {"text": "a long answer", "delay_ms": 400},
          {"text": "build ok"}
        ]}"#,
    )
    .await;
    let clock = start();
    let (mut controller, mut events) = controller(&server, dir.path(), &clock).await;
    controller
        .apply(Op::Submit("watch the build".into()))
        .await
        .unwrap();
    let first = until_results(&mut events, 1).await;
    let jobs = controller.jobs();
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].cron.as_deref(), Some("*/5 * * * *"));
    assert!(
        jobs[0].next_fire.starts_with("2026-03-02T10:05:00"),
        "{jobs:?}"
    );
    // The change was reported (after the call, before or after the run's end).
    let reported = |events: &[Event]| {
        events
            .iter()
            .any(|e| matches!(e, Event::Schedule { jobs } if jobs.len() == 1))
    };
    let mut more = Vec::new();
    if !reported(&first) {
        more.push(events.recv().await.unwrap());
        assert!(reported(&more), "{more:?}");
    }

    // A long turn runs when 10:05 comes: the job waits for it.
    controller
        .apply(Op::Submit("something long".into()))
        .await
        .unwrap();
    loop {
        if let Some(Event::TurnStart { .. }) = events.recv().await {
            break;
        }
    }
    clock.set(
        Local
            .with_ymd_and_hms(2026, 3, 2, 10, 5, 0)
            .single()
            .unwrap(),
    );
    let seen = until_results(&mut events, 2).await;
    let kinds: Vec<&str> = seen
        .iter()
        .filter_map(|e| match e {
            Event::Result { text, .. } if text == "a long answer" => Some("long result"),
            Event::ScheduledPrompt { prompt, .. } if prompt == "check the build" => Some("fired"),
            Event::Result { text, .. } if text == "build ok" => Some("job result"),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["long result", "fired", "job result"]);
    assert_eq!(last_user_text(&server, 3), "check the build");
    // It fires again at 10:10.
    assert!(
        controller.jobs()[0]
            .next_fire
            .starts_with("2026-03-02T10:10:00")
    );
    // `/tasks stop ID` deletes it.
    let id = controller.jobs()[0].id.clone();
    controller.apply(Op::StopTask(id)).await.unwrap();
    assert!(controller.jobs().is_empty());
}

#[tokio::test]
async fn loop_runs_now_and_at_every_interval() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "first look"}, {"text": "second look"}]}"#).await;
    let clock = start();
    let (mut controller, mut events) = controller(&server, dir.path(), &clock).await;
    controller
        .apply(Op::Submit("/loop 5m look at the deploy".into()))
        .await
        .unwrap();
    until_results(&mut events, 1).await;
    let first = last_user_text(&server, 0);
    assert!(
        first.starts_with("<command-name>/loop</command-name>\nlook at the deploy"),
        "{first}"
    );
    assert!(first.contains("every 5 minutes"), "{first}");
    let jobs = controller.jobs();
    assert_eq!(
        (jobs.len(), jobs[0].cron.as_deref(), jobs[0].prompt.as_str()),
        (1, Some("*/5 * * * *"), "look at the deploy")
    );
    clock.advance(Duration::from_secs(5 * 60));
    until_results(&mut events, 1).await;
    assert_eq!(last_user_text(&server, 1), "look at the deploy");
}

#[tokio::test]
async fn a_self_paced_loop_goes_on_with_wakeups_and_stay_waits_for_them() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "schedule_wakeup", "arguments": {"delaySeconds": 5, "reason": "the build takes a while", "prompt": "/loop check the deploy"}}]},
          {"text": "will look again"},
          {"text": "deploy done, stopping"}
        ]}"#,
    )
    .await;
    let clock = start();
    let (mut controller, mut events) = controller(&server, dir.path(), &clock).await;
    controller
        .apply(Op::Submit("/loop check the deploy".into()))
        .await
        .unwrap();
    until_results(&mut events, 1).await;
    assert!(last_user_text(&server, 0).contains("call schedule_wakeup"));
    let jobs = controller.jobs();
    assert_eq!(jobs[0].kind, JobKind::Wakeup);
    // Clamped to a minute.
    assert!(
        jobs[0].next_fire.starts_with("2026-03-02T10:01:30"),
        "{jobs:?}"
    );
    assert_eq!(jobs[0].reason.as_deref(), Some("the build takes a while"));
    let settled = {
        let settled = controller.settled();
        tokio::pin!(settled);
        assert!(
            tokio::time::timeout(Duration::from_millis(200), &mut settled)
                .await
                .is_err(),
            "a wake-up is pending: not settled"
        );
        clock.advance(Duration::from_secs(60));
        tokio::time::timeout(Duration::from_secs(20), settled).await
    };
    assert!(settled.is_ok(), "the wake-up ran and set no other");
    // The wake-up's `/loop` prompt ran as a loop again.
    let again = last_user_text(&server, 2);
    assert!(
        again.starts_with("<command-name>/loop</command-name>\ncheck the deploy"),
        "{again}"
    );
    assert!(controller.jobs().is_empty());
}

#[tokio::test]
async fn a_new_session_leaves_the_old_sessions_jobs_behind() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "cron_create", "arguments": {"cron": "* * * * *", "prompt": "tick"}}]},
          {"text": "ok"}
        ]}"#,
    )
    .await;
    let clock = start();
    let (mut controller, mut events) = controller(&server, dir.path(), &clock).await;
    controller
        .apply(Op::Submit("tick every minute".into()))
        .await
        .unwrap();
    until_results(&mut events, 1).await;
    assert_eq!(controller.jobs().len(), 1);
    controller.apply(Op::NewSession).await.unwrap();
    assert!(controller.jobs().is_empty());
    clock.advance(Duration::from_secs(120));
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        server.requests().len(),
        2,
        "the old session's job did not fire"
    );
}

#[tokio::test]
async fn rules_name_the_tools_as_claude_code_does_and_a_durable_job_is_asked_about() {
    use rein_policy::{PermissionMode, Rule, Rules, SourcedRule};
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "cron_create", "arguments": {"cron": "* * * * *", "prompt": "a"}}]},
          {"tool_calls": [{"name": "schedule_wakeup", "arguments": {"delaySeconds": 60, "reason": "r", "prompt": "b"}}]},
          {"tool_calls": [{"name": "cron_create", "arguments": {"cron": "0 9 * * *", "prompt": "c", "durable": true}}]},
          {"text": "done"}
        ]}"#,
    )
    .await;
    let mut config = AgentConfig::new("claude-sonnet-4-5", dir.path().to_path_buf());
    config.policy.mode = PermissionMode::Default;
    config.policy.rules = Rules {
        deny: vec![SourcedRule {
            rule: Rule::parse("ScheduleWakeup", dir.path(), None).unwrap(),
            source: "test".into(),
        }],
        ..Rules::default()
    };
    let mut agent = Agent::new(
        client(ProviderKind::Anthropic, &server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap();
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    agent
        .run(
            "schedule things",
            &tx,
            tokio_util::sync::CancellationToken::new(),
        )
        .await;
    let results: Vec<(String, bool)> = (1..4)
        .flat_map(|n| tool_results(&agent.transcript()[n * 2]))
        .collect();
    assert!(!results[0].1, "a session job asks nothing: {results:?}");
    assert!(
        results[1].1 && results[1].0.contains("deny rule ScheduleWakeup"),
        "{results:?}"
    );
    assert!(
        results[2].1 && results[2].0.contains("needs the user's approval"),
        "a durable job writes a workspace file: {results:?}"
    );
    let jobs = agent.schedule().jobs();
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    assert_eq!(jobs[0].kind, JobKind::Cron);
}

#[tokio::test]
async fn a_front_end_that_does_not_stay_leaves_due_jobs_on_the_schedule() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "cron_create", "arguments": {"cron": "*/5 * * * *", "prompt": "check", "recurring": false}}]},
          {"text": "ok"},
          {"text": "checked"}
        ]}"#,
    )
    .await;
    let clock = start();
    let mut config = AgentConfig::new("claude-sonnet-4-5", dir.path().to_path_buf());
    config.clock = Arc::new(clock.clone());
    let agent = Agent::new(
        client(ProviderKind::Anthropic, &server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap();
    let factory = Arc::new(Factory {
        server: mock(r#"{"turns": []}"#).await,
        workspace: dir.path().to_path_buf(),
    });
    let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let mut controller = Controller::new(agent, factory, tx, None);
    controller
        .apply(Op::Submit("in five".into()))
        .await
        .unwrap();
    until_results(&mut events, 1).await;
    clock.advance(Duration::from_secs(10 * 60));
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(server.requests().len(), 2, "nothing ran");
    assert_eq!(
        controller.jobs().len(),
        1,
        "the one-shot job is still there"
    );
    // Served, it runs.
    controller.serve_schedule();
    let seen = until_results(&mut events, 1).await;
    assert!(
        seen.iter()
            .any(|e| matches!(e, Event::ScheduledPrompt { .. }))
    );
    assert!(controller.jobs().is_empty());
}

/// Several one-shot jobs falling due at once: `--stay`'s wait ends only after each ran, every
/// time (the schedule emptied before the first began, and the wait ended with none run).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stay_waits_for_every_one_shot_job_that_fell_due() {
    for round in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        let create = |n: u32| {
            serde_json::json!({"name": "cron_create", "arguments":
                {"cron": "1 10 * * *", "prompt": format!("one-shot {n}"), "recurring": false}})
        };
        let turns = serde_json::json!({"turns": [
            {"tool_calls": [create(1), create(2), create(3)]},
            {"text": "scheduled"},
            {"text": "ran 1"}, {"text": "ran 2"}, {"text": "ran 3"}
        ]});
        let server = mock(&turns.to_string()).await;
        let clock = start();
        let (mut controller, mut events) = controller(&server, dir.path(), &clock).await;
        controller
            .apply(Op::Submit("schedule three".into()))
            .await
            .unwrap();
        until_results(&mut events, 1).await;
        assert_eq!(controller.jobs().len(), 3, "round {round}");
        clock.advance(Duration::from_secs(60));
        tokio::time::timeout(Duration::from_secs(20), controller.settled())
            .await
            .expect("settled");
        assert_eq!(
            server.requests().len(),
            5,
            "round {round}: every job ran before the end"
        );
    }
}
