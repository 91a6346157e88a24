use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

#[test]
fn envelope_carries_the_schema_version_next_to_the_event_tag() {
    let line = serde_json::to_value(EventEnvelope::from(Event::TurnStart { turn: 3 })).unwrap();
    assert_eq!(
        line,
        json!({"v": EVENT_SCHEMA_VERSION, "type": "turn_start", "turn": 3})
    );
}

#[test]
fn result_without_cost_omits_the_field_and_round_trips() {
    let event = Event::Result {
        outcome: RunOutcome::MaxTurns,
        text: String::new(),
        turns: 2,
        usage: Usage::default(),
        cost_usd: None,
        duration_ms: 5,
        session_usage: Usage::default(),
        session_cost_usd: None,
    };
    let value = serde_json::to_value(EventEnvelope::from(event.clone())).unwrap();
    assert!(value.get("cost_usd").is_none());
    assert_eq!(value["outcome"], "max_turns");
    let back: EventEnvelope = serde_json::from_value(value).unwrap();
    assert_eq!(back.event, event);
}

/// One event of each kind; the match in [`listed`] makes a new kind fail to compile until it
/// is listed here (and so checked against the documentation).
fn one_of_each() -> Vec<Event> {
    let mut events = stream_events();
    events.extend(call_events());
    events.extend(turn_end_events());
    for event in &events {
        listed(event);
    }
    events
}

/// Every kind of event, by name: a kind missing here fails to compile.
fn listed(event: &Event) {
    match event {
        Event::SessionStart { .. }
        | Event::TurnStart { .. }
        | Event::TextDelta { .. }
        | Event::ThinkingDelta { .. }
        | Event::Citation { .. }
        | Event::Retry { .. }
        | Event::ModelFallback { .. }
        | Event::ToolsChanged { .. }
        | Event::FilesRestored { .. }
        | Event::AssistantMessage { .. }
        | Event::ToolCallStart { .. }
        | Event::Permission { .. }
        | Event::PermissionRequest { .. }
        | Event::Compaction { .. }
        | Event::CompactionEnd { .. }
        | Event::HookRun { .. }
        | Event::ToolOutputDelta { .. }
        | Event::ToolCallEnd { .. }
        | Event::Usage { .. }
        | Event::TurnEnd { .. }
        | Event::Subagent { .. }
        | Event::Tasks { .. }
        | Event::Teammate { .. }
        | Event::TeamMessage { .. }
        | Event::Todos { .. }
        | Event::Schedule { .. }
        | Event::ScheduledPrompt { .. }
        | Event::Error { .. }
        | Event::Result { .. } => {}
    }
}

fn text() -> String {
    String::from("x")
}

/// The session's start and what the model streams.
fn stream_events() -> Vec<Event> {
    vec![
        Event::SessionStart {
            session_id: text(),
            provider: text(),
            model: text(),
            cwd: text(),
            tools: vec![],
            prompt: None,
        },
        Event::TurnStart { turn: 1 },
        Event::TextDelta { text: text() },
        Event::ThinkingDelta { text: text() },
        Event::Citation {
            title: text(),
            url: text(),
        },
        Event::Retry {
            attempt: 1,
            delay_ms: 1,
            reason: text(),
        },
        Event::ModelFallback {
            from: text(),
            to: text(),
            reason: text(),
        },
        Event::ToolsChanged {
            added: vec![text()],
            removed: vec![],
        },
        Event::FilesRestored {
            turns: vec![1],
            files: vec![text()],
        },
        Event::AssistantMessage {
            message: Message {
                role: crate::Role::Assistant,
                content: vec![],
            },
        },
    ]
}

/// Tool calls, their permission checks and hooks.
fn call_events() -> Vec<Event> {
    vec![
        Event::ToolCallStart {
            id: text(),
            name: text(),
            input: json!({}),
            summary: text(),
        },
        Event::Permission {
            id: text(),
            name: text(),
            decision: PermissionVerdict::Allow,
            reason: text(),
        },
        Event::PermissionRequest {
            id: text(),
            name: text(),
            input: json!({}),
            reason: text(),
            diff: Some(text()),
        },
        Event::CompactionEnd {
            error: Some(text()),
        },
        Event::HookRun {
            event: text(),
            command: text(),
            exit_code: None,
            blocked: false,
            message: None,
            duration_ms: None,
        },
        Event::ToolOutputDelta {
            id: text(),
            text: text(),
        },
        Event::ToolCallEnd {
            id: text(),
            name: text(),
            output: text(),
            is_error: false,
            duration_ms: 1,
            diff: Some(text()),
            tool_response: None,
            exit_code: None,
            sandbox: None,
        },
    ]
}

