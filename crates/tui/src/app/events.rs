//! The engine's events turned into scrollback lines and live state.

use std::time::Instant;

use ratatui::text::{Line, Span};
use rein_protocol::{Event, PermissionVerdict, RunOutcome, Usage};
use serde_json::Value;

use super::fold::FoldedKind;
use super::{Action, App, RunningTool};
use crate::tool_view;

/// A call that finished, as its end event tells it.
#[derive(Clone, Copy)]
struct Finished<'a> {
    name: &'a str,
    output: &'a str,
    is_error: bool,
    duration_ms: u64,
    /// The change a file tool made (unified diff).
    diff: Option<&'a str>,
}

/// Output kept per running call for its live tail.
const TAIL_BYTES: usize = 8 * 1024;

impl App {
    /// A `ToolCallEnd` event, shown.
    fn call_ended(&mut self, event: &Event) {
        if let Event::ToolCallEnd {
            id,
            name,
            output,
            is_error,
            duration_ms,
            diff,
            ..
        } = event
        {
            self.tool_ended(
                id,
                &Finished {
                    name,
                    output,
                    is_error: *is_error,
                    duration_ms: *duration_ms,
                    diff: diff.as_deref(),
                },
            );
        }
    }

    /// Handles one engine event at `now`.
    pub fn event(&mut self, event: Event, now: Instant) -> Vec<Action> {
        match event {
            Event::SessionStart {
                session_id, model, ..
            } => (self.status.session_id, self.status.model) = (session_id, model),
            Event::TurnStart { .. } => self.label_busy("thinking"),
            Event::ThinkingDelta { text } => self.thinking.push_str(&text),
            Event::TextDelta { text } => self.text_delta(&text),
            Event::Citation { title, url } => self.sources.push((title, url)),
            Event::AssistantMessage { .. } => {
                self.flush_stream();
                if !self.sources.is_empty() {
                    let sources = std::mem::take(&mut self.sources);
                    self.info(rein_protocol::sources_line(&sources));
                }
            }
            Event::ToolCallStart {
                id,
                name,
                input,
                summary,
            } => self.tool_started(id, &name, &input, &summary, now),
            Event::ToolOutputDelta { id, text } => self.tool_output(&id, &text),
            ended @ Event::ToolCallEnd { .. } => self.call_ended(&ended),
            Event::Permission {
                id, name, decision, ..
            } => self.permission_decided(&id, &name, decision, now),
            team @ (Event::Tasks { .. }
            | Event::Teammate { .. }
            | Event::TeamMessage { .. }
            | Event::Todos { .. }) => self.team_event(team),
            Event::Subagent {
                parent_tool_use_id,
                agent,
                event,
            } => self.subagent_event(&parent_tool_use_id, &agent, *event),
            Event::ToolsChanged { added, removed } => {
                self.info(rein_protocol::tools_changed(&added, &removed))
            }
            Event::ModelFallback { from, to, reason } => self.fell_back(&from, to, &reason),
            Event::Retry {
                attempt,
                delay_ms,
                reason,
            } => self.retrying(attempt, delay_ms, &reason, now),
            Event::Compaction {
                trigger,
                tokens_before,
                tokens_after,
                kept_messages,
                ..
            } => self.compacted(&trigger, tokens_before, tokens_after, kept_messages),
            Event::CompactionEnd { error } => return self.compaction_ended(error, now),
            Event::HookRun {
                event,
                message: Some(message),
                blocked,
                ..
            } => self.hook_said(&event, if blocked { "blocked" } else { "said" }, &message),
            Event::Usage { usage, cost_usd } => self.add_usage(&usage, cost_usd),
            Event::ScheduledPrompt { id, prompt } => self.scheduled_run(&id, &prompt, now),
            Event::Error { message } => self.failed(message),
            // Only `/rewind` restores files here, and it lists each file itself.
            // `/tasks` asks the controller for the jobs.
            Event::FilesRestored { .. }
            | Event::Schedule { .. }
            | Event::PermissionRequest { .. }
            | Event::HookRun { .. }
            | Event::TurnEnd { .. } => {}
            Event::Result {
                outcome,
                session_usage,
                session_cost_usd,
                ..
            } => return self.run_ended(outcome, session_usage, session_cost_usd, now),
        }
        Vec::new()
    }

