//! The output budget every tool result passes: over the limit, the full text is
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
    /// Most bytes the session's saved outputs may take before the oldest are removed.
    session_cap: u64,
    /// Saved outputs removed to stay under the cap and not yet told to the model.
    dropped: Arc<AtomicU64>,
}

/// Most bytes one session's saved outputs take: past it, the oldest are removed before the
/// next is saved (one more output, at most 64 MiB, may overshoot it until then).
pub const SESSION_SAVED_CAP: u64 = 512 * 1024 * 1024;

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
            session_cap: SESSION_SAVED_CAP,
            dropped: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Keeps the session's saved outputs under `bytes` instead of [`SESSION_SAVED_CAP`].
    pub fn with_session_cap(mut self, bytes: u64) -> Self {
        self.session_cap = bytes;
        self
    }

    /// A note for the model when saved outputs were removed since it was last told (their
    /// paths, quoted in earlier results, no longer open).
    pub fn take_dropped_note(&self) -> Option<String> {
        let dropped = self.dropped.swap(0, Ordering::Relaxed);
        (dropped > 0).then(|| {
            format!(
                "[note: {dropped} older saved output(s) were removed to keep this session's \
                 saved outputs under {} MiB]",
                self.session_cap / (1024 * 1024)
            )
        })
    }

    /// Removes the oldest saved outputs (lowest numbers) until the folder holds at most the
    /// session cap.
    fn prune(&self, dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut files: Vec<(String, u64)> = entries
            .flatten()
            .filter_map(|e| {
                let meta = e.metadata().ok().filter(std::fs::Metadata::is_file)?;
                Some((e.file_name().to_string_lossy().into_owned(), meta.len()))
            })
            .collect();
        let mut total: u64 = files.iter().map(|(_, len)| len).sum();
        if total <= self.session_cap {
            return;
        }
        files.sort();
        for (name, len) in files {
            if total <= self.session_cap {
                break;
            }
            if std::fs::remove_file(dir.join(&name)).is_ok() {
                total = total.saturating_sub(len);
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
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
        let mut marker = format!(
            "\n[... {} bytes omitted{where_} ...]\n",
            tail_start - head_end
        );
        if let Some(note) = self.take_dropped_note() {
            marker.push_str(&note);
            marker.push('\n');
        }
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
        if let Err(e) = rein_fs::private::create_private_dir_all(dir) {
            return Some(Err(e));
        }
        self.prune(dir);
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
        let written = rein_fs::private::private_options()
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
    fn past_the_session_cap_the_oldest_saved_outputs_go_first_and_the_model_is_told() {
        let dir = tempfile::tempdir().unwrap();
        let budget = OutputBudget::new(500, Some(dir.path().to_path_buf())).with_session_cap(5_000);
        for _ in 0..4 {
            let out = budget.apply("bash", ToolOutput::ok(long_text(300)));
            assert!(out.text.contains("is saved in"), "{}", out.text);
        }
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let total: u64 = names
            .iter()
            .map(|n| std::fs::metadata(dir.path().join(n)).unwrap().len())
            .sum();
        // Each output is a few KB: the newest stays, the oldest went.
        assert!(!names.contains(&"0001-bash.txt".to_string()), "{names:?}");
        assert!(names.contains(&"0004-bash.txt".to_string()), "{names:?}");
        assert!(total <= 5_000 + 4_000, "{total}");
        // The removal was said once, in the result that caused it.
        let out = budget.apply("bash", ToolOutput::ok(long_text(300)));
        assert!(
            out.text.contains("older saved output(s) were removed"),
            "{}",
            out.text
        );
        assert!(budget.take_dropped_note().is_none());
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
