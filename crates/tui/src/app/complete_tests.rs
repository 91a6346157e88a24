use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pretty_assertions::assert_eq;

use super::super::tests::{app, text};
use super::*;

fn key(app: &mut App, code: KeyCode) -> Vec<Action> {
    app.key(KeyEvent::new(code, KeyModifiers::NONE), Instant::now())
}

fn typed(app: &mut App, text: &str) -> Vec<Action> {
    text.chars()
        .flat_map(|c| key(app, KeyCode::Char(c)))
        .collect()
}

#[test]
fn an_at_word_asks_for_the_index_once_and_completes_paths_fuzzily() {
    let mut app = app();
    assert_eq!(typed(&mut app, "explain @"), [Action::IndexPaths]);
    assert!(typed(&mut app, "l").is_empty(), "asked once");
    app.set_path_index(
        [
            "Cargo.toml",
            "src/",
            "src/lib.rs",
            "src/main.rs",
            "docs/layout.md",
        ]
        .iter()
        .map(|p| p.to_string())
        .collect(),
    );
    typed(&mut app, "ib");
    let shown = text(&app.live_lines(80, Instant::now()).0).join("\n");
    assert!(shown.contains("@src/lib.rs"), "{shown}");
    assert!(!shown.contains("@Cargo.toml"), "{shown}");
    // Tab takes it; Enter on a path does not send the prompt.
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.input.text(), "explain @src/lib.rs ");
    typed(&mut app, "and @mai");
    assert!(key(&mut app, KeyCode::Enter).is_empty());
    assert_eq!(app.input.text(), "explain @src/lib.rs and @src/main.rs ");
    // Without an `@` word the list is gone, and Enter sends.
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        [Action::Run("explain @src/lib.rs and @src/main.rs ".into())]
    );
}

#[test]
fn slash_commands_still_complete_and_send() {
    let mut app = app();
    typed(&mut app, "/comp");
    assert_eq!(key(&mut app, KeyCode::Enter), [Action::Compact(None)]);
}
