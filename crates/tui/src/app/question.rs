//! The model's questions (`ask_user_question`, `request_user_input`) in the live area: one at
//! a time, its options numbered, "Other" last for an answer in the user's own words; arrows
//! or numbers pick, Space ticks options of a question that takes several, Esc declines.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::{Line, Span};
use rein_engine::questions::{Answer, Question};
use tokio::sync::oneshot;

use crate::theme::Theme;

/// Where the answers go.
pub type AnswersReply = oneshot::Sender<Option<Vec<Answer>>>;

/// Questions waiting for the user's answers.
#[derive(Debug)]
pub struct QuestionDialog {
    questions: Vec<Question>,
    reply: Option<AnswersReply>,
    /// The question shown.
    current: usize,
    /// The row selected: an option, or "Other" after them.
    selected: usize,
    /// The options ticked (a question that takes several).
    ticked: Vec<bool>,
    /// The answer being typed for "Other".
    other: Option<String>,
    answers: Vec<Answer>,
}

/// Whether the dialog is still open after a key.
#[derive(Debug, PartialEq, Eq)]
pub enum DialogOutcome {
    /// Still asking.
    Open,
    /// Answered or declined; the dialog closes.
    Closed,
}

impl QuestionDialog {
    /// A dialog for `questions`; the answers go to `reply`.
    pub fn new(questions: Vec<Question>, reply: AnswersReply) -> Self {
        let ticked = vec![false; questions.first().map_or(0, |q| q.options.len())];
        Self {
            questions,
            reply: Some(reply),
            current: 0,
            selected: 0,
            ticked,
            other: None,
            answers: Vec::new(),
        }
    }

    fn question(&self) -> &Question {
        &self.questions[self.current]
    }

    /// The row of "Other".
    fn other_row(&self) -> usize {
        self.question().options.len()
    }

    /// Handles a key.
    pub fn key(&mut self, key: KeyEvent) -> DialogOutcome {
        if let Some(text) = self.other.as_mut() {
            match key.code {
                KeyCode::Enter if !text.trim().is_empty() => {
                    let typed = text.trim().to_string();
                    let mut answer = self.ticked_labels();
                    answer.push(typed);
                    return self.answered(answer);
                }
                KeyCode::Esc => self.other = None,
                KeyCode::Backspace => {
                    text.pop();
                }
                KeyCode::Char(c) => text.push(c),
                _ => {}
            }
            return DialogOutcome::Open;
        }
        let rows = self.other_row() + 1;
        let multi = self.question().multi_select;
        match key.code {
            KeyCode::Esc => return self.close(None),
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => self.selected = (self.selected + 1).min(rows - 1),
            KeyCode::Char(c) if c.is_ascii_digit() => {
                let n = c.to_digit(10).unwrap_or(0) as usize;
                if (1..=rows).contains(&n) {
                    self.selected = n - 1;
                    if !multi || self.selected == self.other_row() {
                        return self.choose();
                    }
                    self.ticked[self.selected] = !self.ticked[self.selected];
                }
            }
            KeyCode::Char(' ') if multi && self.selected < self.other_row() => {
                self.ticked[self.selected] = !self.ticked[self.selected];
            }
            KeyCode::Enter => return self.choose(),
            _ => {}
        }
        DialogOutcome::Open
    }

    /// Enter on the selected row: "Other" starts typing; a question that takes several
    /// answers with the ticked options (the selected one when none is).
    fn choose(&mut self) -> DialogOutcome {
        if self.selected == self.other_row() {
            self.other = Some(String::new());
            return DialogOutcome::Open;
        }
        let mut answer = self.ticked_labels();
        if answer.is_empty() {
            answer.push(self.question().options[self.selected].label.clone());
        }
        self.answered(answer)
    }

    fn ticked_labels(&self) -> Vec<String> {
        if !self.question().multi_select {
            return Vec::new();
        }
        self.question()
            .options
            .iter()
            .zip(&self.ticked)
            .filter(|(_, ticked)| **ticked)
            .map(|(o, _)| o.label.clone())
            .collect()
    }

    /// `answer` for the current question; the next one, or the answers sent.
    fn answered(&mut self, answer: Answer) -> DialogOutcome {
        self.answers.push(answer);
        self.current += 1;
        if self.current == self.questions.len() {
            let answers = std::mem::take(&mut self.answers);
            return self.close(Some(answers));
        }
        self.selected = 0;
        self.other = None;
        self.ticked = vec![false; self.question().options.len()];
        DialogOutcome::Open
    }

    fn close(&mut self, answers: Option<Vec<Answer>>) -> DialogOutcome {
        if let Some(reply) = self.reply.take() {
            let _ = reply.send(answers);
        }
        DialogOutcome::Closed
    }

    /// The dialog's rows (wrapped by the caller).
    pub fn view(&self, theme: Theme) -> Vec<Line<'static>> {
        let clean = |s: &str| crate::sanitize::clean(s).into_owned();
        let question = self.question();
        let count = if self.questions.len() > 1 {
            format!("  ({} of {})", self.current + 1, self.questions.len())
        } else {
            String::new()
        };
        let mut lines = vec![Line::from(vec![
            Span::styled("? ", theme.warning().patch(theme.bold())),
            Span::styled(format!("[{}] ", clean(&question.header)), theme.accent()),
            Span::styled(clean(&question.question), theme.bold()),
            Span::styled(count, theme.dim()),
        ])];
        for (n, option) in question.options.iter().enumerate() {
            let tick = match (question.multi_select, self.ticked.get(n)) {
                (true, Some(true)) => "[x] ",
                (true, _) => "[ ] ",
                (false, _) => "",
            };
            let mut spans = vec![self.lead(n, theme)];
            spans.push(Span::styled(
                format!("{}. {tick}{}", n + 1, clean(&option.label)),
                self.row_style(n, theme),
            ));
            if !option.description.trim().is_empty() {
                spans.push(Span::styled(
                    format!(" — {}", clean(&option.description)),
                    theme.dim(),
                ));
            }
            lines.push(Line::from(spans));
        }
        let other = self.other_row();
        let text = match &self.other {
            Some(typed) => format!("{}. Other: {}▏", other + 1, clean(typed)),
            None => format!("{}. Other (answer in your own words)", other + 1),
        };
        lines.push(Line::from(vec![
            self.lead(other, theme),
            Span::styled(text, self.row_style(other, theme)),
        ]));
        let hint = match (&self.other, question.multi_select) {
            (Some(_), _) => "type your answer · Enter sends · Esc goes back",
            (None, true) => "↑↓ move · Space or a number ticks · Enter confirms · Esc declines",
            (None, false) => "↑↓ move · Enter or a number picks · Esc declines",
        };
        lines.push(Line::styled(format!("  {hint}"), theme.dim()));
        lines
    }

    fn lead(&self, row: usize, theme: Theme) -> Span<'static> {
        if row == self.selected {
            Span::styled("› ", theme.accent().patch(theme.bold()))
        } else {
            Span::raw("  ")
        }
    }

    fn row_style(&self, row: usize, theme: Theme) -> ratatui::style::Style {
        if row == self.selected {
            theme.accent().patch(theme.bold())
        } else {
            ratatui::style::Style::new()
        }
    }
}

impl Drop for QuestionDialog {
    fn drop(&mut self) {
        // Closed without answers (the UI quit): declined.
        self.close(None);
    }
}

#[cfg(test)]
#[path = "question_tests.rs"]
mod tests;
