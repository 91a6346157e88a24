//! Plan approval in the live area: the plan rendered, the modes to go on in, feedback.

use std::time::Instant;

use crossterm::event::{KeyCode, KeyModifiers};
use pretty_assertions::assert_eq;
use rein_engine::{Approval, ApprovalRequest};
use serde_json::json;
use tokio::sync::oneshot;

use super::PermissionMode;
use super::tests::{app, press, text};

fn plan_request() -> ApprovalRequest {
    ApprovalRequest {
        id: "p".into(),
        tool: rein_engine::plan::PLAN_TOOL.into(),
        input: json!({"plan": "# Fix the parser\n\n1. Read `src/parse.rs`\n2. **Add** a test"}),
        summary: "Fix the parser".into(),
        reason: "your approval of the plan".into(),
        agent: None,
        diff: None,
        session_rule: None,
        edit: false,
    }
}

#[test]
fn a_plan_is_shown_rendered_and_approved_with_the_mode_to_go_on_in() {
    let now = Instant::now();
    for (key, sandboxed, expected) in [
        (
            '1',
            false,
            Some(Approval::SwitchMode(PermissionMode::AcceptEdits)),
        ),
        (
            '2',
            false,
            Some(Approval::SwitchMode(PermissionMode::Default)),
        ),
        ('3', true, Some(Approval::SwitchMode(PermissionMode::Auto))),
        ('3', false, None),
        ('n', false, Some(Approval::Deny { note: None })),
    ] {
        let mut app = app();
        app.status_mut().sandboxed = sandboxed;
        let (reply, mut answer) = oneshot::channel();
        app.ask(plan_request(), reply);
        let live = text(&app.live_lines(100, now).0).join("\n");
        assert!(live.contains("Approve this plan?"), "{live}");
        assert!(live.contains("Fix the parser"), "{live}");
        assert!(live.contains("Add a test"), "rendered, not raw: {live}");
        assert_eq!(live.contains("3 yes, auto"), sandboxed, "{live}");
        press(&mut app, KeyCode::Char(key), KeyModifiers::NONE, now);
        assert_eq!(answer.try_recv().ok(), expected, "{key} {sandboxed}");
        if let Some(Approval::SwitchMode(mode)) = expected {
            assert_eq!(app.status_mut().mode, mode);
        }
    }
    // Feedback sends the model back to planning.
    let mut app = app();
    let (reply, answer) = oneshot::channel();
    app.ask(plan_request(), reply);
    press(&mut app, KeyCode::Char('t'), KeyModifiers::NONE, now);
    for c in "keep the API".chars() {
        press(&mut app, KeyCode::Char(c), KeyModifiers::NONE, now);
    }
    press(&mut app, KeyCode::Enter, KeyModifiers::NONE, now);
    assert_eq!(
        answer.blocking_recv().unwrap(),
        Approval::Deny {
            note: Some("keep the API".into())
        }
    );
}

#[test]
fn the_session_shown_is_not_offered_to_resume() {
    let mut app = super::tests::app();
    app.status_mut().session_id = "current".into();
    let summary = |id: &str| rein_engine::session::SessionSummary {
        id: id.into(),
        created_at: "2026-11-26T10:00:00".into(),
        last_active: None,
        first_prompt: format!("prompt of {id}"),
        requests: 1,
        cost_usd: None,
        usage: Default::default(),
        teammates: Vec::new(),
    };
    app.open_session_picker(&[summary("current"), summary("earlier")]);
    let shown = super::tests::text(&app.live_lines(100, std::time::Instant::now()).0).join("\n");
    assert!(shown.contains("prompt of earlier"), "{shown}");
    assert!(!shown.contains("prompt of current"), "{shown}");
}
