//! A list to pick from in the live area: a stored session for `/resume`, a prompt to
//! rewind to, a model, a rule to edit, a task to watch, a memory file.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::Line;

use super::prompt::clip_line;
use crate::theme::Theme;

/// A choice among items (id, label).
#[derive(Debug)]
pub struct Picker {
    /// What is being picked.
    pub title: String,
    /// What the choice is for.
    pub kind: PickKind,
    items: Vec<(String, String)>,
    selected: usize,
}

/// What a picker's choice is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickKind {
    /// A stored session to resume (ids are session ids).
    Session,
    /// A prompt to rewind to (ids are its place from the end).
    RewindPoint,
    /// How to rewind to the prompt this far back (ids name the choice).
    RewindHow(usize),
    /// A model to switch to (ids are model names).
    Model,
    /// A rule to add or remove (`/permissions`; ids say which).
    Rules,
    /// A background task to watch (ids are task ids).
    Task,
    /// A memory file to edit (ids are paths).
    Memory,
    /// Where to remember a `#` line (ids are paths).
    Remember,
}

/// What a key did to the picker.
#[derive(Debug, PartialEq, Eq)]
pub enum PickOutcome {
    /// Still open.
    Open,
    /// The id picked.
    Picked(String),
    /// Closed without a choice.
    Closed,
}

/// Rows of items shown at once.
const PICKER_ROWS: usize = 8;

impl Picker {
    /// A picker over `items`, the first selected, for `kind`.
    pub fn new(kind: PickKind, title: impl Into<String>, items: Vec<(String, String)>) -> Self {
        Self {
            title: title.into(),
            kind,
            items,
            selected: 0,
        }
    }

    /// Up/Down move, Enter picks, Esc closes.
    pub fn key(&mut self, key: KeyEvent) -> PickOutcome {
        match key.code {
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => {
                self.selected = (self.selected + 1).min(self.items.len().saturating_sub(1));
            }
            KeyCode::Enter => {
                return self
                    .items
                    .get(self.selected)
                    .map_or(PickOutcome::Closed, |(id, _)| {
                        PickOutcome::Picked(id.clone())
                    });
            }
            KeyCode::Esc => return PickOutcome::Closed,
            _ => {}
        }
        PickOutcome::Open
    }

    /// The picker's rows.
    pub fn view(&self, width: usize, theme: Theme) -> Vec<Line<'static>> {
        let mut lines = vec![Line::styled(
            format!("{} (↑↓ to move, Enter to pick, Esc to close)", self.title),
            theme.bold(),
        )];
        let first = self.selected.saturating_sub(PICKER_ROWS - 1);
        for (n, (_, label)) in self.items.iter().enumerate().skip(first).take(PICKER_ROWS) {
            let line = if n == self.selected {
                Line::styled(format!("› {label}"), theme.accent().patch(theme.bold()))
            } else {
                Line::raw(format!("  {label}"))
            };
            lines.push(clip_line(line, width));
        }
        if self.items.is_empty() {
            lines.push(Line::styled("  (nothing to pick)", theme.dim()));
        }
        lines
    }
}
