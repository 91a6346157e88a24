//! The output budget every tool result passes (DESIGN.md §3): over the limit, the full text is
//! saved under the session's output folder and the model sees the head, the tail, the sizes
//! and the saved path, which it can page through with `read_file`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::output::head_tail_cut;
use crate::{DEFAULT_OUTPUT_LIMIT, ToolOutput};

/// The size limit for one tool result and where over-long results are saved. Cheap to clone;
/// clones share the file counter.
#[derive(Debug, Clone)]
pub struct OutputBudget {
    limit: usize,
    save_dir: Option<PathBuf>,
    saved: Arc<AtomicU64>,
}

impl Default for OutputBudget {
    fn default() -> Self {
        Self::new(DEFAULT_OUTPUT_LIMIT, None)
    }
}

impl OutputBudget {
    /// At most `limit` bytes per result (at least 200); full outputs saved under `save_dir`
    /// (created on first use) when given, otherwise only their size is stated.
    pub fn new(limit: usize, save_dir: Option<PathBuf>) -> Self {
        Self {
            limit: limit.max(200),
            save_dir,
            saved: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Bytes a result may take.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The folder over-long outputs are saved in, if any.
    pub fn save_dir(&self) -> Option<&Path> {
        self.save_dir.as_deref()
    }

    /// `output` unchanged when it fits; otherwise its head and tail around a marker giving the
    /// sizes and the path of the saved full text.
    pub fn apply(&self, tool: &str, output: ToolOutput) -> ToolOutput {
        if output.text.len() <= self.limit {
            return output;
        }
        let Some((head_end, tail_start)) = head_tail_cut(&output.text, self.content_room()) else {
            return output;
        };
        let text = &output.text;
        let where_ = match self.save(tool, text.as_bytes()) {
            Some(Ok(path)) => format!(
                "; the full output ({} bytes, {} lines) is saved in {}: read it with read_file \
                 (offset/limit) or grep",
                text.len(),
                text.lines().count(),
                path.display()
            ),
            Some(Err(e)) => format!(" (the full output could not be saved: {e})"),
            None => format!(" of {} bytes", text.len()),
        };
        let marker = format!(
            "\n[... {} bytes omitted{where_} ...]\n",
            tail_start - head_end
        );
        let mut out = String::with_capacity(self.limit + marker.len());
        out.push_str(&text[..head_end]);
        out.push_str(&marker);
        out.push_str(&text[tail_start..]);
        ToolOutput {
            text: out,
            ..output
        }
    }

    /// A fresh file under the save folder for `tool`'s full output, the folder created;
    /// `None` without a save folder. Numbers already taken (a resumed session's earlier
    /// outputs) are skipped, so nothing saved is replaced.
    pub fn new_save_path(&self, tool: &str) -> Option<std::io::Result<PathBuf>> {
        let dir = self.save_dir.as_ref()?;
        if let Err(e) = std::fs::create_dir_all(dir) {
            return Some(Err(e));
        }
        let name: String = tool
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        loop {
            let n = self.saved.fetch_add(1, Ordering::Relaxed) + 1;
            let path = dir.join(format!("{n:04}-{name}.txt"));
            if std::fs::symlink_metadata(&path).is_err() {
                return Some(Ok(path));
            }
        }
    }

    fn save(&self, tool: &str, bytes: &[u8]) -> Option<std::io::Result<PathBuf>> {
        let path = match self.new_save_path(tool)? {
            Ok(path) => path,
            Err(e) => return Some(Err(e)),
        };
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .and_then(|mut file| std::io::Write::write_all(&mut file, bytes));
        Some(written.map(|()| path))
    }

    /// Bytes of head and tail a result keeps once cut: what the marker (≈ 250 bytes with a
    /// long path) leaves of the limit. Tools that cut their own output aim for this.
    pub fn content_room(&self) -> usize {
        self.limit.saturating_sub(300).max(100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn long_text(lines: usize) -> String {
        (1..=lines).map(|n| format!("line {n}\n")).collect()
    }

    #[test]
    fn output_within_the_limit_is_unchanged() {
        let budget = OutputBudget::new(1_000, None);
        let out = ToolOutput::ok("short");
        assert_eq!(budget.apply("grep", out.clone()), out);
    }

    #[test]
    fn over_the_limit_the_full_text_is_saved_and_head_and_tail_kept() {
        let dir = tempfile::tempdir().unwrap();
        let budget = OutputBudget::new(2_000, Some(dir.path().join("outputs")));
        let text = long_text(5_000);
        let out = budget.apply("grep", ToolOutput::error(text.clone()));
        assert!(out.is_error, "the error flag survives");
        assert!(out.text.len() <= 2_000, "{}", out.text.len());
        assert!(out.text.starts_with("line 1\nline 2\n"));
        assert!(out.text.ends_with("line 4999\nline 5000\n"));
        let saved = dir.path().join("outputs/0001-grep.txt");
        assert!(
            out.text.contains(&format!("saved in {}", saved.display())),
            "{}",
            out.text
        );
        assert!(
            out.text
                .contains(&format!("({} bytes, 5000 lines)", text.len()))
        );
        assert_eq!(std::fs::read_to_string(saved).unwrap(), text);
    }

    #[test]
    fn without_a_save_folder_the_size_is_stated() {
        let budget = OutputBudget::new(500, None);
        let text = long_text(1_000);
        let out = budget.apply("bash", ToolOutput::ok(text.clone()));
        assert!(out.text.len() <= 500);
        assert!(
            out.text
                .contains(&format!("bytes omitted of {} bytes", text.len()))
        );
    }

    #[test]
    fn save_files_are_numbered_and_named_after_the_tool() {
        let dir = tempfile::tempdir().unwrap();
        let budget = OutputBudget::new(500, Some(dir.path().to_path_buf()));
        let first = budget.new_save_path("mcp__git/log").unwrap().unwrap();
        let second = budget.clone().new_save_path("bash").unwrap().unwrap();
        assert_eq!(first.file_name().unwrap(), "0001-mcp__git-log.txt");
        assert_eq!(second.file_name().unwrap(), "0002-bash.txt");
    }

    #[test]
    fn a_resumed_session_saves_beside_its_earlier_outputs_without_replacing_them() {
        let dir = tempfile::tempdir().unwrap();
        let first = OutputBudget::new(200, Some(dir.path().to_path_buf()));
        let earlier = first.new_save_path("bash").unwrap().unwrap();
        std::fs::write(&earlier, "earlier").unwrap();
        // Resumed: a new budget over the same folder counts from the start again.
        let resumed = OutputBudget::new(200, Some(dir.path().to_path_buf()));
        let later = resumed.new_save_path("bash").unwrap().unwrap();
        assert_ne!(later, earlier);
        assert_eq!(std::fs::read_to_string(&earlier).unwrap(), "earlier");
    }
}