/// What ends a turn or a run, and what happens between turns.
fn turn_end_events() -> Vec<Event> {
    vec![
        Event::Compaction {
            trigger: text(),
            tokens_before: 2,
            tokens_after: 1,
            kept_messages: 1,
            source: Some(text()),
            duration_ms: None,
        },
        Event::Usage {
            usage: Usage::default(),
            cost_usd: None,
        },
        Event::TurnEnd {
            turn: 1,
            stop_reason: StopReason::EndTurn,
        },
        Event::Subagent {
            parent_tool_use_id: text(),
            agent: text(),
            event: Box::new(Event::TurnStart { turn: 1 }),
        },
        Event::Teammate {
            name: text(),
            agent: text(),
            state: text(),
            reason: Some(text()),
        },
        Event::TeamMessage {
            from: text(),
            to: text(),
            kind: text(),
            text: text(),
        },
        Event::Tasks {
            tasks: vec![crate::BoardTask {
                id: "1".into(),
                subject: text(),
                description: text(),
                active_form: text(),
                status: crate::TaskStatus::InProgress,
                owner: Some(text()),
                blocks: vec![],
                blocked_by: vec!["2".into()],
                metadata: Default::default(),
            }],
        },
        Event::Todos {
            todos: vec![TodoItem {
                content: text(),
                status: TodoStatus::InProgress,
                active_form: text(),
            }],
        },
        Event::Schedule {
            jobs: vec![crate::ScheduledJob {
                id: text(),
                kind: crate::JobKind::Wakeup,
                cron: Some(text()),
                prompt: text(),
                recurring: true,
                durable: false,
                next_fire: text(),
                expires_at: Some(text()),
                reason: Some(text()),
            }],
        },
        Event::ScheduledPrompt {
            id: text(),
            prompt: text(),
        },
        Event::Error { message: text() },
        Event::Result {
            outcome: RunOutcome::Completed,
            text: text(),
            turns: 1,
            usage: Usage::default(),
            cost_usd: None,
            duration_ms: 1,
            session_usage: Usage::default(),
            session_cost_usd: None,
        },
    ]
}

const DOC: &str = include_str!("../../../docs/stream-json.md");

#[test]
fn every_event_is_documented_with_its_fields() {
    for event in one_of_each() {
        let value = serde_json::to_value(EventEnvelope::from(event)).unwrap();
        let kind = value["type"].as_str().unwrap().to_string();
        let row = DOC
            .lines()
            .find(|line| line.starts_with(&format!("| `{kind}` |")))
            .unwrap_or_else(|| panic!("{kind} is not in docs/stream-json.md"));
        for field in value.as_object().unwrap().keys() {
            if field != "v" && field != "type" {
                assert!(row.contains(&format!("`{field}`")), "{kind}: {field}");
            }
        }
    }
}

#[test]
fn the_documented_run_parses() {
    let lines: Vec<&str> = DOC.lines().filter(|l| l.starts_with("{\"v\":1")).collect();
    assert!(lines.len() > 10, "the example run is in the document");
    for line in lines {
        let envelope: EventEnvelope = serde_json::from_str(line).unwrap();
        assert_eq!(envelope.v, EVENT_SCHEMA_VERSION);
    }
}

#[test]
fn waits_read_as_people_say_them() {
    for (ms, text) in [
        (450, "0.5 s"),
        (1500, "1.5 s"),
        (9_949, "9.9 s"),
        (60_000, "60 s"),
        (119_400, "119 s"),
        (300_000, "5 min"),
        (150_000, "2 min 30 s"),
        (3_600_000, "60 min"),
    ] {
        assert_eq!(wait_text(ms), text, "{ms}");
    }
    assert_eq!(
        retry_notice(2, 60_000, "rate limited"),
        "attempt 2 failed, retrying in 60 s: rate limited"
    );
}

#[test]
fn only_a_result_and_a_compactions_end_end_a_job() {
    let events = one_of_each();
    let ending: Vec<&Event> = events.iter().filter(|e| e.ends_job()).collect();
    assert_eq!(ending.len(), 2, "{ending:?}");
    assert!(
        ending
            .iter()
            .all(|e| matches!(e, Event::Result { .. } | Event::CompactionEnd { .. }))
    );
}
