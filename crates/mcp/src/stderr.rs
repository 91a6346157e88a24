//! The last lines a stdio server wrote on its standard error, said when it fails to start
//! or stops during a call.

use std::sync::Arc;

/// The last lines a stdio server wrote on its standard error.
#[derive(Clone, Default)]
pub(crate) struct StderrTail(Arc<std::sync::Mutex<std::collections::VecDeque<String>>>);

/// Lines of a server's standard error kept.
const STDERR_LINES: usize = 20;
/// Longest stderr line kept.
const STDERR_LINE_CHARS: usize = 300;

impl StderrTail {
    /// Reads `stderr` to its end in the background, keeping the last lines.
    pub(crate) fn follow(
        &self,
        stderr: tokio::process::ChildStderr,
    ) -> tokio::task::JoinHandle<()> {
        use tokio::io::AsyncBufReadExt;
        let tail = self.clone();
        tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let line: String = line.trim_end().chars().take(STDERR_LINE_CHARS).collect();
                if line.is_empty() {
                    continue;
                }
                let mut kept = tail.0.lock().unwrap_or_else(|p| p.into_inner());
                if kept.len() == STDERR_LINES {
                    kept.pop_front();
                }
                kept.push_back(line);
            }
        })
    }

    /// ` (its stderr: a | b | c)` with the last three lines, or nothing.
    pub(crate) fn said(&self) -> String {
        let kept = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if kept.is_empty() {
            return String::new();
        }
        let last: Vec<&str> = kept
            .iter()
            .rev()
            .take(3)
            .rev()
            .map(String::as_str)
            .collect();
        format!(" (its stderr: {})", last.join(" | "))
    }
}
