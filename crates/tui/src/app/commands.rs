//! Slash commands carried out by the UI itself, and what it shows for the others.

use std::time::Instant;

use ratatui::text::{Line, Span};
use rein_engine::session::SessionSummary;
use rein_policy::Policy;

use super::{Action, App, Picker};
use crate::slash::{INIT_PROMPT, NEW_AGENT_PROMPT, SlashCommand};

impl App {
    /// Opens the `/resume` list.
    pub fn open_session_picker(&mut self, sessions: &[SessionSummary]) {
        // The session shown is not one to resume.
        let current = self.status.session_id.clone();
        let items = sessions
            .iter()
            .filter(|s| s.id != current)
            .map(|s| {
                let date: String = s
                    .created_at
                    .chars()
                    .take(16)
                    .collect::<String>()
                    .replace('T', " ");
                let cost = s.cost_usd.map_or(String::new(), |c| format!(" · ${c:.2}"));
                let label = format!(
                    "{date} · {} turn{}{cost} · {}",
                    s.requests,
                    if s.requests == 1 { "" } else { "s" },
                    s.first_prompt
                );
                (s.id.clone(), label)
            })
            .collect();
        self.picker = Some(Picker::new(
            super::PickKind::Session,
            "Resume a session",
            items,
        ));
    }

    /// Lists the session's background shells and subagents.
    pub fn show_tasks(&mut self, tasks: &[rein_engine::subagents::BackgroundTask]) {
        let theme = self.theme;
        if tasks.is_empty() {
            self.info(
                "no background shells, subagents or scheduled jobs in this session".to_string(),
            );
            return;
        }
        let mut lines = vec![Line::styled("  Background work:", theme.bold())];
        for task in tasks {
            let label =
                crate::sanitize::clean(task.label.lines().next().unwrap_or("")).into_owned();
            let style = if task.running {
                theme.bold()
            } else {
                theme.dim()
            };
            lines.push(Line::from(vec![
                Span::styled(format!("    {:<9}", task.id), style),
                Span::raw(format!("{label}  ")),
                Span::styled(task.status.clone(), theme.dim()),
            ]));
        }
        lines.push(Line::styled("  /tasks stop ID stops one", theme.dim()));
        self.commit(lines);
    }

    /// Shows the MCP servers: each one's line, then its details dimmed.
    pub fn show_mcp(&mut self, servers: &[crate::McpServerView]) {
        let theme = self.theme;
        if servers.is_empty() {
            self.info(
                "no MCP servers (rein mcp add, or .mcp.json in a trusted workspace)".to_string(),
            );
            return;
        }
        let mut lines = vec![Line::styled("  MCP servers:", theme.bold())];
        for server in servers {
            let clean = |s: &str| crate::sanitize::clean(s).into_owned();
            lines.push(Line::from(vec![
                Span::styled(format!("    {}  ", clean(&server.name)), theme.bold()),
                Span::raw(format!("{}  ", server.transport)),
                Span::styled(clean(&server.status), theme.dim()),
            ]));
            for detail in &server.details {
                lines.push(Line::styled(
                    format!("      {}", clean(detail)),
                    theme.dim(),
                ));
            }
        }
        self.commit(lines);
    }

    /// Shows the permission mode and rules.
    pub fn show_policy(&mut self, policy: &Policy) {
        let theme = self.theme;
        let mut lines = vec![Line::from(vec![
            Span::styled("  Permission mode: ", theme.bold()),
            Span::raw(policy.mode.name()),
            Span::styled(
                "  (/permissions default|accept-edits|auto|plan|bypass; Shift+Tab cycles \
                 default → accept-edits → auto → plan)",
                theme.dim(),
            ),
        ])];
        let lists = [
            ("allow", &policy.rules.allow),
            ("ask", &policy.rules.ask),
            ("deny", &policy.rules.deny),
            ("allowed this session", &policy.session_allow),
        ];
        for (kind, rules) in lists {
            if rules.is_empty() {
                continue;
            }
            lines.push(Line::styled(format!("  {kind}:"), theme.bold()));
            for rule in rules.iter() {
                lines.push(Line::raw(format!(
                    "    {}  ({})",
                    rule.rule.text, rule.source
                )));
            }
        }
        if lines.len() == 1 {
            lines.push(Line::styled("  no rules", theme.dim()));
        }
        self.commit(lines);
    }

