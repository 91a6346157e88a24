use super::*;
use pretty_assertions::assert_eq;

fn press(input: &mut Input, code: KeyCode, modifiers: KeyModifiers) -> InputOutcome {
    input.key(KeyEvent::new(code, modifiers))
}

fn typed(input: &mut Input, text: &str) {
    for c in text.chars() {
        press(input, KeyCode::Char(c), KeyModifiers::NONE);
    }
}

#[test]
fn shift_or_alt_enter_adds_a_line_and_enter_sends() {
    let mut input = Input::new(PromptHistory::default());
    typed(&mut input, "one");
    press(&mut input, KeyCode::Enter, KeyModifiers::SHIFT);
    typed(&mut input, "two");
    press(&mut input, KeyCode::Enter, KeyModifiers::ALT);
    typed(&mut input, "thrée");
    press(&mut input, KeyCode::Left, KeyModifiers::NONE);
    press(&mut input, KeyCode::Backspace, KeyModifiers::NONE);
    assert_eq!(input.text(), "one\ntwo\nthre");
    let sent = press(&mut input, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(sent, InputOutcome::Submit("one\ntwo\nthre".into()));
    assert!(input.is_empty());
}

#[test]
fn a_trailing_backslash_continues_on_the_next_line() {
    let mut input = Input::new(PromptHistory::default());
    typed(&mut input, "a\\");
    assert_eq!(
        press(&mut input, KeyCode::Enter, KeyModifiers::NONE),
        InputOutcome::Edited
    );
    typed(&mut input, "b");
    assert_eq!(input.text(), "a\nb");
}

#[test]
fn up_and_down_browse_the_history() {
    let mut input = Input::new(PromptHistory::default());
    typed(&mut input, "first");
    press(&mut input, KeyCode::Enter, KeyModifiers::NONE);
    typed(&mut input, "draft");
    press(&mut input, KeyCode::Up, KeyModifiers::NONE);
    assert_eq!(input.text(), "first");
    press(&mut input, KeyCode::Down, KeyModifiers::NONE);
    assert_eq!(input.text(), "draft");
}

#[test]
fn large_pastes_are_placeholders_expanded_when_sent() {
    let mut input = Input::new(PromptHistory::default());
    typed(&mut input, "see ");
    let big: String = (0..20).map(|n| format!("row {n}\n")).collect();
    input.paste(&big);
    assert_eq!(input.text(), "see [Pasted text #1 +20 lines]");
    let InputOutcome::Submit(sent) = press(&mut input, KeyCode::Enter, KeyModifiers::NONE) else {
        panic!("not sent");
    };
    assert_eq!(sent, format!("see {big}"));
}

#[test]
fn small_pastes_keep_their_lines() {
    let mut input = Input::new(PromptHistory::default());
    input.paste("a\r\nb");
    assert_eq!(input.text(), "a\nb");
    assert_eq!(input.view(80, Theme::PLAIN).0.len(), 2);
}

#[test]
fn control_keys_edit_words_and_lines() {
    let mut input = Input::new(PromptHistory::default());
    typed(&mut input, "cargo test --all");
    press(&mut input, KeyCode::Char('w'), KeyModifiers::CONTROL);
    assert_eq!(input.text(), "cargo test ");
    press(&mut input, KeyCode::Char('a'), KeyModifiers::CONTROL);
    press(&mut input, KeyCode::Char('k'), KeyModifiers::CONTROL);
    assert!(input.is_empty());
}

#[test]
fn long_lines_wrap_in_the_box_and_the_cursor_follows() {
    let mut input = Input::new(PromptHistory::default());
    typed(&mut input, "abcdefghij");
    let (rows, cursor) = input.view(6, Theme::PLAIN);
    let rows: Vec<String> = rows.iter().map(ToString::to_string).collect();
    assert_eq!(rows, ["› abcd", "  efgh", "  ij"]);
    assert_eq!(cursor, (4, 2));
    press(&mut input, KeyCode::Home, KeyModifiers::NONE);
    assert_eq!(input.view(6, Theme::PLAIN).1, (2, 0));
    typed(&mut input, "wxyz");
    // The cursor sits after "wxyz", at the start of the second row.
    assert_eq!(input.view(6, Theme::PLAIN).1, (2, 1));
}

#[test]
fn tall_input_scrolls_to_the_cursor() {
    let mut input = Input::new(PromptHistory::default());
    for n in 0..12 {
        typed(&mut input, &format!("line {n}"));
        press(&mut input, KeyCode::Enter, KeyModifiers::ALT);
    }
    let (rows, cursor) = input.view(40, Theme::PLAIN);
    assert_eq!(rows.len(), MAX_ROWS);
    assert_eq!(cursor, (2, u16::try_from(MAX_ROWS - 1).unwrap()));
    assert_eq!(rows[MAX_ROWS - 2].to_string(), "  line 11");
}
