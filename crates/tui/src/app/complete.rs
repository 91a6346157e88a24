//! Completion under the input: slash commands while the first word is typed, and workspace
//! paths for an `@` word (fuzzy, over the host's gitignore-aware index of the workspace,
//! asked for the first time an `@` is typed). Tab or Enter takes the selection; an `@` path
//! taken does not send the prompt.

use std::cell::RefCell;
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent};
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher};
use ratatui::text::{Line, Span};

use super::{Action, App};

/// Completions listed at once.
const COMPLETION_ROWS: usize = 6;
/// Most paths an `@` word offers.
const MAX_PATHS: usize = 50;

/// One completion offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Completion {
    /// What the list shows first (`/compact`, `@src/lib.rs`).
    label: String,
    /// What it shows after (a command's description).
    detail: String,
    /// The input once it is taken.
    replacement: String,
    /// Taking it also sends the prompt with Enter (a command); an `@` path does not.
    sends: bool,
}

/// The workspace's paths, once the host gave them, and the last `@` query's matches.
#[derive(Debug, Default)]
pub(super) struct PathIndex {
    /// The paths, relative to the workspace (folders end with `/`); `None` until asked.
    paths: Option<Arc<Vec<String>>>,
    /// Whether the runner was asked for them.
    asked: bool,
    /// (query, matches) of the last `@` word.
    memo: RefCell<Option<(String, Vec<String>)>>,
}

impl App {
    /// The workspace's paths for `@` completion (the host's index).
    pub fn set_path_index(&mut self, paths: Vec<String>) {
        self.paths.paths = Some(Arc::new(paths));
        self.paths.memo.replace(None);
    }

    /// What the input offers to complete now.
    pub(super) fn completions(&self) -> Vec<Completion> {
        let text = self.input.text();
        if let Some((start, query)) = at_word(&text) {
            return self
                .path_matches(query)
                .into_iter()
                .map(|path| Completion {
                    label: format!("@{path}"),
                    detail: String::new(),
                    replacement: format!("{}@{path} ", &text[..start]),
                    sends: false,
                })
                .collect();
        }
        self.commands
            .completions(&text)
            .into_iter()
            .map(|c| Completion {
                label: format!("/{}", c.name),
                detail: c.description.clone(),
                replacement: format!("/{}", c.name),
                sends: true,
            })
            .collect()
    }

    /// The indexed paths matching `query` fuzzily, best first.
    fn path_matches(&self, query: &str) -> Vec<String> {
        let Some(paths) = &self.paths.paths else {
            return Vec::new();
        };
        if let Some((asked, found)) = &*self.paths.memo.borrow()
            && asked == query
        {
            return found.clone();
        }
        let found: Vec<String> = if query.is_empty() {
            paths.iter().take(MAX_PATHS).cloned().collect()
        } else {
            let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
            Pattern::parse(query, CaseMatching::Smart, Normalization::Smart)
                .match_list(paths.iter(), &mut matcher)
                .into_iter()
                .take(MAX_PATHS)
                .map(|(path, _)| path.clone())
                .collect()
        };
        self.paths
            .memo
            .replace(Some((query.to_string(), found.clone())));
        found
    }

    /// After the input changed: the runner is asked for the path index the first time an
    /// `@` word is typed.
    pub(super) fn after_edit(&mut self) -> Vec<Action> {
        self.completion = 0;
        self.completion_closed = false;
        if !self.paths.asked && at_word(&self.input.text()).is_some() {
            self.paths.asked = true;
            return vec![Action::IndexPaths];
        }
        Vec::new()
    }

    pub(super) fn completion_visible(&self) -> bool {
        // A recalled `/command` leaves Up and Down to the history.
        !self.completion_closed && !self.input.browsing_history() && !self.completions().is_empty()
    }

    /// A key moving in the completion list or taking its selection; whether the key was used
    /// up (Enter on a command completes it and still sends the prompt).
    pub(super) fn completion_key(&mut self, key: KeyEvent) -> bool {
        let completions = self.completions();
        let count = completions.len();
        let selected = completions.get(self.completion.min(count.saturating_sub(1)));
        match key.code {
            KeyCode::Up => self.completion = self.completion.saturating_sub(1),
            KeyCode::Down => self.completion = (self.completion + 1).min(count.saturating_sub(1)),
            KeyCode::Tab => self.take(selected.cloned()),
            KeyCode::Enter => {
                let sends = selected.is_none_or(|c| c.sends);
                self.take(selected.cloned());
                return !sends;
            }
            _ => return false,
        }
        true
    }

    fn take(&mut self, choice: Option<Completion>) {
        if let Some(choice) = choice {
            self.input.set_text(&choice.replacement);
            if !choice.sends {
                // A path taken: the list closes until the next edit.
                self.completion_closed = true;
            }
        }
        self.completion = 0;
    }

    /// The completions, the selected one highlighted, a window of them at a time.
    pub(super) fn completion_lines(&self, lines: &mut Vec<Line<'static>>) {
        let theme = self.theme;
        let completions = self.completions();
        let selected = self.completion.min(completions.len().saturating_sub(1));
        let first = selected.saturating_sub(COMPLETION_ROWS - 1);
        for (n, completion) in completions
            .iter()
            .enumerate()
            .skip(first)
            .take(COMPLETION_ROWS)
        {
            let style = if n == selected {
                theme.accent().patch(theme.bold())
            } else {
                theme.dim()
            };
            let label = crate::sanitize::clean(&completion.label).into_owned();
            lines.push(Line::from(vec![
                Span::styled(format!("  {label:<15}"), style),
                Span::styled(completion.detail.clone(), theme.dim()),
            ]));
        }
        // A longer list says so, and where the rest is.
        if completions.len() > COMPLETION_ROWS {
            let below = completions.len() - (first + COMPLETION_ROWS).min(completions.len());
            let above = if first > 0 {
                format!(", {first} above")
            } else {
                String::new()
            };
            let below = if below > 0 {
                format!(", {below} below")
            } else {
                String::new()
            };
            lines.push(Line::styled(
                format!(
                    "  {COMPLETION_ROWS} of {} (↑↓ scroll{above}{below})",
                    completions.len()
                ),
                theme.dim(),
            ));
        }
    }
}

/// The `@` word the input ends with: where it starts, and what follows the `@`.
fn at_word(text: &str) -> Option<(usize, &str)> {
    let start = text.rfind(char::is_whitespace).map_or(0, |i| i + 1);
    let word = &text[start..];
    word.strip_prefix('@').map(|query| (start, query))
}

#[cfg(test)]
#[path = "complete_tests.rs"]
mod tests;
