//! Watching a background shell's output live (`/tasks` → pick one): its last lines above
//! the input box, refreshed by the runner while the view is open, until Esc closes it. The
//! model's read position does not move.

use ratatui::text::Line;
use rein_engine::subagents::{BackgroundTask, StopError};

use super::{Action, App, PickKind, Picker};

/// Output lines shown at once.
const WATCH_LINES: usize = 12;

/// A background shell being watched.
#[derive(Debug, Clone, Default)]
pub(super) struct TaskWatch {
    id: String,
    /// The end of its output, as last read.
    output: String,
    /// How it stands (`running`, `exited with code 0`).
    status: String,
}

impl App {
    /// `/tasks`: after the list, a picker of the tasks to watch (none: nothing to pick).
    pub fn open_task_picker(&mut self, tasks: &[BackgroundTask]) {
        if tasks.is_empty() {
            return;
        }
        let items = tasks
            .iter()
            .map(|task| {
                let label = crate::sanitize::clean(task.label.lines().next().unwrap_or(""));
                (
                    task.id.clone(),
                    format!("{:<9}{label}  ({})", task.id, task.status),
                )
            })
            .collect();
        self.picker = Some(Picker::new(
            PickKind::Task,
            "Watch a task's output (/tasks stop ID stops one)",
            items,
        ));
    }

    /// Starts watching task `id`; the runner fills in its output ([`App::update_watch`]).
    pub(super) fn picked_task(&mut self, id: String) -> Vec<Action> {
        self.watch = Some(TaskWatch {
            id,
            ..TaskWatch::default()
        });
        Vec::new()
    }

    /// The task being watched, if any: the runner reads its output on each refresh.
    pub fn watched_task(&self) -> Option<&str> {
        self.watch.as_ref().map(|w| w.id.as_str())
    }

    /// What the watched task printed so far and how it stands; an error (a subagent, which
    /// prints nothing to watch) is said once and the view closed.
    pub fn update_watch(
        &mut self,
        output: Result<String, StopError>,
        task: Option<&BackgroundTask>,
    ) {
        let Some(watch) = self.watch.as_mut() else {
            return;
        };
        match output {
            Ok(output) => {
                watch.output = output;
                watch.status = task.map_or_else(|| "gone".to_string(), |t| t.status.clone());
            }
            Err(error) => {
                self.watch = None;
                self.error(error.to_string());
            }
        }
    }

    /// While an interactive session (`tty_N`) is watched, a line typed goes to it, Enter
    /// included, not to the model: the user answers its prompt (a password too) or drives it,
    /// and Esc hands it back.
    pub(super) fn type_into_watched(&mut self, text: &str) -> Option<Vec<Action>> {
        let id = self.watch.as_ref()?.id.clone();
        if !id.starts_with("tty_") {
            return None;
        }
        Some(vec![Action::TypeInto {
            id,
            text: format!("{text}\n"),
        }])
    }

    /// Closes the view; whether one was open.
    pub(super) fn close_watch(&mut self) -> bool {
        self.watch.take().is_some()
    }

    /// The watched task's rows for the live area.
    pub(super) fn watch_lines(&self, lines: &mut Vec<Line<'static>>) {
        let Some(watch) = &self.watch else {
            return;
        };
        let theme = self.theme;
        let how = if watch.id.starts_with("tty_") {
            "live; a line you enter is typed into it, Esc hands it back"
        } else {
            "live, Esc closes"
        };
        lines.push(Line::styled(
            format!(
                "Output of {} ({}; {how})",
                crate::sanitize::clean(&watch.id),
                crate::sanitize::clean(&watch.status)
            ),
            theme.bold(),
        ));
        let all: Vec<&str> = watch.output.lines().collect();
        if all.is_empty() {
            lines.push(Line::styled("  (nothing yet)", theme.dim()));
        }
        for line in &all[all.len().saturating_sub(WATCH_LINES)..] {
            lines.push(Line::raw(format!(
                "  {}",
                crate::sanitize::output_line(line)
            )));
        }
    }
}
