//! Colours and emphasis. With `NO_COLOR` set every colour is dropped; bold, dim, italic and
//! reverse stay, since they carry meaning without colour.

use ratatui::style::{Color, Modifier, Style};

/// Whether the UI draws in colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Colors {
    /// Colours are drawn.
    On,
    /// No colours (`NO_COLOR`): emphasis only.
    Off,
}

/// The styles the UI draws with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    color: bool,
}

impl Theme {
    /// A theme with colours.
    pub const COLOR: Self = Self { color: true };
    /// A theme without colours (`NO_COLOR`).
    pub const PLAIN: Self = Self { color: false };

    /// Colours, or none with [`Colors::Off`] (the `NO_COLOR` variable is set and not empty).
    pub fn new(colors: Colors) -> Self {
        match colors {
            Colors::On => Self::COLOR,
            Colors::Off => Self::PLAIN,
        }
    }

    /// Whether colours are used.
    pub fn has_color(self) -> bool {
        self.color
    }

    /// `color` as foreground, or nothing without colours.
    pub fn fg(self, color: Color) -> Style {
        if self.color {
            Style::new().fg(color)
        } else {
            Style::new()
        }
    }

    /// Secondary text: thinking, hints, folded output.
    pub fn dim(self) -> Style {
        Style::new().add_modifier(Modifier::DIM)
    }

    /// Headings and the names of things.
    pub fn bold(self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    /// rein's own accent: the prompt marker, spinners, tool names.
    pub fn accent(self) -> Style {
        self.fg(Color::Cyan)
    }

    /// Failures.
    pub fn error(self) -> Style {
        self.fg(Color::Red)
    }

    /// Success marks.
    pub fn success(self) -> Style {
        self.fg(Color::Green)
    }

    /// Things that need attention (permission prompts, warnings).
    pub fn warning(self) -> Style {
        self.fg(Color::Yellow)
    }

    /// Added lines of a diff.
    pub fn added(self) -> Style {
        self.fg(Color::Green)
    }

    /// Removed lines of a diff.
    pub fn removed(self) -> Style {
        self.fg(Color::Red)
    }

    /// Inline code.
    pub fn code(self) -> Style {
        self.fg(Color::Magenta)
    }

    /// The user's own messages as they enter the transcript.
    pub fn user(self) -> Style {
        self.bold()
    }
}
