//! Prompt history, persisted per workspace: one JSON string per line, newest last.

use std::io::Write;
use std::path::PathBuf;

/// Entries kept in memory and offered by Up/Down.
const KEEP: usize = 500;

/// The prompts sent in this workspace, with a cursor for browsing them.
#[derive(Debug, Default)]
pub struct PromptHistory {
    entries: Vec<String>,
    file: Option<PathBuf>,
    /// Index of the entry shown while browsing; `None` when editing a new prompt.
    cursor: Option<usize>,
    /// What was being typed when browsing started, restored on the way back down.
    draft: String,
}

impl PromptHistory {
    /// The history stored in `file` (missing or unreadable: empty), appended to on each submit.
    pub fn load(file: Option<PathBuf>) -> Self {
        let entries = file
            .as_ref()
            .and_then(|path| std::fs::read_to_string(path).ok())
            .map(|text| {
                let all: Vec<String> = text
                    .lines()
                    .filter_map(|line| serde_json::from_str::<String>(line).ok())
                    .collect();
                all[all.len().saturating_sub(KEEP)..].to_vec()
            })
            .unwrap_or_default();
        Self {
            entries,
            file,
            cursor: None,
            draft: String::new(),
        }
    }

    /// Records a sent prompt (not twice in a row) and stops browsing.
    pub fn add(&mut self, prompt: &str) {
        self.cursor = None;
        if prompt.trim().is_empty() || self.entries.last().is_some_and(|last| last == prompt) {
            return;
        }
        self.entries.push(prompt.to_string());
        if self.entries.len() > KEEP * 2 {
            self.entries.drain(..KEEP);
        }
        if let Some(path) = &self.file {
            // Losing a history line is not worth interrupting the user for.
            let _ = append_line(path, prompt);
        }
    }

    /// The entry before the one shown (Up), remembering `current` as the draft.
    pub fn older(&mut self, current: &str) -> Option<&str> {
        let next = match self.cursor {
            None if self.entries.is_empty() => return None,
            None => {
                self.draft = current.to_string();
                self.entries.len() - 1
            }
            Some(0) => return None,
            Some(n) => n - 1,
        };
        self.cursor = Some(next);
        self.entries.get(next).map(String::as_str)
    }

    /// The entry after the one shown (Down); past the newest, the draft again.
    pub fn newer(&mut self) -> Option<String> {
        let n = self.cursor?;
        if n + 1 < self.entries.len() {
            self.cursor = Some(n + 1);
            return self.entries.get(n + 1).cloned();
        }
        self.cursor = None;
        Some(std::mem::take(&mut self.draft))
    }

    /// Whether Up/Down are browsing the history.
    pub fn browsing(&self) -> bool {
        self.cursor.is_some()
    }
}

fn append_line(path: &std::path::Path, prompt: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    let line = serde_json::to_string(prompt).map_err(std::io::Error::other)?;
    writeln!(file, "{line}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn history_survives_a_restart_and_browses_back_to_the_draft() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("h/history.jsonl");
        let mut history = PromptHistory::load(Some(file.clone()));
        history.add("first");
        history.add("second\nline");
        history.add("second\nline");
        let mut history = PromptHistory::load(Some(file));
        assert_eq!(history.older("draft"), Some("second\nline"));
        assert_eq!(history.older(""), Some("first"));
        assert_eq!(history.older(""), None);
        assert_eq!(history.newer().as_deref(), Some("second\nline"));
        assert_eq!(history.newer().as_deref(), Some("draft"));
        assert!(!history.browsing());
    }
}
