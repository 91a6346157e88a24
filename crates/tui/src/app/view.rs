//! The live area at the bottom of the terminal: what is streaming or running, queued
//! messages, the input box (or a prompt), slash-command completions, and the status line.

use std::time::Instant;

use ratatui::text::{Line, Span};

use super::prompt::clip_line;
use super::{App, notices::thousands};
use crate::tool_view;

/// Spinner frames, one per 100 ms.
const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/// Output lines shown under a running call.
const TAIL_LINES: usize = 3;

impl App {
    /// The live area's rows for a terminal `width` wide, and where the cursor goes
    /// (column, row) when the input box has it.
    pub fn live_lines(&self, width: u16, now: Instant) -> (Vec<Line<'static>>, Option<(u16, u16)>) {
        let width = usize::from(width.max(10));
        let theme = self.theme;
        let mut lines: Vec<Line<'static>> = Vec::new();
        self.streaming_lines(&mut lines);
        self.todo_lines(width, &mut lines);
        self.running_lines(now, &mut lines);
        for queued in &self.queued {
            let first = queued.lines().next().unwrap_or("");
            lines.push(Line::styled(
                format!("↳ queued: {}", tool_view::clip(first, 200)),
                theme.dim(),
            ));
        }
        if !lines.is_empty() {
            lines.push(Line::raw(""));
        }

        let mut cursor = None;
        if let Some(prompt) = &self.prompt {
            lines.push(rule(width, theme.warning()));
            lines.extend(prompt.view(width, usize::from(self.rows), theme));
            lines.push(rule(width, theme.warning()));
        } else if let Some(dialog) = self.questions.front() {
            lines.push(rule(width, theme.warning()));
            lines.extend(
                dialog
                    .view(theme)
                    .iter()
                    .flat_map(|l| crate::wrap::wrap(l, width)),
            );
            lines.push(rule(width, theme.warning()));
        } else if let Some(picker) = &self.picker {
            lines.push(rule(width, theme.accent()));
            lines.extend(picker.view(width, theme));
            lines.push(rule(width, theme.accent()));
        } else {
            self.watch_lines(&mut lines);
            lines.push(rule(width, theme.dim()));
            let (input, (x, y)) = self.input.view(width, theme);
            cursor = Some((x, u16::try_from(lines.len()).unwrap_or(0) + y));
            lines.extend(input);
            lines.push(rule(width, theme.dim()));
            if self.completion_visible() {
                self.completion_lines(&mut lines);
            }
        }
        lines.push(self.status_line(width, now));
        let lines = lines.into_iter().map(|l| clip_line(l, width)).collect();
        (lines, cursor)
    }

    /// What is streaming: the tail of the thinking, the partial text line.
    fn streaming_lines(&self, lines: &mut Vec<Line<'static>>) {
        let theme = self.theme;
        if !self.thinking.trim().is_empty() {
            let style = theme.dim().patch(ratatui::style::Style::new().italic());
            let all: Vec<&str> = self.thinking.trim().lines().collect();
            for line in &all[all.len().saturating_sub(3)..] {
                let line = crate::sanitize::clean(line);
                lines.push(Line::styled(format!("✻ {line}"), style));
            }
        }
        for line in self.markdown.pending() {
            let lead = if self.text_started { "  " } else { "● " };
            let mut spans = vec![Span::styled(lead, theme.accent())];
            spans.extend(line.spans);
            lines.push(Line::from(spans));
        }
    }

    /// The task board while tasks are open: the ones in progress in bold (with their owner
    /// when a teammate holds one), done ones dim, blocked ones marked.
    fn todo_lines(&self, width: usize, lines: &mut Vec<Line<'static>>) {
        use rein_protocol::TaskStatus;
        let theme = self.theme;
        for task in &self.todos {
            let mut text = crate::sanitize::clean(&task.subject).into_owned();
            if let Some(owner) = task.owner.as_deref().filter(|o| *o != "main") {
                text.push_str(&format!(" ({})", crate::sanitize::clean(owner)));
            }
            let blocked = task.blocked_by.iter().any(|id| {
                (self.todos.iter()).any(|t| &t.id == id && t.status != TaskStatus::Completed)
            });
            let (mark, style) = match task.status {
                TaskStatus::Completed => ("☒", theme.dim()),
                TaskStatus::InProgress => ("▸", theme.bold()),
                TaskStatus::Pending if blocked => ("⧗", theme.dim()),
                TaskStatus::Pending => ("☐", ratatui::style::Style::new()),
            };
            let shown: String = format!("  {mark} {text}").chars().take(width).collect();
            lines.push(Line::styled(shown, style));
        }
    }

    /// Running calls with their elapsed time and last output lines.
    fn running_lines(&self, now: Instant, lines: &mut Vec<Line<'static>>) {
        let theme = self.theme;
        let asked = self.prompt.as_ref().map(|p| p.request().id.as_str());
        for tool in self.running.iter().filter(|t| t.finished.is_none()) {
            // The call being asked about is shown once, in the question.
            if tool.waiting && asked == Some(tool.id.as_str()) {
                continue;
            }
            if tool.waiting {
                lines.push(Line::from(vec![
                    Span::styled("? ", theme.warning()),
                    Span::raw(tool.summary.clone()),
                    Span::styled(" (waiting for your answer)", theme.dim()),
                ]));
                continue;
            }
            let secs = now.saturating_duration_since(tool.since).as_secs();
            lines.push(Line::from(vec![
                Span::styled(format!("{} ", spinner(now, tool.since)), theme.accent()),
                Span::raw(tool.summary.clone()),
                Span::styled(format!(" ({secs}s)"), theme.dim()),
            ]));
            for out in tool_view::tail(&tool.output, TAIL_LINES) {
                lines.push(Line::styled(format!("  │ {out}"), theme.dim()));
            }
        }
    }

