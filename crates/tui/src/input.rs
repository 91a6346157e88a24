//! The input box: multi-line editing, history, and pastes of large text.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

use crate::history::PromptHistory;
use crate::theme::Theme;

/// Pastes longer than this (lines or bytes) are shown as a placeholder.
const PASTE_LINES: usize = 8;
const PASTE_BYTES: usize = 1000;
/// Rows of the box before it scrolls.
pub const MAX_ROWS: usize = 8;

/// What a key did to the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputOutcome {
    /// The text changed or the cursor moved.
    Edited,
    /// Enter: the text to send (pastes expanded); the box is empty again.
    Submit(String),
    /// The key means nothing here.
    Ignored,
}

/// The text being typed, as lines, with a cursor (row, char column).
#[derive(Debug)]
pub struct Input {
    lines: Vec<String>,
    row: usize,
    col: usize,
    pastes: Vec<(String, String)>,
    history: PromptHistory,
}

impl Input {
    /// An empty box browsing `history`.
    pub fn new(history: PromptHistory) -> Self {
        Self {
            lines: vec![String::new()],
            row: 0,
            col: 0,
            pastes: Vec::new(),
            history,
        }
    }

    /// The text as typed (paste placeholders not expanded).
    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    /// Whether the text is an entry recalled from the history (Up and Down move through it).
    pub fn browsing_history(&self) -> bool {
        self.history.browsing()
    }

    /// Whether nothing is typed.
    pub fn is_empty(&self) -> bool {
        self.lines.len() == 1 && self.lines[0].is_empty()
    }

    /// Replaces the text; the cursor goes to its end.
    pub fn set_text(&mut self, text: &str) {
        self.lines = text.split('\n').map(str::to_string).collect();
        self.row = self.lines.len() - 1;
        self.col = self.lines[self.row].chars().count();
    }

    /// Empties the box.
    pub fn clear(&mut self) {
        self.set_text("");
        self.pastes.clear();
    }

    /// Handles one key press.
    pub fn key(&mut self, key: KeyEvent) -> InputOutcome {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        match key.code {
            KeyCode::Enter if shift || alt => self.newline(),
            KeyCode::Char('j') if ctrl => self.newline(),
            KeyCode::Enter => {
                // A trailing backslash continues the line, as in a shell.
                if self.lines[self.row].ends_with('\\') && self.col == self.line_len() {
                    self.lines[self.row].pop();
                    self.col -= 1;
                    self.newline();
                    return InputOutcome::Edited;
                }
                if self.text().trim().is_empty() {
                    return InputOutcome::Ignored;
                }
                let typed = self.text();
                self.history.add(&typed);
                let text = self.expand(&typed);
                self.clear();
                return InputOutcome::Submit(text);
            }
            KeyCode::Char('a') if ctrl => self.col = 0,
            KeyCode::Char('e') if ctrl => self.col = self.line_len(),
            KeyCode::Char('u') if ctrl => {
                let rest = self.lines[self.row].chars().skip(self.col).collect();
                self.lines[self.row] = rest;
                self.col = 0;
            }
            KeyCode::Char('k') if ctrl => {
                let kept = self.lines[self.row].chars().take(self.col).collect();
                self.lines[self.row] = kept;
            }
            KeyCode::Char('w') if ctrl => self.delete_word(),
            KeyCode::Backspace if alt => self.delete_word(),
            KeyCode::Char(c) if !ctrl => self.insert(&c.to_string()),
            KeyCode::Tab => self.insert("    "),
            KeyCode::Backspace => self.backspace(),
            KeyCode::Delete => self.delete(),
            KeyCode::Left if self.col > 0 => self.col -= 1,
            KeyCode::Left if self.row > 0 => {
                self.row -= 1;
                self.col = self.line_len();
            }
            KeyCode::Right if self.col < self.line_len() => self.col += 1,
            KeyCode::Right if self.row + 1 < self.lines.len() => {
                self.row += 1;
                self.col = 0;
            }
            KeyCode::Home => self.col = 0,
            KeyCode::End => self.col = self.line_len(),
            KeyCode::Up if self.row > 0 && !self.history.browsing() => {
                self.row -= 1;
                self.col = self.col.min(self.line_len());
            }
            KeyCode::Up => {
                let current = self.text();
                match self.history.older(&current).map(str::to_string) {
                    Some(entry) => self.set_text(&entry),
                    None => return InputOutcome::Ignored,
                }
            }
            KeyCode::Down if self.row + 1 < self.lines.len() && !self.history.browsing() => {
                self.row += 1;
                self.col = self.col.min(self.line_len());
            }
            KeyCode::Down => match self.history.newer() {
                Some(entry) => self.set_text(&entry),
                None => return InputOutcome::Ignored,
            },
            _ => return InputOutcome::Ignored,
        }
        InputOutcome::Edited
    }

    /// Inserts pasted text; a large paste becomes a placeholder expanded when sent, and the
    /// path of a picture (pasted, or dropped on the terminal) becomes `[Image #1]`, sent as
    /// `@path` so the picture is attached.
    pub fn paste(&mut self, text: &str) {
        if let Some(path) = picture_path(text) {
            let images = self
                .pastes
                .iter()
                .filter(|(l, _)| l.starts_with("[Image #"))
                .count();
            let label = format!("[Image #{}]", images + 1);
            self.pastes.push((label.clone(), format!("@{path}")));
            self.insert(&label);
            return;
        }
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        let lines = text.lines().count();
        if lines > PASTE_LINES || text.len() > PASTE_BYTES {
            let label = format!("[Pasted text #{} +{lines} lines]", self.pastes.len() + 1);
            self.pastes.push((label.clone(), text));
            self.insert(&label);
        } else {
            self.insert(&text);
        }
    }

