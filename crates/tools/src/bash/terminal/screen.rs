//! What a program in a pseudo-terminal showed, as text: its output runs through a terminal
//! emulator (`vt100`), so cursor moves, `\r` progress bars and full-screen programs come out
//! as the text a person would see, colour dropped.
//!
//! A read returns what is new since the last one: the lines that scrolled off the top, then
//! the screen from the row the cursor was on (a prompt read before is shown again with what
//! was typed after it). A program that redrew the screen (`clear`, a full-screen program on
//! the alternate screen) gets the whole screen instead.

use std::num::NonZeroU16;

/// Rows and columns of the terminal a program sees.
pub(crate) const ROWS: u16 = 30;
/// Columns of the terminal: wide, so fewer lines wrap.
pub(crate) const COLUMNS: u16 = 120;

/// Lines scrolled off the top kept between two reads; past it the oldest beyond the first
/// [`KEEP_HEAD`] are dropped (and counted).
const MAX_SCROLLED: usize = 5_000;
const KEEP_HEAD: usize = 1_000;

/// The emulated terminal of one session, and what of it the model has seen.
pub(crate) struct Screen {
    parser: vt100::Parser<Scrolled>,
    /// The visible rows at the last read.
    seen: Vec<String>,
    /// The row from which the next read starts (the cursor's row at the last read).
    from: usize,
    /// Whether the alternate screen was showing at the last read.
    was_alternate: bool,
}

/// Rows pushed off the top of the normal screen since the last read.
#[derive(Default)]
struct Scrolled {
    lines: Vec<Line>,
    dropped: usize,
}

/// One row of text, and whether it continues on the next (a long line wrapped).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Line {
    text: String,
    wrapped: bool,
}

impl vt100::Callbacks for Scrolled {
    fn on_scroll(&mut self, row: vt100::capture::RowContents<'_>, alternate_screen: bool) {
        if alternate_screen {
            return;
        }
        let mut formatted = String::new();
        let mut state = vt100::capture::BasicFormattedCaptureState::new();
        if row
            .write_formatted_basic(&mut formatted, &mut state)
            .is_err()
        {
            return;
        }
        // The state's pending newline says whether the row ended a line; a second empty write
        // shows it.
        let mut probe = String::new();
        let _ = vt100::capture::RowContents::write_formatted_basic(&row, &mut probe, &mut state);
        let wrapped = !probe.starts_with('\n');
        let text: String = vt100::capture::basic_formatted_to_plain(&formatted).collect();
        if self.lines.len() >= MAX_SCROLLED {
            self.lines.remove(KEEP_HEAD);
            self.dropped += 1;
        }
        self.lines.push(Line {
            text: text.trim_end().to_string(),
            wrapped,
        });
    }
}

impl Screen {
    pub(crate) fn new() -> Self {
        let rows = NonZeroU16::new(ROWS).unwrap_or(NonZeroU16::MIN);
        let columns = NonZeroU16::new(COLUMNS).unwrap_or(NonZeroU16::MIN);
        Self {
            parser: vt100::Parser::new_with_callbacks(rows, columns, 0, Scrolled::default()),
            seen: Vec::new(),
            from: 0,
            was_alternate: false,
        }
    }

