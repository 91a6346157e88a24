use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use rein_engine::questions::Choice;

use super::*;

fn question(header: &str, multi_select: bool) -> Question {
    Question {
        id: None,
        header: header.into(),
        question: format!("{header}?"),
        options: ["one", "two", "three"]
            .iter()
            .map(|l| Choice {
                label: (*l).into(),
                description: format!("the {l}"),
            })
            .collect(),
        multi_select,
    }
}

fn press(dialog: &mut QuestionDialog, codes: &[KeyCode]) -> DialogOutcome {
    let mut outcome = DialogOutcome::Open;
    for code in codes {
        outcome = dialog.key(KeyEvent::new(*code, KeyModifiers::NONE));
    }
    outcome
}

fn typed(text: &str) -> Vec<KeyCode> {
    text.chars().map(KeyCode::Char).collect()
}

#[test]
fn arrows_numbers_ticks_and_other_answer_each_question_in_turn() {
    let (reply, answers) = oneshot::channel();
    let mut dialog = QuestionDialog::new(
        vec![
            question("A", false),
            question("B", true),
            question("C", false),
        ],
        reply,
    );
    // A: Down, Enter → "two".
    assert_eq!(
        press(&mut dialog, &[KeyCode::Down, KeyCode::Enter]),
        DialogOutcome::Open
    );
    // B: tick 1 with its number, 3 with Space, then Enter.
    let view = dialog.view(crate::theme::Theme::new(crate::theme::Colors::Off));
    assert!(
        view.iter().any(|l| l.to_string().contains("[ ] one")),
        "{view:?}"
    );
    let codes = [
        KeyCode::Char('1'),
        KeyCode::Down,
        KeyCode::Down,
        KeyCode::Char(' '),
        KeyCode::Enter,
    ];
    assert_eq!(press(&mut dialog, &codes), DialogOutcome::Open);
    // C: "Other" (4), typed, Enter.
    let mut codes = vec![KeyCode::Char('4')];
    codes.extend(typed("my own"));
    codes.push(KeyCode::Enter);
    assert_eq!(press(&mut dialog, &codes), DialogOutcome::Closed);
    assert_eq!(
        answers.blocking_recv().unwrap(),
        Some(vec![
            vec!["two".to_string()],
            vec!["one".to_string(), "three".to_string()],
            vec!["my own".to_string()],
        ])
    );
}

#[test]
fn esc_declines_and_a_dropped_dialog_declines_too() {
    let (reply, answers) = oneshot::channel();
    let mut dialog = QuestionDialog::new(vec![question("A", false)], reply);
    // Esc while typing goes back to the options; Esc again declines.
    let mut codes = vec![KeyCode::Char('4')];
    codes.extend(typed("x"));
    codes.push(KeyCode::Esc);
    assert_eq!(press(&mut dialog, &codes), DialogOutcome::Open);
    assert_eq!(press(&mut dialog, &[KeyCode::Esc]), DialogOutcome::Closed);
    assert_eq!(answers.blocking_recv().unwrap(), None);
    let (reply, answers) = oneshot::channel();
    drop(QuestionDialog::new(vec![question("A", false)], reply));
    assert_eq!(answers.blocking_recv().unwrap(), None);
}
