//! Permission prompts in the app: one key answers, a note goes with a denial, a prompt
//! dropped unanswered denies, questions wait their turn, "no" stops the turn, and nothing
//! ticks while the user decides.

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pretty_assertions::assert_eq;
use rein_engine::Approval;
use rein_protocol::{Event, PermissionVerdict};
use serde_json::json;
use tokio::sync::oneshot;

use super::tests::{app, press, request, text};
use super::*;

#[test]
fn a_permission_prompt_answers_with_one_key() {
    let now = Instant::now();
    for (key, expected) in [
        ('y', Approval::AllowOnce),
        ('a', Approval::AllowForSession),
        ('n', Approval::Stop),
    ] {
        let mut app = app();
        let (reply, answer) = oneshot::channel();
        app.ask(request("1", "touch x"), reply);
        press(&mut app, KeyCode::Char(key), KeyModifiers::NONE, now);
        assert_eq!(answer.blocking_recv().unwrap(), expected);
    }
}

#[test]
fn deny_with_a_note_sends_the_note() {
    let now = Instant::now();
    let mut app = app();
    let (reply, answer) = oneshot::channel();
    app.ask(request("1", "rm -r build"), reply);
    press(&mut app, KeyCode::Char('t'), KeyModifiers::NONE, now);
    for c in "use make clean".chars() {
        press(&mut app, KeyCode::Char(c), KeyModifiers::NONE, now);
    }
    press(&mut app, KeyCode::Enter, KeyModifiers::NONE, now);
    assert_eq!(
        answer.blocking_recv().unwrap(),
        Approval::Deny {
            note: Some("use make clean".into())
        }
    );
}

#[test]
fn a_prompt_dropped_unanswered_denies() {
    let mut app = app();
    let (reply, answer) = oneshot::channel();
    app.ask(request("1", "true"), reply);
    drop(app);
    assert_eq!(
        answer.blocking_recv().unwrap(),
        Approval::Deny { note: None }
    );
}

#[test]
fn a_second_question_waits_for_the_first_answer() {
    let now = Instant::now();
    let mut app = app();
    let (first, first_answer) = oneshot::channel();
    let (second, second_answer) = oneshot::channel();
    app.ask(request("a", "touch a"), first);
    app.ask(request("b", "touch b"), second);
    press(&mut app, KeyCode::Char('y'), KeyModifiers::NONE, now);
    let (live, _) = app.live_lines(100, now);
    assert!(text(&live).iter().any(|l| l.contains("$ touch b")));
    press(&mut app, KeyCode::Char('n'), KeyModifiers::NONE, now);
    assert_eq!(first_answer.blocking_recv().unwrap(), Approval::AllowOnce);
    assert_eq!(second_answer.blocking_recv().unwrap(), Approval::Stop);
}

#[test]
fn no_stops_the_turn_and_refuses_the_questions_behind_it() {
    let now = Instant::now();
    let mut app = app();
    app.submit("go".into(), now);
    let (first, first_answer) = oneshot::channel();
    let (second, second_answer) = oneshot::channel();
    app.ask(request("a", "touch a"), first);
    app.ask(request("b", "touch b"), second);
    let actions = app.key(KeyEvent::new(KeyCode::Char('n'), KeyModifiers::NONE), now);
    assert_eq!(actions, [Action::Cancel]);
    assert_eq!(first_answer.blocking_recv().unwrap(), Approval::Stop);
    assert_eq!(
        second_answer.blocking_recv().unwrap(),
        Approval::Deny { note: None }
    );
    let (live, _) = app.live_lines(100, now);
    assert!(!text(&live).iter().any(|l| l.contains("touch b")));
}

#[test]
fn nothing_ticks_while_a_permission_prompt_waits_for_the_user() {
    let now = Instant::now();
    let mut app = app();
    app.submit("work".into(), now);
    assert!(app.animating(), "the model is working");
    app.event(
        Event::ToolCallStart {
            id: "1".into(),
            name: "bash".into(),
            input: json!({ "command": "touch x" }),
            summary: "touch x".into(),
        },
        now,
    );
    app.event(
        Event::Permission {
            id: "1".into(),
            name: "bash".into(),
            decision: PermissionVerdict::Ask,
            reason: "mode default".into(),
        },
        now,
    );
    let (reply, _answer) = oneshot::channel();
    app.ask(request("1", "touch x"), reply);
    assert!(!app.animating(), "the turn waits on the user");
    let later = now + Duration::from_secs(7);
    let status = text(&app.live_lines(100, later).0).pop().unwrap();
    assert!(status.contains("waiting for your answer"), "{status}");
    assert!(!status.contains("7s"), "no clock runs: {status}");
    press(&mut app, KeyCode::Char('y'), KeyModifiers::NONE, later);
    app.event(
        Event::Permission {
            id: "1".into(),
            name: "bash".into(),
            decision: PermissionVerdict::Allow,
            reason: "your answer".into(),
        },
        later,
    );
    assert!(app.animating(), "the call runs");
}
