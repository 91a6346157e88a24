//! `/rewind` in the UI: Esc Esc on an empty input opens it, a prompt is picked, the files are
//! previewed, and the choice becomes the rewind asked of the engine.

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyModifiers};
use pretty_assertions::assert_eq;
use rein_engine::RewindPoint;
use rein_engine::undo::RewindPreview;

use super::Action;
use super::tests::{app, press, text};

fn key(app: &mut super::App, code: KeyCode, now: Instant) -> Vec<Action> {
    press(app, code, KeyModifiers::NONE, now)
}

#[test]
fn esc_twice_on_an_empty_input_opens_rewind_and_once_does_not() {
    let now = Instant::now();
    let mut app = app();
    assert!(key(&mut app, KeyCode::Esc, now).is_empty());
    // Too slow: the second press counts as a first.
    let later = now + super::rewind::DOUBLE_ESC + Duration::from_millis(1);
    assert!(key(&mut app, KeyCode::Esc, later).is_empty());
    assert_eq!(
        key(&mut app, KeyCode::Esc, later + Duration::from_millis(200)),
        vec![Action::OpenRewind]
    );
    // Two presses the terminal delivered together read as Alt-Esc.
    assert_eq!(
        press(
            &mut super::tests::app(),
            KeyCode::Esc,
            KeyModifiers::ALT,
            now
        ),
        vec![Action::OpenRewind]
    );
    // With text in the input, Esc does not rewind.
    let mut typing = super::tests::app();
    key(&mut typing, KeyCode::Char('x'), now);
    key(&mut typing, KeyCode::Esc, now);
    assert!(key(&mut typing, KeyCode::Esc, now).is_empty());
}

#[test]
fn slash_rewind_opens_it_too() {
    let mut app = app();
    for c in "/rewind".chars() {
        key(&mut app, KeyCode::Char(c), Instant::now());
    }
    // Enter may first accept the completion of the command; the second sends it.
    let mut actions = key(&mut app, KeyCode::Enter, Instant::now());
    if actions.is_empty() {
        actions = key(&mut app, KeyCode::Enter, Instant::now());
    }
    assert_eq!(actions, vec![Action::OpenRewind]);
}

#[test]
fn a_picked_prompt_is_previewed_and_the_choice_becomes_the_rewind() {
    let now = Instant::now();
    let mut app = app();
    app.open_rewind_picker(&[
        RewindPoint {
            back: 1,
            prompt: "add tests".into(),
            turn: None,
        },
        RewindPoint {
            back: 2,
            prompt: "\nfix the parser\nin src/".into(),
            turn: None,
        },
    ]);
    let shown = text(&app.picker.as_ref().unwrap().view(80, app.theme));
    assert_eq!(shown[1..], ["› add tests", "  fix the parser"]);
    key(&mut app, KeyCode::Down, now);
    assert_eq!(
        key(&mut app, KeyCode::Enter, now),
        vec![Action::PlanRewind(2)]
    );

    app.open_rewind_choices(
        2,
        Some(&RewindPreview {
            lines: vec![
                "restore  src/parse.rs  +3 -1".into(),
                "keep     notes.md: changed since rein wrote it (--force restores it)".into(),
            ],
            changed_since: 1,
            notes: vec![],
        }),
    );
    let said = text(&app.take_committed()).join("\n");
    assert!(said.contains("restore  src/parse.rs  +3 -1"), "{said}");
    assert!(said.contains("notes.md: changed since"), "{said}");
    let choices = text(&app.picker.as_ref().unwrap().view(100, app.theme));
    assert_eq!(
        choices[1..],
        [
            "› Restore code and conversation",
            "  Restore code only",
            "  Restore code and conversation, also the 1 file(s) changed since",
            "  Restore conversation only (a fork; this session stays)",
            "  Never mind",
        ]
    );
    key(&mut app, KeyCode::Down, now);
    key(&mut app, KeyCode::Down, now);
    assert_eq!(
        key(&mut app, KeyCode::Enter, now),
        vec![Action::Rewind {
            back: 2,
            code: true,
            conversation: true,
            force: true
        }]
    );
    // Never mind does nothing; without checkpoints only the conversation is offered.
    app.open_rewind_choices(1, None);
    let choices = text(&app.picker.as_ref().unwrap().view(100, app.theme));
    assert_eq!(choices.len(), 3, "{choices:?}");
    key(&mut app, KeyCode::Down, now);
    assert!(key(&mut app, KeyCode::Enter, now).is_empty());
}

#[test]
fn after_a_forked_rewind_the_prompt_is_back_in_the_input() {
    let mut app = app();
    let status = super::Status {
        session_id: "fork-1".into(),
        ..Default::default()
    };
    app.rewound(
        Some(status),
        "fix the parser",
        &["restored src/parse.rs".into()],
    );
    assert_eq!(app.input.text(), "fix the parser");
    let said = text(&app.take_committed()).join("\n");
    assert!(said.contains("restored src/parse.rs"), "{said}");
    assert!(said.contains("continues as session fork-1"), "{said}");
}