    /// The status line: what is happening on the left, the model and the numbers on the
    /// right. The hint after the spinner goes first when the line is too narrow, then the
    /// right side is cut.
    fn status_line(&self, width: usize, now: Instant) -> Line<'static> {
        let theme = self.theme;
        let status = &self.status;
        let (left, hint, left_style) = self.status_activity(now);
        // The user's status line command, when it printed something, takes the right side.
        let (model, numbers) = match &self.custom_status {
            Some(line) => (line.clone(), String::new()),
            None => (status.model.clone(), self.status_numbers()),
        };
        let w = |text: &str| unicode_width::UnicodeWidthStr::width(text);
        let left_width = w(&left);
        let with_hint = left_width + w(&hint);
        let room = |used: usize| width.saturating_sub(used + 2);
        let hint = if with_hint + w(&model) + w(&numbers) + 2 <= width {
            hint
        } else {
            String::new()
        };
        let used = left_width + w(&hint);
        let right = if w(&model) + w(&numbers) <= room(used) {
            format!("{}{numbers}", model)
        } else if w(&numbers) + 4 <= room(used) {
            // Cut the model name, keep the numbers.
            let model = tool_view::clip(&model, room(used) - w(&numbers));
            format!("{model}{numbers}")
        } else {
            tool_view::clip(&format!("{}{numbers}", model), room(used))
        };
        let gap = width.saturating_sub(used + w(&right)).max(1);
        Line::from(vec![
            Span::styled(left, left_style),
            Span::styled(hint, theme.dim()),
            Span::raw(" ".repeat(gap)),
            Span::styled(right, theme.dim()),
        ])
    }

    /// The status line's left side: a notice, the question waiting, the run's spinner and
    /// label (with the hint to cancel), or the hint to `/help`.
    fn status_activity(&self, now: Instant) -> (String, String, ratatui::style::Style) {
        let theme = self.theme;
        if let Some(notice) = &self.notice {
            (notice.clone(), String::new(), theme.warning())
        } else if self.busy.is_some() && self.prompt.is_some() {
            // Still, so that nothing ticks while the user decides.
            (
                "? waiting for your answer".to_string(),
                String::new(),
                theme.warning(),
            )
        } else if let Some(busy) = &self.busy {
            let secs = now.saturating_duration_since(busy.since).as_secs();
            let hint = if self.cancelling {
                " · cancelling"
            } else {
                " · esc to cancel"
            };
            let label = match busy.retry_at {
                Some(at) if at > now => format!("retrying in {}", countdown(at - now)),
                _ => busy.label.clone(),
            };
            (
                // The turn's time, named so: a running call shows its own on its line.
                format!("{} {label}… · turn {secs}s", spinner(now, busy.since)),
                hint.to_string(),
                theme.accent(),
            )
        } else {
            ("/help for commands".to_string(), String::new(), theme.dim())
        }
    }

    /// The status line's numbers: tokens, cache hits, context, cost and a mode other than
    /// `default`.
    pub(super) fn status_numbers(&self) -> String {
        let status = &self.status;
        let context = if status.context_window > 0 {
            let percent = status.context_tokens as f64 * 100.0 / status.context_window as f64;
            format!(" · ctx {percent:.0}%")
        } else {
            String::new()
        };
        // The session's share of input read from the prompt cache, once there is any.
        let cache = match status.usage.cache_hit_rate() {
            Some(rate) if status.usage.cache_read_input_tokens > 0 => {
                format!(" · cache {:.0}%", rate * 100.0)
            }
            _ => String::new(),
        };
        let cost = status
            .cost_usd
            .map_or(String::new(), |c| format!(" · ${c:.4}"));
        let mode = match status.mode {
            rein_policy::PermissionMode::Default => String::new(),
            other => format!(" · {}", other.name()),
        };
        format!(
            " · ↑{} ↓{}{cache}{context}{cost}{mode}{}",
            thousands(status.usage.total_input()),
            thousands(status.usage.output_tokens),
            self.team_numbers()
        )
    }

    /// The teammates still running, each with what it spent: ` · alice ▸ $0.0120, bob ◦
    /// $0.0031` (▸ working, ◦ idle).
    fn team_numbers(&self) -> String {
        let running: Vec<String> = (self.team.iter())
            .filter(|t| t.state != "stopped")
            .map(|t| {
                let mark = if t.state == "working" { "▸" } else { "◦" };
                let spent = match t.cost {
                    Some(cost) => format!("${cost:.4}"),
                    None => format!("{} tok", thousands(t.tokens)),
                };
                format!("{} {mark} {spent}", crate::sanitize::clean(&t.name))
            })
            .collect();
        match running.is_empty() {
            true => String::new(),
            false => format!(" · {}", running.join(", ")),
        }
    }
}

/// Time left, in whole seconds rounded up: `42s`, `4m 05s`.
fn countdown(left: std::time::Duration) -> String {
    let secs = left.as_millis().div_ceil(1000);
    if secs < 120 {
        format!("{secs}s")
    } else {
        format!("{}m {:02}s", secs / 60, secs % 60)
    }
}

fn spinner(now: Instant, since: Instant) -> &'static str {
    let tick = now.saturating_duration_since(since).as_millis() / 100;
    SPINNER[usize::try_from(tick).unwrap_or(0) % SPINNER.len()]
}

fn rule(width: usize, style: ratatui::style::Style) -> Line<'static> {
    Line::styled("─".repeat(width), style)
}