    /// A compaction ended (its failure said): the next queued job may start.
    fn compaction_ended(&mut self, error: Option<String>, now: Instant) -> Vec<Action> {
        if let Some(message) = error {
            self.compaction_failed(&message);
        }
        self.job_done(now)
    }

    /// A scheduled job fired: its prompt runs as the session's next run.
    fn scheduled_run(&mut self, id: &str, prompt: &str, now: Instant) {
        self.info(format!("scheduled job {id} fired"));
        self.begin_run(prompt, now);
    }

    /// The run failed: what streamed so far is committed above the message.
    fn failed(&mut self, message: String) {
        self.flush_stream();
        self.error(message);
    }

    /// Names what the busy indicator shows the run doing.
    fn label_busy(&mut self, label: impl Into<String>) {
        if let Some(busy) = self.busy.as_mut() {
            busy.label = label.into();
            busy.retry_at = None;
        }
    }

    /// Streamed answer text: any thinking before it is committed first.
    fn text_delta(&mut self, text: &str) {
        self.flush_thinking();
        let lines = self.markdown.push(text);
        self.commit_text(lines);
        self.label_busy("writing");
    }

    /// A call starts: it gets a live line until it ends.
    fn tool_started(&mut self, id: String, name: &str, input: &Value, summary: &str, now: Instant) {
        self.flush_stream();
        self.label_busy(format!("running {name}"));
        let summary = tool_view::call_line(name, summary, input);
        let command = (name == "bash")
            .then(|| input.get("command").and_then(Value::as_str))
            .flatten()
            .filter(|c| !summary.ends_with(c.trim()))
            .map(str::to_string);
        self.running.push(RunningTool {
            id,
            summary,
            since: now,
            output: String::new(),
            waiting: false,
            sub_tokens: 0,
            command,
            refused: false,
            finished: None,
        });
    }

    /// Output of a running call: its tail is kept for the live line.
    fn tool_output(&mut self, id: &str, text: &str) {
        if let Some(tool) = self.running.iter_mut().find(|t| t.id == id) {
            tool.output.push_str(text);
            if tool.output.len() > TAIL_BYTES * 2 {
                let mut cut = tool.output.len() - TAIL_BYTES;
                while !tool.output.is_char_boundary(cut) {
                    cut += 1;
                }
                tool.output.drain(..cut);
            }
        }
    }

    /// Call `id` ended: its live line becomes scrollback, after the lines of the calls
    /// started before it (parallel calls are shown in call order, not finishing order).
    fn tool_ended(&mut self, id: &str, done: &Finished<'_>) {
        let Some(at) = self.running.iter().position(|t| t.id == id) else {
            self.tool_finished(done.name, done);
            return;
        };
        let before = self.committed.len();
        let summary = self.running[at].summary.clone();
        self.tool_finished(&summary, done);
        // What was refused is shown whole, as it was asked about.
        let tool = &self.running[at];
        if let Some(command) = tool.command.as_ref().filter(|_| tool.refused) {
            let theme = self.theme;
            let mut lines = vec![Line::styled("  ⎿ the command refused, whole:", theme.dim())];
            lines.extend(command.lines().map(|line| {
                Line::styled(
                    format!("    $ {}", crate::sanitize::output_line(line)),
                    theme.dim(),
                )
            }));
            self.committed.extend(lines);
        }
        let lines = self.committed.split_off(before);
        self.running[at].finished = Some(lines);
        self.flush_finished_calls();
        if self.running.is_empty() {
            self.label_busy("thinking");
        }
    }