    /// Carries out slash command `command`, typed as `typed`.
    pub(super) fn command(
        &mut self,
        command: SlashCommand,
        typed: &str,
        now: Instant,
    ) -> Vec<Action> {
        if self.waits_for_turn(&command, typed) {
            return Vec::new();
        }
        // What was typed goes above what it shows, so outputs do not run together (a command
        // that sends a prompt echoes it as the prompt).
        if !matches!(command, SlashCommand::Prompt(_) | SlashCommand::Init) {
            self.commit_user(typed.trim());
        }
        match command {
            SlashCommand::Help => {
                self.help();
                Vec::new()
            }
            SlashCommand::Clear => vec![Action::NewSession],
            SlashCommand::Compact(focus) => {
                self.set_busy("compacting", now);
                vec![Action::Compact(focus)]
            }
            SlashCommand::Resume(Some(id)) => vec![Action::Resume(id)],
            SlashCommand::Resume(None) => vec![Action::ListSessions],
            SlashCommand::Model(Some(model)) => vec![Action::SetModel(model)],
            SlashCommand::Model(None) => {
                self.open_model_picker();
                Vec::new()
            }
            SlashCommand::Effort(name) => self.effort_command(name.as_deref()),
            SlashCommand::Cost => {
                self.cost();
                Vec::new()
            }
            SlashCommand::Permissions(None) => vec![Action::ShowPermissions],
            SlashCommand::Tasks(None) => vec![Action::ListTasks],
            SlashCommand::Mcp => vec![Action::ShowMcp],
            SlashCommand::Status => vec![Action::ShowStatus],
            SlashCommand::Context => vec![Action::ShowContext],
            SlashCommand::Export(file) => vec![Action::Export(file)],
            SlashCommand::Listing(what) => vec![Action::ShowListing(what)],
            SlashCommand::Todos => {
                self.show_todos();
                Vec::new()
            }
            SlashCommand::Rewind => vec![Action::OpenRewind],
            SlashCommand::Tasks(Some(args)) => self.tasks_command(&args),
            SlashCommand::Permissions(Some(args)) => self.permissions_command(&args),
            SlashCommand::Config(args) => self.config_command(&args),
            SlashCommand::StatusLine(args) => self.statusline_command(args),
            SlashCommand::AddDir(dir) => self.add_dir_command(dir),
            SlashCommand::Agents(args) => self.agents_command(&args, typed, now),
            SlashCommand::Init => {
                self.begin_run("/init", now);
                vec![Action::Run(INIT_PROMPT.to_string())]
            }
            SlashCommand::Quit => vec![Action::Quit],
            SlashCommand::Prompt(prompt) => {
                self.begin_run(typed.trim(), now);
                vec![Action::Run(prompt)]
            }
            SlashCommand::Unknown(name) => {
                self.error(format!("unknown command /{name} (/help lists them)"));
                Vec::new()
            }
        }
    }

    /// Whether `command` must wait for the running turn: a prompt is queued as the next
    /// message, another command is refused with a notice.
    fn waits_for_turn(&mut self, command: &SlashCommand, typed: &str) -> bool {
        let needs_idle = matches!(
            command,
            SlashCommand::Clear
                | SlashCommand::Compact(_)
                | SlashCommand::Resume(_)
                | SlashCommand::Model(Some(_))
                | SlashCommand::Effort(Some(_))
                | SlashCommand::AddDir(Some(_))
                | SlashCommand::Init
                | SlashCommand::Agents(_)
                | SlashCommand::Prompt(_)
        );
        if !needs_idle || self.busy.is_none() {
            return false;
        }
        if matches!(
            command,
            SlashCommand::Init | SlashCommand::Agents(_) | SlashCommand::Prompt(_)
        ) {
            self.queued.push_back(typed.to_string());
        } else {
            self.notice = Some(format!(
                "{} waits for the turn to end (Esc cancels it)",
                typed.trim()
            ));
        }
        true
    }

