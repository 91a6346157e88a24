//! A backend whose output can be switched off. ratatui's `Terminal::resize` moves a fixed
//! viewport to the top row and clears the whole screen when the terminal gets narrower; the
//! screen re-places its live area in two steps instead (the first muted), so neither happens.

use ratatui::backend::{Backend, ClearType, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Size};

/// `B`, with a switch that drops everything it would write.
pub struct Muted<B> {
    /// The real backend.
    pub inner: B,
    /// While true, writes are dropped (reads still answer).
    pub muted: bool,
}

impl<B: Backend> Muted<B> {
    /// Runs `write` on the real backend unless muted.
    fn write(
        &mut self,
        write: impl FnOnce(&mut B) -> Result<(), B::Error>,
    ) -> Result<(), B::Error> {
        if self.muted {
            Ok(())
        } else {
            write(&mut self.inner)
        }
    }
}

impl<B: Backend> Backend for Muted<B> {
    type Error = B::Error;

    fn draw<'a, I>(&mut self, content: I) -> Result<(), Self::Error>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        self.write(|b| b.draw(content))
    }

    fn append_lines(&mut self, n: u16) -> Result<(), Self::Error> {
        self.write(|b| b.append_lines(n))
    }

    fn hide_cursor(&mut self) -> Result<(), Self::Error> {
        self.write(|b| b.hide_cursor())
    }

    fn show_cursor(&mut self) -> Result<(), Self::Error> {
        self.write(|b| b.show_cursor())
    }

    fn get_cursor_position(&mut self) -> Result<Position, Self::Error> {
        self.inner.get_cursor_position()
    }

    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> Result<(), Self::Error> {
        self.write(|b| b.set_cursor_position(position))
    }

    fn clear(&mut self) -> Result<(), Self::Error> {
        self.write(|b| b.clear())
    }

    fn clear_region(&mut self, clear_type: ClearType) -> Result<(), Self::Error> {
        self.write(|b| b.clear_region(clear_type))
    }

    fn size(&self) -> Result<Size, Self::Error> {
        self.inner.size()
    }

    fn window_size(&mut self) -> Result<WindowSize, Self::Error> {
        self.inner.window_size()
    }

    fn flush(&mut self) -> Result<(), Self::Error> {
        self.write(|b| b.flush())
    }

    fn scroll_region_up(
        &mut self,
        region: std::ops::Range<u16>,
        line_count: u16,
    ) -> Result<(), Self::Error> {
        self.write(|b| b.scroll_region_up(region, line_count))
    }

    fn scroll_region_down(
        &mut self,
        region: std::ops::Range<u16>,
        line_count: u16,
    ) -> Result<(), Self::Error> {
        self.write(|b| b.scroll_region_down(region, line_count))
    }
}