    /// The rows to draw for a box `width` columns wide (long lines wrap; at most
    /// [`MAX_ROWS`], scrolled to the cursor) and the cursor's (column, row) within them.
    pub fn view(&self, width: usize, theme: Theme) -> (Vec<Line<'static>>, (u16, u16)) {
        let room = width.saturating_sub(2).max(1);
        let mut rows: Vec<String> = Vec::new();
        let mut cursor = (0, 0);
        for (n, line) in self.lines.iter().enumerate() {
            let mut row = String::new();
            let mut used = 0;
            for (at, c) in line.chars().enumerate() {
                let w = c.width().unwrap_or(0);
                if used + w > room && !row.is_empty() {
                    rows.push(std::mem::take(&mut row));
                    used = 0;
                }
                if n == self.row && at == self.col {
                    cursor = (rows.len(), used);
                }
                row.push(c);
                used += w;
            }
            if n == self.row && self.col >= line.chars().count() {
                if used >= room {
                    rows.push(std::mem::take(&mut row));
                    used = 0;
                }
                cursor = (rows.len(), used);
            }
            rows.push(row);
        }
        let first = cursor.0.saturating_sub(MAX_ROWS - 1);
        let lines = rows
            .into_iter()
            .enumerate()
            .skip(first)
            .take(MAX_ROWS)
            .map(|(n, text)| {
                let lead = if n == 0 {
                    Span::styled("› ", theme.accent())
                } else {
                    Span::raw("  ")
                };
                Line::from(vec![lead, Span::raw(text)])
            })
            .collect();
        let position = (
            u16::try_from(2 + cursor.1).unwrap_or(u16::MAX),
            u16::try_from(cursor.0 - first).unwrap_or(0),
        );
        (lines, position)
    }

    fn expand(&self, typed: &str) -> String {
        self.pastes
            .iter()
            .fold(typed.to_string(), |text, (label, pasted)| {
                text.replacen(label, pasted, 1)
            })
    }

    fn line_len(&self) -> usize {
        self.lines[self.row].chars().count()
    }

    fn byte_at(&self, col: usize) -> usize {
        let line = &self.lines[self.row];
        line.char_indices().nth(col).map_or(line.len(), |(i, _)| i)
    }

    fn insert(&mut self, text: &str) {
        let mut parts = text.split('\n');
        let first = parts.next().unwrap_or("");
        let at = self.byte_at(self.col);
        let tail = self.lines[self.row].split_off(at);
        self.lines[self.row].push_str(first);
        self.col += first.chars().count();
        for part in parts {
            self.row += 1;
            self.lines.insert(self.row, part.to_string());
            self.col = part.chars().count();
        }
        self.lines[self.row].push_str(&tail);
    }

    fn newline(&mut self) {
        self.insert("\n");
    }

    fn backspace(&mut self) {
        if self.col > 0 {
            let at = self.byte_at(self.col - 1);
            self.lines[self.row].remove(at);
            self.col -= 1;
        } else if self.row > 0 {
            let line = self.lines.remove(self.row);
            self.row -= 1;
            self.col = self.line_len();
            self.lines[self.row].push_str(&line);
        }
    }

    fn delete(&mut self) {
        if self.col < self.line_len() {
            let at = self.byte_at(self.col);
            self.lines[self.row].remove(at);
        } else if self.row + 1 < self.lines.len() {
            let next = self.lines.remove(self.row + 1);
            self.lines[self.row].push_str(&next);
        }
    }

    fn delete_word(&mut self) {
        let chars: Vec<char> = self.lines[self.row].chars().collect();
        let mut start = self.col;
        while start > 0 && chars[start - 1] == ' ' {
            start -= 1;
        }
        while start > 0 && chars[start - 1] != ' ' {
            start -= 1;
        }
        let kept: String = chars[..start].iter().chain(&chars[self.col..]).collect();
        self.lines[self.row] = kept;
        self.col = start;
    }
}

#[cfg(test)]
#[path = "input_tests.rs"]
mod tests;

/// The picture file a paste names: one line, maybe quoted or a `file://` URL (what a file
/// dropped on a terminal becomes), naming an existing PNG, JPEG, GIF or WebP file.
fn picture_path(text: &str) -> Option<String> {
    let text = text.trim();
    if text.contains('\n') || text.is_empty() {
        return None;
    }
    let unquoted = text
        .strip_prefix('\'')
        .and_then(|t| t.strip_suffix('\''))
        .or_else(|| text.strip_prefix('"').and_then(|t| t.strip_suffix('"')))
        .unwrap_or(text);
    let path = unquoted
        .strip_prefix("file://")
        .unwrap_or(unquoted)
        .replace("\\ ", " ");
    let extension = std::path::Path::new(&path)
        .extension()?
        .to_str()?
        .to_ascii_lowercase();
    let picture = ["png", "jpg", "jpeg", "gif", "webp"].contains(&extension.as_str());
    (picture && !path.contains(' ') && std::path::Path::new(&path).is_file()).then_some(path)
}