    /// Takes in what the program wrote.
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        self.parser.process(bytes);
    }

    /// The screen as it is now (the read position does not move).
    pub(crate) fn contents(&self) -> String {
        join(&self.visible())
    }

    /// The text shown on the screen's last non-empty row (a prompt waiting for an answer).
    pub(crate) fn last_line(&self) -> String {
        self.visible()
            .into_iter()
            .rev()
            .find(|line| !line.text.is_empty())
            .map(|line| line.text)
            .unwrap_or_default()
    }

    /// What is new since the last call, as text (empty when nothing changed).
    pub(crate) fn read_new(&mut self) -> String {
        let visible = self.visible();
        let alternate = self.parser.screen().alternate_screen();
        let (scrolled, dropped) = {
            let callbacks = self.parser.callbacks_mut();
            (
                std::mem::take(&mut callbacks.lines),
                std::mem::take(&mut callbacks.dropped),
            )
        };
        let (cursor, _) = self.parser.screen().cursor_position();
        let texts: Vec<String> = visible.iter().map(|l| l.text.clone()).collect();
        let text = if alternate {
            // A full-screen program: the screen as it is now, when it changed.
            if self.was_alternate && texts == self.seen {
                String::new()
            } else {
                join(&visible)
            }
        } else {
            let mut all = scrolled;
            all.extend(visible);
            let kept_from = if self.redrawn(&all) || self.was_alternate {
                0
            } else {
                self.from.min(all.len())
            };
            let mut text = join(&all[kept_from..]);
            if dropped > 0 {
                text = format!("[{dropped} lines of output scrolled away unread]\n{text}");
            }
            text
        };
        self.seen = texts;
        self.from = usize::from(cursor);
        self.was_alternate = alternate;
        text
    }

    /// Whether rows read as complete last time are not where they were (the screen was
    /// cleared or redrawn).
    fn redrawn(&self, all: &[Line]) -> bool {
        let complete = self.from.min(self.seen.len());
        (0..complete).any(|i| all.get(i).map(|l| l.text.as_str()) != Some(self.seen[i].as_str()))
    }

    /// The visible rows, trailing spaces trimmed.
    fn visible(&self) -> Vec<Line> {
        let screen = self.parser.screen();
        screen
            .rows(0, COLUMNS)
            .enumerate()
            .map(|(i, text)| Line {
                text: text.trim_end().to_string(),
                wrapped: u16::try_from(i).is_ok_and(|row| screen.row_wrapped(row)),
            })
            .collect()
    }
}

/// Lines as text: wrapped rows joined, trailing empty rows left out.
fn join(lines: &[Line]) -> String {
    let end = lines
        .iter()
        .rposition(|line| !line.text.is_empty())
        .map_or(0, |i| i + 1);
    let mut text = String::new();
    for line in &lines[..end] {
        text.push_str(&line.text);
        if !line.wrapped {
            text.push('\n');
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_read_before_comes_back_with_what_was_typed() {
        let mut screen = Screen::new();
        screen.feed(b"Python 3.11\r\n>>> ");
        assert_eq!(screen.read_new(), "Python 3.11\n>>>\n");
        screen.feed(b"1+1\r\n2\r\n>>> ");
        assert_eq!(screen.read_new(), ">>> 1+1\n2\n>>>\n");
        assert_eq!(screen.read_new(), ">>>\n");
    }

    #[test]
    fn progress_bars_and_colour_come_out_as_seen() {
        let mut screen = Screen::new();
        screen.feed(b"\x1b[32mok\x1b[0m 10%\r\x1b[32mok\x1b[0m 100%\r\ndone\r\n");
        assert_eq!(screen.read_new(), "ok 100%\ndone\n");
    }

    #[test]
    fn lines_that_scrolled_off_are_kept_in_order() {
        let mut screen = Screen::new();
        for i in 0..100 {
            screen.feed(format!("line {i}\r\n").as_bytes());
        }
        let text = screen.read_new();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 100);
        assert_eq!(lines[0], "line 0");
        assert_eq!(lines[99], "line 99");
        screen.feed(b"line 100\r\n");
        assert_eq!(screen.read_new(), "line 100\n");
    }

    #[test]
    fn a_long_line_wrapped_by_the_terminal_is_one_line() {
        let mut screen = Screen::new();
        let long = "x".repeat(300);
        for _ in 0..40 {
            screen.feed(format!("{long}\r\n").as_bytes());
        }
        let text = screen.read_new();
        assert_eq!(text.lines().count(), 40);
        assert!(text.lines().all(|l| l == long));
    }

    #[test]
    fn a_cleared_screen_is_shown_whole() {
        let mut screen = Screen::new();
        screen.feed(b"a\r\nb\r\nc\r\n");
        screen.read_new();
        screen.feed(b"\x1b[2J\x1b[Hfresh\r\n");
        assert_eq!(screen.read_new(), "fresh\n");
    }

    #[test]
    fn a_full_screen_program_is_its_screen() {
        let mut screen = Screen::new();
        screen.feed(b"before\r\n\x1b[?1049h\x1b[H\x1b[2Jfile line 1\r\nfile line 2\r\n:");
        assert_eq!(screen.read_new(), "file line 1\nfile line 2\n:\n");
        assert_eq!(screen.read_new(), "");
        screen.feed(b"\x1b[?1049l");
        assert_eq!(screen.read_new(), "before\n");
    }
}
