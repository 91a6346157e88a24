//! `/status` and `/context`: what the session is running with, and what fills the window.

use ratatui::text::{Line, Span};
use rein_engine::{ContextReport, SessionStatus};

use super::App;
use super::notices::thousands;

/// Most lines `/tasks ID` shows of a shell's output.
const TASK_LINES: usize = 40;

/// Width of the `/context` bar, in cells.
const BAR_CELLS: u64 = 40;

impl App {
    /// `/status`: rein's version, the session's model, mode and effort, then what the host
    /// adds (provider, base URL, workspace and trust, sandbox, servers).
    pub fn show_status(&mut self, status: &SessionStatus, about: &[(String, String)]) {
        let theme = self.theme;
        let effort = status.effort.map_or("the model's own", |e| e.name());
        let mut rows = vec![
            ("version".to_string(), env!("CARGO_PKG_VERSION").to_string()),
            ("session".to_string(), status.session_id.clone()),
            ("model".to_string(), status.model.clone()),
            ("effort".to_string(), effort.to_string()),
            ("mode".to_string(), status.mode.name().to_string()),
        ];
        rows.extend(about.iter().cloned());
        let mut lines = vec![Line::styled("  Status:", theme.bold())];
        for (label, value) in rows {
            lines.push(Line::from(vec![
                Span::styled(format!("    {label:<12}"), theme.dim()),
                Span::raw(crate::sanitize::clean(&value).into_owned()),
            ]));
        }
        self.commit(lines);
    }

    /// `/context`: a bar of the window and a table of what fills it.
    pub fn show_context(&mut self, report: &ContextReport) {
        let theme = self.theme;
        let window = report.window.max(1);
        let parts = [
            ("system prompt", report.system, '█'),
            ("tool definitions", report.tools, '▓'),
            ("conversation", report.conversation, '▒'),
            ("free", report.free(), '░'),
        ];
        let bar: String = parts
            .iter()
            .flat_map(|(_, tokens, mark)| {
                let cells = (tokens * BAR_CELLS).div_ceil(window).min(BAR_CELLS);
                std::iter::repeat_n(*mark, cells as usize)
            })
            .take(BAR_CELLS as usize)
            .collect();
        let used = report.window.saturating_sub(report.free());
        let mut lines = vec![
            Line::styled(
                format!(
                    "  Context: ~{} of {} tokens ({}%)",
                    thousands(used),
                    thousands(report.window),
                    used * 100 / window
                ),
                theme.bold(),
            ),
            Line::raw(format!("    {bar}")),
        ];
        for (label, tokens, mark) in parts {
            lines.push(Line::raw(format!(
                "    {mark} {label:<17}{:>8}  {:>3}%",
                thousands(tokens),
                tokens * 100 / window
            )));
        }
        self.commit(lines);
    }

    /// `/config`, `/hooks`, `/agents`: the host's lines under the listing's heading.
    pub fn show_listing(&mut self, what: crate::Listing, lines: &[String]) {
        if lines.is_empty() {
            self.info(format!("{}: none", what.title()));
            return;
        }
        let mut shown = vec![Line::styled(
            format!("  {}:", what.title()),
            self.theme.bold(),
        )];
        for line in lines {
            shown.push(Line::raw(format!("    {}", crate::sanitize::clean(line))));
        }
        self.commit(shown);
    }

    /// `/tasks ID`: the end of what a background shell printed (its last [`TASK_LINES`]
    /// lines).
    pub fn show_task_output(&mut self, id: &str, output: &str) {
        let lines: Vec<&str> = output.lines().collect();
        let from = lines.len().saturating_sub(TASK_LINES);
        let mut shown = vec![Line::styled(
            format!(
                "  Output of {}{}:",
                crate::sanitize::clean(id),
                if from > 0 {
                    format!(" (last {TASK_LINES} lines)")
                } else {
                    String::new()
                }
            ),
            self.theme.bold(),
        )];
        if lines.is_empty() {
            shown.push(Line::styled("    (nothing yet)", self.theme.dim()));
        }
        for line in &lines[from..] {
            shown.push(Line::raw(format!("    {}", crate::sanitize::clean(line))));
        }
        self.commit(shown);
    }

