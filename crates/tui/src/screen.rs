//! The terminal as the UI uses it: a live area at the bottom, exactly as tall as its content,
//! with finished lines written above it into the terminal's scrollback.
//!
//! ratatui's inline viewport has a fixed height and asks the terminal where the cursor is
//! whenever it is reopened — an answer that, once the input reader runs, races with it. So the
//! viewport here is a `Viewport::Fixed` whose place this type keeps itself: the cursor row is
//! read once, at start; afterwards rows are counted (and the screen scrolled by writing
//! newlines on its last row, which is what puts lines into the scrollback).

use std::time::Instant;

use ratatui::backend::{Backend, ClearType};
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect, Size};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};
use ratatui::{Terminal, TerminalOptions, Viewport};

use crate::app::App;
use crate::muted::Muted;
use crate::wrap::wrap_all;

/// The bottom of the terminal, managed as a live area plus scrollback.
pub struct Screen<B: Backend> {
    terminal: Terminal<Muted<B>>,
    /// Terminal size when last seen.
    size: Size,
    /// First row of the live area.
    top: u16,
    /// Rows of the live area.
    height: u16,
    /// Where the last frame left the terminal's cursor.
    cursor: Option<Position>,
    /// How much of each live row above the cursor's the last frame used, in columns.
    above_cursor: Vec<u16>,
    /// False once the terminal failed to say where the cursor is: a late answer may still
    /// come, and would be taken for the answer to the next question.
    trust_cursor: bool,
}

/// The terminal refused an operation of the [`Screen`].
#[derive(Debug, thiserror::Error)]
#[error("terminal: {message}")]
pub struct ScreenError {
    /// What the screen was doing (`reading its size`, `drawing`, …).
    pub step: &'static str,
    /// What the terminal said.
    pub message: String,
}

/// Turns the terminal's error at `step` into a [`ScreenError`].
fn failed<E: std::fmt::Display>(step: &'static str) -> impl FnOnce(E) -> ScreenError {
    move |e| ScreenError {
        step,
        message: e.to_string(),
    }
}

impl<B: Backend> Screen<B> {
    /// A one-row live area at the cursor's row (read now, before anything else reads the
    /// terminal's input).
    pub fn new(backend: B) -> Result<Self, ScreenError> {
        let area = Rect::new(0, 0, 1, 1);
        let backend = Muted {
            inner: backend,
            muted: false,
        };
        let terminal = Terminal::with_options(
            backend,
            TerminalOptions {
                viewport: Viewport::Fixed(area),
            },
        )
        .map_err(failed("opening the terminal"))?;
        let mut screen = Self {
            terminal,
            size: Size::new(1, 1),
            top: 0,
            height: 1,
            cursor: None,
            above_cursor: Vec::new(),
            trust_cursor: true,
        };
        screen.start_at_cursor()?;
        Ok(screen)
    }

    /// Takes the terminal back after a suspension: the shell has written below where the live
    /// area was, so it starts again at the cursor (read now, while nothing else reads input).
    pub fn resume(&mut self) -> Result<(), ScreenError> {
        self.start_at_cursor()
    }

    /// Puts a one-row live area on the cursor's row, or on the next when the cursor is not at
    /// the start of a line.
    fn start_at_cursor(&mut self) -> Result<(), ScreenError> {
        let size = self
            .terminal
            .backend()
            .size()
            .map_err(failed("reading its size"))?;
        // A terminal that does not say where the cursor is: start at the bottom.
        let cursor = self
            .ask_cursor()
            .unwrap_or(Position::new(0, size.height.saturating_sub(1)));
        let top = if cursor.x > 0 { cursor.y + 1 } else { cursor.y };
        self.size = size;
        // Below the last row: scroll one up first.
        self.top = top.min(size.height);
        self.scroll_for(1)?;
        self.place(1)
    }

    /// The backend (tests read its buffer and scrollback).
    pub fn backend(&self) -> &B {
        &self.terminal.backend().inner
    }

    /// The backend, mutably (tests resize it).
    pub fn backend_mut(&mut self) -> &mut B {
        &mut self.terminal.backend_mut().inner
    }