    /// Commits the finished calls at the front of the running ones, in call order.
    pub(super) fn flush_finished_calls(&mut self) {
        while self.running.first().is_some_and(|t| t.finished.is_some()) {
            let tool = self.running.remove(0);
            self.committed.extend(tool.finished.unwrap_or_default());
        }
    }

    /// The permission check of call `id`: the busy line says when it waits for the user.
    fn permission_decided(
        &mut self,
        id: &str,
        name: &str,
        decision: PermissionVerdict,
        now: Instant,
    ) {
        let tool = self.running.iter_mut().find(|t| t.id == id);
        let label = match (decision, tool) {
            (PermissionVerdict::Ask, Some(tool)) => {
                tool.waiting = true;
                Some("waiting for your answer".to_string())
            }
            // The call runs from now: the wait for the answer is not its time.
            (PermissionVerdict::Allow, Some(tool)) if tool.waiting => {
                tool.waiting = false;
                tool.since = now;
                Some(format!("running {name}"))
            }
            (PermissionVerdict::Deny, Some(tool)) => {
                tool.refused = true;
                None
            }
            _ => None,
        };
        if let Some(label) = label {
            self.label_busy(label);
        }
    }

    /// The run ended: the session's totals, a note when it was interrupted, then what the
    /// job's end asks.
    fn run_ended(
        &mut self,
        outcome: RunOutcome,
        session_usage: Usage,
        session_cost_usd: Option<f64>,
        now: Instant,
    ) -> Vec<Action> {
        self.flush_stream();
        self.status.usage = session_usage;
        self.status.cost_usd = session_cost_usd;
        if outcome == RunOutcome::Cancelled {
            let line = Line::styled(
                "  ⎿ Interrupted. Tell the model what to do differently.",
                self.theme.error(),
            );
            self.committed.push(line);
        }
        self.job_done(now)
    }

    fn tool_finished(&mut self, summary: &str, done: &Finished<'_>) {
        let Finished {
            name,
            output,
            is_error,
            duration_ms,
            diff,
        } = *done;
        let theme = self.theme;
        let (tool, detail) = summary.split_once(' ').unwrap_or((summary, ""));
        let mark = if is_error {
            Span::styled("● ", theme.error())
        } else {
            Span::styled("● ", theme.success())
        };
        let mut head = vec![
            mark,
            Span::styled(tool.to_string(), theme.bold()),
            Span::raw(format!(" {detail}")),
        ];
        if let Some(ending) = is_error.then(|| tool_view::ending(output)).flatten() {
            head.push(Span::styled(format!(" · {ending}"), theme.error()));
        }
        if duration_ms >= 1000 {
            head.push(Span::styled(
                format!(" · {:.1}s", duration_ms as f64 / 1000.0),
                theme.dim(),
            ));
        }
        self.committed.push(Line::raw(""));
        self.committed.push(Line::from(head));
        if let Some(diff) = diff.filter(|_| !is_error) {
            let shown = crate::diff::unified(diff, theme);
            self.committed.push(Line::styled(
                format!("  ⎿ {}", shown.summary()),
                theme.dim(),
            ));
            let lines = crate::diff::limit(shown.lines, tool_view::DIFF_LINES, theme);
            self.committed.extend(lines);
        } else if name == "read_file" && !is_error {
            let lines = output.lines().count();
            self.committed.push(Line::styled(
                format!("  ⎿ read {lines} line{}", if lines == 1 { "" } else { "s" }),
                theme.dim(),
            ));
        } else {
            let outcome = if is_error {
                tool_view::Outcome::Failed
            } else {
                tool_view::Outcome::Succeeded
            };
            let lines = tool_view::folded_result(output, outcome, theme);
            if lines.len() > tool_view::RESULT_LINES {
                self.folded
                    .keep(summary.to_string(), output, FoldedKind::Text);
            }
            self.committed.extend(lines);
        }
    }