    /// `/todos`: the task board as it stands (id, status, owner, open blockers).
    pub fn show_todos(&mut self) {
        use rein_protocol::TaskStatus;
        if self.todos.is_empty() {
            self.info("no open tasks".to_string());
            return;
        }
        let mut lines = vec![Line::styled("  Tasks:", self.theme.bold())];
        for task in &self.todos {
            let mark = match task.status {
                TaskStatus::Completed => "✓",
                TaskStatus::InProgress => "▸",
                TaskStatus::Pending => "○",
            };
            let mut line = format!(
                "    {mark} #{} {}",
                task.id,
                crate::sanitize::clean(&task.subject)
            );
            if let Some(owner) = &task.owner {
                line.push_str(&format!(" ({})", crate::sanitize::clean(owner)));
            }
            let open: Vec<String> = (task.blocked_by.iter())
                .filter(|id| {
                    (self.todos.iter()).any(|t| &t.id == *id && t.status != TaskStatus::Completed)
                })
                .map(|id| format!("#{id}"))
                .collect();
            if !open.is_empty() {
                line.push_str(&format!(" · blocked by {}", open.join(", ")));
            }
            lines.push(Line::raw(line));
        }
        self.commit(lines);
    }

    /// `/model`: the current model and the common ones to switch to (any other by name:
    /// `/model NAME`).
    pub fn open_model_picker(&mut self) {
        let current = self.status.model.clone();
        let items = std::iter::once(current.clone())
            .chain(rein_llm::models::COMMON.iter().map(|m| (*m).to_string()))
            .filter(|m| !m.is_empty())
            .enumerate()
            .filter(|(n, m)| *n == 0 || *m != current)
            .map(|(n, m)| {
                let label = if n == 0 {
                    format!("{m} (current)")
                } else {
                    m.clone()
                };
                (m, label)
            })
            .collect();
        self.picker = Some(super::Picker::new(
            super::PickKind::Model,
            "Switch the model (or type /model NAME)",
            items,
        ));
    }

    /// `/memory`: after the list, a picker of the memory files to open in the editor.
    pub fn open_memory_picker(&mut self, files: &[(std::path::PathBuf, String)]) {
        if files.is_empty() {
            return;
        }
        // The instruction files first; the model's own memory (its index) last.
        let index = |p: &std::path::Path| {
            p.file_name()
                .is_some_and(|n| n == rein_engine::auto_memory::INDEX)
        };
        let ordered =
            (files.iter().filter(|(p, _)| !index(p))).chain(files.iter().filter(|(p, _)| index(p)));
        let items = ordered
            .map(|(path, _)| {
                let shown = crate::sanitize::clean(&path.display().to_string()).into_owned();
                let label = if path.exists() {
                    shown
                } else {
                    format!("{shown} (new)")
                };
                (path.display().to_string(), label)
            })
            .collect();
        self.picker = Some(super::Picker::new(
            super::PickKind::Memory,
            "Edit a memory file in your editor",
            items,
        ));
    }

    /// The editor closed on `path`: said, with when it applies.
    pub fn edited(&mut self, path: &std::path::Path, edited: std::io::Result<()>) {
        match edited {
            Ok(()) => self.info(format!(
                "{} saved: the model gets it from the next session (/clear)",
                path.display()
            )),
            Err(e) => self.error(format!("cannot edit {}: {e}", path.display())),
        }
    }

    /// The status line command printed `line` (an empty line shows the built-in numbers).
    pub fn set_custom_status(&mut self, line: String) {
        let line = crate::sanitize::clean(&line).into_owned();
        self.custom_status = (!line.trim().is_empty()).then_some(line);
    }
}