    /// `/add-dir [FOLDER]`: adds the folder, or says how.
    fn add_dir_command(&mut self, dir: Option<String>) -> Vec<Action> {
        if let Some(dir) = dir {
            return vec![Action::AddDir(dir)];
        }
        self.info(
            "/add-dir FOLDER adds a folder to the workspace for this session: the file tools \
             read and write it, sandboxed commands see it read-only (additional_directories \
             in config adds it to every session)",
        );
        Vec::new()
    }

    /// `/agents new DESCRIPTION`: the model writes a subagent file.
    fn agents_command(&mut self, args: &str, typed: &str, now: Instant) -> Vec<Action> {
        match args.strip_prefix("new") {
            Some(description) if description.starts_with(char::is_whitespace) => {
                self.begin_run(typed.trim(), now);
                vec![Action::Run(format!(
                    "{NEW_AGENT_PROMPT}{}",
                    description.trim()
                ))]
            }
            _ => {
                self.error("usage: /agents (lists them) or /agents new DESCRIPTION");
                Vec::new()
            }
        }
    }

    /// `/effort`: shows the level, or sets it (`default` leaves it to the model).
    fn effort_command(&mut self, name: Option<&str>) -> Vec<Action> {
        let Some(name) = name else {
            let effort = self.status.effort.map_or("the model's own", |e| e.name());
            self.info(format!(
                "effort: {effort} (/effort minimal|low|medium|high|default sets it)"
            ));
            return Vec::new();
        };
        if name.trim() == "default" {
            return vec![Action::SetEffort(None)];
        }
        match rein_engine::Effort::parse(name) {
            Ok(effort) => vec![Action::SetEffort(Some(effort))],
            Err(message) => {
                self.error(message.to_string());
                Vec::new()
            }
        }
    }

    /// `/tasks stop ID`.
    fn tasks_command(&mut self, args: &str) -> Vec<Action> {
        match args.split_whitespace().collect::<Vec<_>>()[..] {
            ["stop", id] => vec![Action::StopTask(id.to_string())],
            [id] if id.starts_with("bg_") || id.starts_with("agent_") => {
                vec![Action::ShowTaskOutput(id.to_string())]
            }
            _ => {
                self.error(
                    "usage: /tasks lists them, /tasks ID shows a shell's output, /tasks stop ID \
                     stops one"
                        .to_string(),
                );
                Vec::new()
            }
        }
    }

    fn help(&mut self) {
        let theme = self.theme;
        let mut lines = vec![Line::styled("  Commands", theme.bold())];
        for command in self.commands.all() {
            lines.push(Line::from(vec![
                Span::styled(format!("    /{:<14}", command.name), theme.accent()),
                Span::raw(command.description.clone()),
            ]));
        }
        lines.push(Line::styled("  Keys", theme.bold()));
        for (key, what) in [
            (
                "Enter",
                "send (while a turn runs: queue as the next message)",
            ),
            (
                "Shift/Alt+Enter",
                "new line (also Ctrl-J, or \\ then Enter)",
            ),
            ("Up/Down", "earlier prompts"),
            ("Ctrl-C", "cancel the turn; twice: quit"),
            ("Esc", "cancel the turn, close a prompt or list"),
            ("Ctrl-D", "quit (on empty input)"),
            ("Ctrl-T", "show or fold thinking"),
            ("Ctrl-Z", "suspend (fg comes back)"),
            ("Shift+Tab", "cycle the permission mode"),
        ] {
            lines.push(Line::from(vec![
                Span::styled(format!("    {key:<16}"), theme.accent()),
                Span::raw(what),
            ]));
        }
        self.commit(lines);
    }

    fn cost(&mut self) {
        let usage = self.status.usage;
        let cost = self
            .status
            .cost_usd
            .map_or("unknown (the model has no price)".to_string(), |c| {
                format!("${c:.4}")
            });
        self.commit([
            Line::styled(format!("  Session cost: {cost}"), self.theme.bold()),
            Line::raw(format!(
                "    input {} · output {} · cache read {} · cache write {}",
                usage.input_tokens,
                usage.output_tokens,
                usage.cache_read_input_tokens,
                usage.cache_creation_input_tokens
            )),
        ]);
    }
}