    /// Follows a resize of the terminal, asking it where the cursor went (so nothing else
    /// may be reading its input). A terminal that reflows its lines moves the live area with
    /// them, by as many rows as it moved the cursor, less the rows it added by wrapping the
    /// live rows above the cursor that no longer fit. Until this runs, [`Screen::draw`]
    /// draws nothing.
    pub fn resized(&mut self) -> Result<(), ScreenError> {
        let size = self
            .terminal
            .backend()
            .size()
            .map_err(failed("reading its size"))?;
        if size == self.size {
            return Ok(());
        }
        if let (Some(before), Some(now)) = (self.cursor, self.ask_cursor()) {
            let moved = i32::from(now.y) - i32::from(before.y);
            // A cursor that did not move is no sign of a reflow: then nothing wrapped either.
            let wrapped: i32 = if moved != 0 && size.width < self.size.width {
                let width = size.width.max(1);
                self.above_cursor
                    .iter()
                    .map(|&used| i32::from(used.div_ceil(width).saturating_sub(1)))
                    .sum()
            } else {
                0
            };
            let top = i32::from(self.top) + moved - wrapped;
            self.top = u16::try_from(top.max(0)).unwrap_or(0);
        }
        self.sync_size()
    }

    /// Where the terminal's cursor is, while its answers can be trusted.
    fn ask_cursor(&mut self) -> Option<Position> {
        if !self.trust_cursor {
            return None;
        }
        let answer = self.terminal.backend_mut().get_cursor_position().ok();
        self.trust_cursor = answer.is_some();
        answer
    }

