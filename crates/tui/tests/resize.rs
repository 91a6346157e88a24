//! A terminal that changes size under the UI: the transcript on screen stays, and the live
//! area follows the rows the terminal moved.

use ratatui::backend::{Backend, ClearType};
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};
use rein_protocol::RunOutcome;

use crate::support::*;

/// The visible rows, trimmed on the right.
fn rows(h: &Harness) -> Vec<String> {
    let dump = h.dump();
    let screen = dump
        .split("──── (scrollback above, screen below) ────\n")
        .last()
        .unwrap_or_default();
    screen.lines().map(str::to_string).collect()
}

/// Resizes the terminal to `width` as a terminal would: `rows` (what it shows afterwards, its
/// own reflow) replace the screen and the cursor moves down by `shift` rows (up when negative).
fn resize_terminal(h: &mut Harness, width: u16, rows: &[String], shift: i32) {
    let backend = h.screen.backend_mut();
    let cursor = backend.get_cursor_position().unwrap();
    let height = backend.size().unwrap().height;
    backend.resize(width, height);
    backend.clear_region(ClearType::All).unwrap();
    let area = Rect::new(0, 0, width, height);
    let mut buffer = Buffer::empty(area);
    let lines: Vec<Line> = rows.iter().map(|r| Line::from(r.clone())).collect();
    Paragraph::new(lines).render(area, &mut buffer);
    backend
        .draw(buffer.content.iter().enumerate().map(|(i, cell)| {
            let (x, y) = buffer.pos_of(i);
            (x, y, cell)
        }))
        .unwrap();
    let y = u16::try_from(i32::from(cursor.y) + shift).unwrap();
    backend.set_cursor_position(Position::new(0, y)).unwrap();
    h.screen.resized().unwrap();
    h.draw();
}

fn a_finished_turn() -> Harness {
    let mut h = Harness::new(80, 24);
    h.submit("hello");
    h.event(text_delta("An answer that fits in sixty columns.\n"));
    h.event(result(RunOutcome::Completed, 0, 0));
    h
}

/// Where the input box's prompt row is.
fn input_row(rows: &[String]) -> usize {
    rows.iter().rposition(|r| r == "›").expect("an input box")
}

#[test]
fn a_narrower_terminal_keeps_the_transcript_on_screen() {
    let mut h = a_finished_turn();
    let before = rows(&h);
    let input = input_row(&before);
    // A terminal that does not reflow: the short lines stay where they were, the live
    // area's rows are cut at the new width.
    let cut: Vec<String> = before
        .iter()
        .map(|r| r.chars().take(60).collect())
        .collect();
    resize_terminal(&mut h, 60, &cut, 0);
    let after = rows(&h);
    assert_eq!(after[..input - 1], before[..input - 1], "{after:#?}");
    assert_eq!(input_row(&after), input, "{after:#?}");
    assert_eq!(after[input - 1], "─".repeat(60));
    assert_eq!(after.iter().filter(|r| r.as_str() == "›").count(), 1);
}

#[test]
fn the_live_area_follows_the_rows_a_reflowing_terminal_moved() {
    let mut h = a_finished_turn();
    let before = rows(&h);
    let input = input_row(&before);
    // A terminal that reflows and scrolls two rows of the transcript away; the two that went
    // first are gone from the screen.
    let moved: Vec<String> = before[2..].to_vec();
    resize_terminal(&mut h, 60, &moved, -2);
    let after = rows(&h);
    assert_eq!(after[..input - 3], before[2..input - 1], "{after:#?}");
    assert_eq!(input_row(&after), input - 2, "{after:#?}");
    assert_eq!(after.iter().filter(|r| r.as_str() == "›").count(), 1);
}

#[test]
fn a_wider_terminal_redraws_the_live_area_in_place() {
    let mut h = a_finished_turn();
    let before = rows(&h);
    let input = input_row(&before);
    resize_terminal(&mut h, 100, &before, 0);
    let after = rows(&h);
    assert_eq!(after[..input - 1], before[..input - 1], "{after:#?}");
    assert_eq!(after[input - 1], "─".repeat(100));
    assert_eq!(input_row(&after), input);
}
