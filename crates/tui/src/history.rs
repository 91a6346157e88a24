//! Prompt history, persisted per workspace: one JSON string per line, newest last.

use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rein_fs::{ReadRefusal, open_regular, read_capped};

/// Entries kept in memory and offered by Up/Down.
const KEEP: usize = 500;

/// Most of the history file read, from its end: [`KEEP`] prompts rarely take a tenth of it,
/// and the file itself only grows.
const HISTORY_TAIL_BYTES: u64 = 4 * 1024 * 1024;

/// The prompts sent in this workspace, with a cursor for browsing them.
#[derive(Debug, Default)]
pub struct PromptHistory {
    entries: Vec<String>,
    file: Option<PathBuf>,
    /// Index of the entry shown while browsing; `None` when editing a new prompt.
    cursor: Option<usize>,
    /// What was being typed when browsing started, restored on the way back down.
    draft: String,
    /// Why the stored history was not read, if it was not.
    warning: Option<String>,
}

impl PromptHistory {
    /// The history stored in `file` (missing or unreadable: empty), appended to on each submit.
    /// Only its last [`HISTORY_TAIL_BYTES`] are read; anything but a regular file is skipped,
    /// with a warning in [`PromptHistory::warning`].
    pub fn load(file: Option<PathBuf>) -> Self {
        let (entries, warning) = match file.as_deref().map(read_tail) {
            Some(Ok(text)) => {
                let all: Vec<String> = text
                    .lines()
                    .filter_map(|line| serde_json::from_str::<String>(line).ok())
                    .collect();
                (all[all.len().saturating_sub(KEEP)..].to_vec(), None)
            }
            Some(Err(refused)) => (Vec::new(), Some(format!("history not read: {refused}"))),
            None => (Vec::new(), None),
        };
        Self {
            entries,
            file,
            cursor: None,
            draft: String::new(),
            warning,
        }
    }

    /// Why the stored history was not read, if it was not.
    pub fn warning(&self) -> Option<&str> {
        self.warning.as_deref()
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

/// The last [`HISTORY_TAIL_BYTES`] of the history file, from its first whole line; empty when
/// there is none.
fn read_tail(path: &Path) -> Result<String, ReadRefusal> {
    let Some(mut file) = open_regular(path, u64::MAX)? else {
        return Ok(String::new());
    };
    let io_error = |source| ReadRefusal::Io {
        path: path.to_path_buf(),
        source,
    };
    let len = file.metadata().map_err(io_error)?.len();
    let start = len.saturating_sub(HISTORY_TAIL_BYTES);
    file.seek(SeekFrom::Start(start)).map_err(io_error)?;
    let bytes = read_capped(file, HISTORY_TAIL_BYTES, path)?;
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if start > 0 {
        // The first line was cut by the seek.
        let first = text.find('\n').map_or(text.len(), |n| n + 1);
        text.drain(..first);
    }
    Ok(text)
}

fn append_line(path: &std::path::Path, prompt: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        rein_fs::private::create_private_dir_all(dir)?;
    }
    let mut file = rein_fs::private::private_options()
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
        // Prompts are the user's: only they may read them.
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir.path().join("h")), 0o700);
        assert_eq!(mode(&dir.path().join("h/history.jsonl")), 0o600);
    }

    #[test]
    fn a_history_that_is_not_a_regular_file_is_skipped_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("history.jsonl");
        nix::unistd::mkfifo(&file, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let history = PromptHistory::load(Some(file.clone()));
        assert_eq!(
            history.warning(),
            Some(
                format!(
                    "history not read: {} is a FIFO, not a regular file",
                    file.display()
                )
                .as_str()
            )
        );
    }

    #[test]
    fn only_the_tail_of_a_long_history_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("history.jsonl");
        let line = format!("{}\n", serde_json::to_string(&"x".repeat(1000)).unwrap());
        let mut text = line.repeat(5_000); // ~5 MB, past the tail read
        text.push_str("\"last\"\n");
        std::fs::write(&file, text).unwrap();
        let mut history = PromptHistory::load(Some(file));
        assert_eq!(history.warning(), None);
        assert_eq!(history.older(""), Some("last"));
    }
}
