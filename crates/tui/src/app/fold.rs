//! What the transcript folds (a long call result, thought the model did not show), kept so the
//! user can unfold it: Ctrl-O writes the latest folded piece out whole, Ctrl-T also unfolds
//! the latest thinking when it turns thinking on.

use std::collections::VecDeque;

use ratatui::text::Line;

use super::App;

/// Folded pieces kept for Ctrl-O (the oldest go first).
const KEPT: usize = 20;
/// Bytes of one folded piece kept (tool results are capped well below this already).
const KEPT_BYTES: usize = 256 * 1024;

/// What a folded piece is: Ctrl-T unfolds only thinking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FoldedKind {
    /// A call's result or a long prompt: Ctrl-O unfolds it.
    Text,
    /// Thought the model did not show: Ctrl-T unfolds it too.
    Thinking,
}

/// A piece of the transcript shown folded.
#[derive(Debug, Clone)]
pub(super) struct Folded {
    /// What it is (`bash make test`, `thinking`).
    pub title: String,
    /// It, whole.
    pub text: String,
    /// Thinking (Ctrl-T unfolds the latest).
    pub thinking: bool,
}

/// The folded pieces, newest last.
#[derive(Debug, Default)]
pub(super) struct FoldedPieces(VecDeque<Folded>);

impl FoldedPieces {
    /// Keeps `text`, folded under `title`, for Ctrl-O (and Ctrl-T when it is thinking).
    pub fn keep(&mut self, title: String, text: &str, kind: FoldedKind) {
        let mut end = text.len().min(KEPT_BYTES);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        if self.0.len() == KEPT {
            self.0.pop_front();
        }
        self.0.push_back(Folded {
            title,
            text: text[..end].to_string(),
            thinking: kind == FoldedKind::Thinking,
        });
    }

    /// Takes the latest piece (the latest thinking with `thinking`).
    fn take_last(&mut self, thinking: bool) -> Option<Folded> {
        let at = self
            .0
            .iter()
            .rposition(|piece| !thinking || piece.thinking)?;
        self.0.remove(at)
    }
}

impl App {
    /// Ctrl-O: the latest folded piece, written out whole.
    pub(super) fn unfold_last(&mut self) {
        match self.folded.take_last(false) {
            Some(piece) => self.unfold(&piece),
            None => self.notice = Some("nothing folded to show (Ctrl-O)".into()),
        }
    }

    /// Ctrl-T turning thinking on: the latest folded thinking, written out whole.
    pub(super) fn unfold_thinking(&mut self) {
        if let Some(piece) = self.folded.take_last(true) {
            self.unfold(&piece);
        }
    }

    fn unfold(&mut self, piece: &Folded) {
        let theme = self.theme;
        let count = piece.text.lines().count();
        self.committed.push(Line::raw(""));
        self.committed.push(Line::styled(
            format!(
                "⎿ {} in full ({count} line{}):",
                piece.title,
                if count == 1 { "" } else { "s" }
            ),
            theme.bold(),
        ));
        for line in piece.text.lines() {
            self.committed.push(Line::styled(
                format!("  {}", crate::sanitize::output_line(line)),
                theme.dim(),
            ));
        }
    }
}