    /// Writes `lines`, wrapped to the terminal's width, above the live area.
    pub fn insert(&mut self, lines: &[Line<'static>]) -> Result<(), ScreenError> {
        self.sync_size()?;
        self.insert_rows(lines)
    }

    /// [`Screen::insert`] at the size last seen.
    fn insert_rows(&mut self, lines: &[Line<'static>]) -> Result<(), ScreenError> {
        if lines.is_empty() {
            return Ok(());
        }
        let lines = crate::sanitize::lines(lines.to_vec());
        let rows = wrap_all(&lines, usize::from(self.size.width));
        // Each step must fit on the screen with the live area below it.
        let step = usize::from(self.size.height.saturating_sub(self.height).max(1));
        for chunk in rows.chunks(step) {
            let count = u16::try_from(chunk.len()).unwrap_or(u16::MAX);
            self.clear_live()?;
            self.scroll_for(count + self.height)?;
            let area = Rect::new(0, self.top, self.size.width, count);
            let blank = Buffer::empty(area);
            let mut buffer = blank.clone();
            Paragraph::new(chunk.to_vec()).render(area, &mut buffer);
            // The rows are blank already: only what differs from blank is written, so a line's
            // trailing blanks stay unwritten (a terminal that reflows on a resize does not
            // see a full-width line to wrap), and so are the cells a wide character covers.
            let cells = blank.diff(&buffer);
            let backend = self.terminal.backend_mut();
            backend
                .draw(cells.into_iter())
                .map_err(failed("writing lines"))?;
            self.top += count;
            self.place(self.height)?;
        }
        Ok(())
    }

    /// Moves `app`'s finished lines to the scrollback and redraws the live area.
    pub fn draw(&mut self, app: &mut App, now: Instant) -> Result<(), ScreenError> {
        if self
            .terminal
            .backend()
            .size()
            .map_err(failed("reading its size"))?
            != self.size
        {
            // A resize is on its way to `resized`, which must see where the cursor went.
            return Ok(());
        }
        let committed = app.take_committed();
        self.insert_rows(&committed)?;
        app.set_size(self.size.width, self.size.height);
        let (lines, cursor) = app.live_lines(self.size.width, now);
        let wanted = u16::try_from(lines.len())
            .unwrap_or(u16::MAX)
            .clamp(1, self.size.height.max(1));
        if wanted != self.height {
            self.make_room(wanted)?;
        }
        // The bottom (input and status) matters most when the area is too short.
        let skip = lines.len().saturating_sub(usize::from(wanted));
        let skip_rows = u16::try_from(skip).unwrap_or(0);
        let lines: Vec<Line<'static>> = lines.into_iter().skip(skip).collect();
        let area = Rect::new(0, self.top, self.size.width, self.height);
        let cursor = cursor
            .filter(|&(_, y)| y >= skip_rows)
            .map(|(x, y)| Position::new(area.x + x, area.y + y - skip_rows));
        let rows_above = cursor.map_or(0, |c| usize::from(c.y - area.y));
        self.above_cursor.clear();
        self.above_cursor
            .extend(lines.iter().take(rows_above).map(|line| {
                let used = u16::try_from(line.width()).unwrap_or(u16::MAX);
                used.min(area.width)
            }));
        self.terminal
            .draw(|frame| {
                frame.render_widget(Paragraph::new(lines), frame.area());
                if let Some(cursor) = cursor {
                    frame.set_cursor_position(cursor);
                }
            })
            .map_err(failed("drawing"))?;
        // Without a cursor to show, ratatui leaves it where it last wrote: put it somewhere
        // known, for `resized`.
        let cursor = match cursor {
            Some(cursor) => cursor,
            None => {
                let home = area.as_position();
                let backend = self.terminal.backend_mut();
                backend
                    .set_cursor_position(home)
                    .map_err(failed("moving the cursor"))?;
                backend.flush().map_err(failed("flushing"))?;
                home
            }
        };
        self.cursor = Some(cursor);
        Ok(())
    }

    /// Clears the live area and leaves the cursor at its first row, for a clean exit or a
    /// suspension.
    pub fn finish(&mut self) -> Result<(), ScreenError> {
        self.clear_live()?;
        self.terminal
            .show_cursor()
            .map_err(failed("showing the cursor"))?;
        self.terminal
            .backend_mut()
            .flush()
            .map_err(failed("flushing"))
    }

    /// Gives the live area `height` rows, scrolling the screen up when they do not fit.
    fn make_room(&mut self, height: u16) -> Result<(), ScreenError> {
        self.clear_live()?;
        self.scroll_for(height)?;
        self.place(height)
    }

    /// Scrolls so that `rows` rows fit from `top` down.
    fn scroll_for(&mut self, rows: u16) -> Result<(), ScreenError> {
        let bottom = self.size.height;
        let overflow = (self.top + rows).saturating_sub(bottom);
        if overflow > 0 {
            let backend = self.terminal.backend_mut();
            backend
                .set_cursor_position(Position::new(0, bottom.saturating_sub(1)))
                .map_err(failed("moving the cursor"))?;
            backend
                .append_lines(overflow)
                .map_err(failed("scrolling"))?;
            self.top = self.top.saturating_sub(overflow);
        }
        Ok(())
    }

    /// Puts the viewport at `top`, `height` rows tall, its rows blank.
    fn place(&mut self, height: u16) -> Result<(), ScreenError> {
        // On a screen a row or two tall, finished lines can push the area past the bottom.
        self.top = self.top.min(self.size.height.saturating_sub(1));
        self.height = height.min(self.size.height.saturating_sub(self.top)).max(1);
        let area = Rect::new(0, self.top, self.size.width, self.height);
        // ratatui clears what it resizes, "to the end of the screen" when the area reaches
        // the bottom (see `clear_rows`), and moves an area that got narrower to the top row
        // after clearing the whole screen: it resizes muted, and the rows are cleared here.
        self.terminal.backend_mut().muted = true;
        let mut resized = self.terminal.resize(area);
        if resized.is_ok() && self.terminal.get_frame().area() != area {
            resized = self.terminal.resize(area);
        }
        self.terminal.backend_mut().muted = false;
        resized.map_err(failed("resizing the viewport"))?;
        self.clear_rows(area.top(), area.bottom())
    }

    /// Blanks everything from the live area down, leaving the cursor at its first row.
    fn clear_live(&mut self) -> Result<(), ScreenError> {
        self.clear_rows(self.top, self.size.height)?;
        self.terminal
            .backend_mut()
            .set_cursor_position(Position::new(0, self.top))
            .map_err(failed("moving the cursor"))
    }

    /// Blanks the rows `from..to`, one by one: erasing "to the end of the screen" from the
    /// top-left corner makes some terminals (tmux) save the screen to their history, which
    /// would leave copies of the live area in the scrollback.
    fn clear_rows(&mut self, from: u16, to: u16) -> Result<(), ScreenError> {
        let backend = self.terminal.backend_mut();
        for row in from..to.min(self.size.height) {
            backend
                .set_cursor_position(Position::new(0, row))
                .map_err(failed("moving the cursor"))?;
            backend
                .clear_region(ClearType::CurrentLine)
                .map_err(failed("clearing a row"))?;
        }
        Ok(())
    }

    /// Follows a terminal resize: the live area stays on screen.
    fn sync_size(&mut self) -> Result<(), ScreenError> {
        let size = self
            .terminal
            .backend()
            .size()
            .map_err(failed("reading its size"))?;
        if size != self.size {
            self.size = size;
            self.clear_live()?;
            // A shorter terminal: the rows above the live area are transcript, so what no
            // longer fits is scrolled into the scrollback, never drawn over.
            self.top = self.top.min(size.height);
            self.scroll_for(self.height.min(size.height).max(1))?;
            self.place(self.height)?;
        }
        Ok(())
    }
}

/// The UI could not run.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// The terminal refused an operation.
    #[error("{0}")]
    Terminal(String),
    /// The screen could not be drawn or managed.
    #[error(transparent)]
    Screen(#[from] ScreenError),
}