    /// Commits what the stream still holds: the last text line and any thinking.
    pub(super) fn flush_stream(&mut self) {
        self.flush_thinking();
        let rest = self.markdown.finish();
        self.commit_text(rest);
        self.text_started = false;
    }

    fn flush_thinking(&mut self) {
        let thinking = std::mem::take(&mut self.thinking);
        let thinking = thinking.trim();
        if thinking.is_empty() {
            return;
        }
        let theme = self.theme;
        let style = theme.dim().patch(ratatui::style::Style::new().italic());
        self.committed.push(Line::raw(""));
        if self.show_thinking {
            for (n, line) in thinking.lines().enumerate() {
                let lead = if n == 0 { "✻ " } else { "  " };
                self.committed
                    .push(Line::styled(format!("{lead}{line}"), style));
            }
        } else {
            let count = thinking.lines().count();
            self.folded
                .keep("thinking".to_string(), thinking, FoldedKind::Thinking);
            let first = tool_view::clip(thinking.lines().next().unwrap_or(""), 60);
            self.committed.push(Line::styled(
                format!(
                    "✻ Thought for {count} line{}: {first} (Ctrl-T shows thinking)",
                    if count == 1 { "" } else { "s" }
                ),
                style,
            ));
        }
    }

    fn commit_text(&mut self, lines: Vec<Line<'static>>) {
        for line in lines {
            let lead = if self.text_started {
                Span::raw("  ")
            } else {
                if line.spans.iter().all(|s| s.content.trim().is_empty()) {
                    // No bullet on leading blank lines.
                    continue;
                }
                self.text_started = true;
                self.committed.push(Line::raw(""));
                Span::styled("● ", self.theme.accent())
            };
            let mut spans = vec![lead];
            spans.extend(line.spans);
            self.committed.push(Line::from(spans).style(line.style));
        }
    }
}

impl App {
    /// Shows an earlier conversation (a resumed session) in the scrollback, compactly: the
    /// prompts, the answers and one line per tool call.
    pub fn replay(&mut self, transcript: &[rein_protocol::Message], session_id: &str) {
        use rein_protocol::{ContentBlock, Role};
        if transcript.is_empty() {
            return;
        }
        let theme = self.theme;
        self.info(format!("── session {session_id} ──"));
        for message in transcript {
            for block in &message.content {
                match (message.role, block) {
                    (Role::User, ContentBlock::Text { text }) => self.commit_user(text),
                    (Role::Assistant, ContentBlock::Text { text }) => {
                        let lines = crate::markdown::render(text, theme);
                        self.commit_text(lines);
                        self.text_started = false;
                    }
                    (Role::Assistant, ContentBlock::ToolUse { name, input, .. }) => {
                        self.committed.push(Line::from(vec![
                            Span::styled("● ", theme.dim()),
                            Span::raw(tool_view::summary(name, input)),
                        ]));
                    }
                    _ => {}
                }
            }
        }
        self.info("── continuing ──");
    }
}

impl App {
    /// A subagent's progress as its `task` call's one live line: the agent, what it does
    /// now, the tokens it has used (the call's own line shows the time).
    pub(super) fn subagent_progress(&mut self, parent: &str, agent: &str, event: Event) {
        let Some(tool) = self.running.iter_mut().find(|t| t.id == parent) else {
            return;
        };
        let doing = match event {
            Event::ToolCallStart {
                name,
                input,
                summary,
                ..
            } => tool_view::call_line(&name, &summary, &input),
            Event::TurnStart { .. } => "thinking".to_string(),
            Event::Usage { usage, .. } => {
                tool.sub_tokens += usage.total_input() + usage.output_tokens;
                return;
            }
            Event::Result { outcome, turns, .. } => {
                format!("{outcome:?} after {turns} turns").to_lowercase()
            }
            _ => return,
        };
        tool.output = format!("{agent} › {doing} · {} tokens", tool.sub_tokens);
    }
}
