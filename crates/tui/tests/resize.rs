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
/// own reflow) replace the screen and the cursor goes to row `cursor`.
fn terminal_resizes(h: &mut Harness, width: u16, rows: &[String], cursor: usize) {
    let backend = h.screen.backend_mut();
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
    let y = u16::try_from(cursor).unwrap();
    backend.set_cursor_position(Position::new(0, y)).unwrap();
}

/// [`terminal_resizes`], then the UI hears of it.
fn resize_terminal(h: &mut Harness, width: u16, rows: &[String], cursor: usize) {
    terminal_resizes(h, width, rows, cursor);
    h.screen.resized().unwrap();
    h.draw();
}

/// `rows` as a terminal that reflows shows them at `width`, and where row `cursor` went.
fn reflow(rows: &[String], width: usize, cursor: usize) -> (Vec<String>, usize) {
    let mut out = Vec::new();
    let mut moved = cursor;
    for (i, row) in rows.iter().enumerate() {
        if i == cursor {
            moved = out.len();
        }
        let chars: Vec<char> = row.chars().collect();
        if chars.is_empty() {
            out.push(String::new());
        }
        out.extend(chars.chunks(width).map(|c| c.iter().collect::<String>()));
    }
    (out, moved)
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
    resize_terminal(&mut h, 60, &cut, input);
    let after = rows(&h);
    assert_eq!(after[..input - 1], before[..input - 1], "{after:#?}");
    assert_eq!(input_row(&after), input, "{after:#?}");
    assert_eq!(after[input - 1], "─".repeat(60));
    assert_eq!(after.iter().filter(|r| r.as_str() == "›").count(), 1);
}

#[test]
fn a_reflowing_terminal_leaves_no_pieces_of_the_old_live_area() {
    let mut h = a_finished_turn();
    let before = rows(&h);
    let input = input_row(&before);
    // The rule above the input wraps into two rows and pushes the cursor down one.
    let (reflowed, cursor) = reflow(&before, 60, input);
    assert_eq!(cursor, input + 1);
    resize_terminal(&mut h, 60, &reflowed, cursor);
    let after = rows(&h);
    assert_eq!(after[..input - 1], before[..input - 1], "{after:#?}");
    assert_eq!(after[input - 1], "─".repeat(60), "{after:#?}");
    assert_eq!(input_row(&after), input, "{after:#?}");
    assert!(!after.contains(&"─".repeat(20)), "{after:#?}");
}

#[test]
fn the_live_area_follows_the_rows_a_terminal_scrolled_away() {
    let mut h = a_finished_turn();
    let before = rows(&h);
    let input = input_row(&before);
    // It reflows, then keeps its bottom rows: the first three rows leave the screen.
    let (reflowed, cursor) = reflow(&before, 60, input);
    resize_terminal(&mut h, 60, &reflowed[3..], cursor - 3);
    let after = rows(&h);
    assert_eq!(after[..input - 4], before[3..input - 1], "{after:#?}");
    assert_eq!(input_row(&after), input - 3, "{after:#?}");
    assert!(!after.contains(&"─".repeat(20)), "{after:#?}");
    assert_eq!(after.iter().filter(|r| r.as_str() == "›").count(), 1);
}

#[test]
fn a_wider_terminal_redraws_the_live_area_in_place() {
    let mut h = a_finished_turn();
    let before = rows(&h);
    let input = input_row(&before);
    resize_terminal(&mut h, 100, &before, input);
    let after = rows(&h);
    assert_eq!(after[..input - 1], before[..input - 1], "{after:#?}");
    assert_eq!(after[input - 1], "─".repeat(100));
    assert_eq!(input_row(&after), input);
}

#[test]
fn what_comes_between_a_resize_and_its_event_waits_for_it() {
    let mut h = a_finished_turn();
    let before = rows(&h);
    let input = input_row(&before);
    let (reflowed, cursor) = reflow(&before, 60, input);
    terminal_resizes(&mut h, 60, &reflowed[3..], cursor - 3);
    h.submit("next");
    h.event(text_delta("more\n"));
    h.screen.resized().unwrap();
    h.draw();
    let after = rows(&h);
    assert_eq!(after[..input - 4], before[3..input - 1], "{after:#?}");
    assert!(after.contains(&"● more".to_string()), "{after:#?}");
    assert!(!after.contains(&"─".repeat(20)), "{after:#?}");
    assert_eq!(after.iter().filter(|r| r.as_str() == "›").count(), 1);
}

#[test]
fn tiny_terminals_draw_without_trouble() {
    for (width, height) in [(1, 1), (2, 1), (5, 2), (80, 1), (1, 24)] {
        let mut h = Harness::new(width, height);
        h.submit("hello there");
        h.event(text_delta("An answer\nover lines\n"));
        h.event(result(RunOutcome::Completed, 0, 0));
        h.submit("again");
        let rows = rows(&h);
        assert_eq!(rows.len(), usize::from(height), "{width}x{height}");
    }
}
