//! The team and its board in the UI: the task board shown live, teammates' state changes
//! and letters as lines in the scrollback, and what each teammate spent for the status line.

use ratatui::text::Line;
use rein_protocol::Event;

use super::App;

impl App {
    /// The board, a teammate's state, or a letter between the team's agents.
    pub(super) fn team_event(&mut self, event: Event) {
        match event {
            Event::Tasks { tasks } => self.set_tasks(tasks),
            Event::Teammate {
                name,
                agent,
                state,
                reason,
            } => self.teammate_changed(&name, &agent, &state, reason.as_deref()),
            Event::TeamMessage {
                from,
                to,
                kind,
                text,
            } => self.team_message(&from, &to, &kind, &text),
            // `Todos` is the same board as `Tasks`, for older consumers.
            _ => {}
        }
    }

    /// A subagent's or teammate's event: the board is the session's (a change shows as the
    /// main agent's), a teammate's spending counts for the status line, the rest is its
    /// `task` call's progress.
    pub(super) fn subagent_event(&mut self, parent: &str, agent: &str, event: Event) {
        match event {
            Event::Tasks { tasks } => self.set_tasks(tasks),
            event => {
                if let Event::Usage { usage, cost_usd } = &event {
                    self.teammate_spent(agent, usage, *cost_usd);
                }
                self.subagent_progress(parent, agent, event);
            }
        }
    }
}

impl App {
    /// What a teammate's request cost, for the status line (other subagents' usage is
    /// their `task` call's).
    fn teammate_spent(&mut self, name: &str, usage: &rein_protocol::Usage, cost: Option<f64>) {
        if let Some(mate) = self.team.iter_mut().find(|t| t.name == name) {
            mate.tokens += usage.total_input() + usage.output_tokens;
            mate.cost = mate.cost.zip(cost).map(|(a, b)| a + b);
        }
    }

    /// A teammate's state, as one dim line in the scrollback.
    fn teammate_changed(&mut self, name: &str, agent: &str, state: &str, reason: Option<&str>) {
        match self.team.iter_mut().find(|t| t.name == name) {
            Some(mate) => mate.state = state.to_string(),
            None => self.team.push(super::Teammate {
                name: name.to_string(),
                state: state.to_string(),
                tokens: 0,
                cost: Some(0.0),
            }),
        }
        let clean = |t: &str| crate::sanitize::clean(t).into_owned();
        let why = reason
            .map(|r| format!(" ({})", clean(r)))
            .unwrap_or_default();
        self.committed.push(Line::styled(
            format!(
                "  ◆ teammate {} ({}) {}{why}",
                clean(name),
                clean(agent),
                clean(state)
            ),
            self.theme.dim(),
        ));
    }

    /// A message between the team's agents: who wrote to whom, and its first line.
    fn team_message(&mut self, from: &str, to: &str, kind: &str, text: &str) {
        let clean = |t: &str| crate::sanitize::clean(t).into_owned();
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        let kind = match kind {
            "message" => String::new(),
            other => format!("[{}] ", clean(other)),
        };
        let line: String = format!(
            "  ✉ {} → {}: {kind}{}",
            clean(from),
            clean(to),
            clean(first)
        )
        .chars()
        .take(300)
        .collect();
        self.committed.push(Line::styled(line, self.theme.dim()));
    }

    /// The task board changed: shown live while tasks are open; once all are done it folds
    /// into one line in the scrollback.
    fn set_tasks(&mut self, tasks: Vec<rein_protocol::BoardTask>) {
        use rein_protocol::TaskStatus;
        let all_done = !tasks.is_empty() && tasks.iter().all(|t| t.status == TaskStatus::Completed);
        if all_done {
            if !self.todos.is_empty() {
                self.committed.push(Line::styled(
                    format!("  ✓ tasks done ({} tasks)", tasks.len()),
                    self.theme.dim(),
                ));
            }
            self.todos.clear();
        } else {
            self.todos = tasks;
        }
    }
}
