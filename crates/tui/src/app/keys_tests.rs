use std::time::Instant;

use crossterm::event::{KeyCode, KeyModifiers};
use pretty_assertions::assert_eq;

use super::tests::{app, press, text};
use super::*;
use crate::history::PromptHistory;

fn typed(app: &mut App, text: &str, now: Instant) {
    for c in text.chars() {
        press(app, KeyCode::Char(c), KeyModifiers::NONE, now);
    }
}

#[test]
fn up_and_down_go_through_the_history_past_a_recalled_command() {
    let now = Instant::now();
    let mut history = PromptHistory::default();
    for entry in ["first prompt", "/compact", "last prompt"] {
        history.add(entry);
    }
    let mut app = App::new(
        Theme::PLAIN,
        Commands::load(&Default::default()),
        Input::new(history),
        Status::default(),
    );
    press(&mut app, KeyCode::Up, KeyModifiers::NONE, now);
    assert_eq!(app.input.text(), "last prompt");
    press(&mut app, KeyCode::Up, KeyModifiers::NONE, now);
    assert_eq!(app.input.text(), "/compact");
    let (live, _) = app.live_lines(100, now);
    assert!(
        !text(&live)
            .iter()
            .any(|l| l.contains("/compact ") && l.contains("context")),
        "no completion list over a recalled command: {live:?}"
    );
    press(&mut app, KeyCode::Up, KeyModifiers::NONE, now);
    assert_eq!(
        app.input.text(),
        "first prompt",
        "Up went on through the history"
    );
    press(&mut app, KeyCode::Down, KeyModifiers::NONE, now);
    press(&mut app, KeyCode::Down, KeyModifiers::NONE, now);
    assert_eq!(app.input.text(), "last prompt");
}

#[test]
fn the_command_list_says_how_many_more_there_are() {
    let now = Instant::now();
    let mut app = app();
    typed(&mut app, "/", now);
    let (live, _) = app.live_lines(100, now);
    let live = text(&live);
    let total = app.commands.completions("/").len();
    assert!(total > 6, "{total}");
    let hint = format!("  6 of {total} (↑↓ scroll, {} below)", total - 6);
    assert!(live.contains(&hint), "{live:#?}");
    for _ in 0..7 {
        press(&mut app, KeyCode::Down, KeyModifiers::NONE, now);
    }
    let (live, _) = app.live_lines(100, now);
    assert!(
        text(&live).iter().any(|l| l.contains("2 above")),
        "{live:#?}"
    );
}

#[test]
fn a_long_pasted_prompt_is_echoed_folded_and_ctrl_o_shows_it() {
    let now = Instant::now();
    let mut app = app();
    let long: String = (1..=40).map(|n| format!("pasted line {n}\n")).collect();
    app.paste(&long);
    press(&mut app, KeyCode::Enter, KeyModifiers::NONE, now);
    let echoed = text(&app.take_committed());
    assert_eq!(echoed[1], "› pasted line 1");
    assert_eq!(echoed[6], "  pasted line 6");
    assert_eq!(echoed[7], "  … +34 lines, sent whole (Ctrl-O shows all)");
    assert_eq!(echoed.len(), 8, "{echoed:#?}");
    press(&mut app, KeyCode::Char('o'), KeyModifiers::CONTROL, now);
    let whole = text(&app.take_committed());
    assert_eq!(whole[1], "⎿ your prompt in full (40 lines):");
    assert_eq!(whole.last().unwrap(), "  pasted line 40");
}
