//! A UI on an in-memory terminal, driven by scripted events and keys.

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use rein_protocol::{ContentBlock, Event, Message, Role, RunOutcome, Usage};
use rein_tui::app::Action;
use rein_tui::history::PromptHistory;
use rein_tui::input::Input;
use rein_tui::slash::Commands;
use rein_tui::theme::Theme;
use rein_tui::{App, Screen, Status};
use serde_json::{Value, json};

/// An app on a `width`×`height` test terminal, with a fixed clock.
pub struct Harness {
    pub app: App,
    pub screen: Screen<TestBackend>,
    pub now: Instant,
    pub actions: Vec<Action>,
}

impl Harness {
    pub fn new(width: u16, height: u16) -> Self {
        Self::with_theme(width, height, Theme::PLAIN)
    }

    pub fn with_theme(width: u16, height: u16, theme: Theme) -> Self {
        let status = Status {
            model: "claude-sonnet-4-5".into(),
            context_window: 200_000,
            cost_usd: Some(0.0),
            ..Status::default()
        };
        let app = App::new(
            theme,
            Commands::load(&Default::default()),
            Input::new(PromptHistory::default()),
            status,
        );
        let screen = Screen::new(TestBackend::new(width, height)).unwrap();
        let mut harness = Self {
            app,
            screen,
            now: Instant::now(),
            actions: Vec::new(),
        };
        harness.draw();
        harness
    }

    pub fn draw(&mut self) {
        self.screen.draw(&mut self.app, self.now).unwrap();
    }

    pub fn advance(&mut self, millis: u64) {
        self.now += Duration::from_millis(millis);
    }

    pub fn event(&mut self, event: Event) {
        let actions = self.app.event(event, self.now);
        self.actions.extend(actions);
        self.draw();
    }

    pub fn key(&mut self, code: KeyCode, modifiers: KeyModifiers) {
        let actions = self.app.key(KeyEvent::new(code, modifiers), self.now);
        self.actions.extend(actions);
        self.draw();
    }

    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.key(KeyCode::Char(c), KeyModifiers::NONE);
        }
    }

    pub fn submit(&mut self, text: &str) {
        self.type_text(text);
        self.key(KeyCode::Enter, KeyModifiers::NONE);
    }

    /// The actions the app asked for so far.
    pub fn take_actions(&mut self) -> Vec<Action> {
        std::mem::take(&mut self.actions)
    }

    /// The scrollback, then the visible screen, each row trimmed on the right.
    pub fn dump(&self) -> String {
        let backend = self.screen.backend();
        let rows = |buffer: &ratatui::buffer::Buffer| -> Vec<String> {
            let width = usize::from(buffer.area.width);
            buffer
                .content
                .chunks(width)
                .map(|row| {
                    let text: String = visible_cells(row).map(|cell| cell.symbol()).collect();
                    text.trim_end().to_string()
                })
                .collect()
        };
        let mut out = String::new();
        let scrollback = rows(backend.scrollback());
        if scrollback.iter().any(|r| !r.is_empty()) {
            for row in scrollback {
                out.push_str(&row);
                out.push('\n');
            }
            out.push_str("──── (scrollback above, screen below) ────\n");
        }
        for row in rows(backend.buffer()) {
            out.push_str(&row);
            out.push('\n');
        }
        out
    }
}

impl Harness {
    /// The visible screen with its styles: each run of cells styled other than the default is
    /// wrapped as `‹style›text‹/›` (`fg`, `on bg`, modifiers), so a snapshot sees colour, dim
    /// and bold. Rows trimmed on the right.
    pub fn dump_styled(&self) -> String {
        let buffer = self.screen.backend().buffer();
        let width = usize::from(buffer.area.width);
        let mut out = String::new();
        for row in buffer.content.chunks(width) {
            let mut line = String::new();
            let mut open: Option<String> = None;
            for cell in visible_cells(row) {
                let symbol = cell.symbol();
                let style = describe_style(cell.fg, cell.bg, cell.modifier);
                // A blank cell keeps the run it is in only when it has the same style.
                if style != open {
                    if open.is_some() {
                        line.push_str("‹/›");
                    }
                    if let Some(style) = &style {
                        line.push_str(&format!("‹{style}›"));
                    }
                    open = style;
                }
                line.push_str(symbol);
            }
            if open.is_some() {
                line.push_str("‹/›");
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

/// The cells of a row that show something: a wide character's continuation cells skipped.
fn visible_cells(row: &[ratatui::buffer::Cell]) -> impl Iterator<Item = &ratatui::buffer::Cell> {
    let mut skip = 0;
    row.iter().filter(move |cell| {
        if skip > 0 {
            skip -= 1;
            return false;
        }
        skip = unicode_width::UnicodeWidthStr::width(cell.symbol()).saturating_sub(1);
        true
    })
}

/// `red on black bold`, or `None` for the default style.
fn describe_style(
    fg: ratatui::style::Color,
    bg: ratatui::style::Color,
    modifier: ratatui::style::Modifier,
) -> Option<String> {
    use ratatui::style::Color;
    let mut parts = Vec::new();
    if fg != Color::Reset {
        parts.push(format!("{fg:?}").to_lowercase());
    }
    if bg != Color::Reset {
        parts.push(format!("on {}", format!("{bg:?}").to_lowercase()));
    }
    for (flag, name) in [
        (ratatui::style::Modifier::BOLD, "bold"),
        (ratatui::style::Modifier::DIM, "dim"),
        (ratatui::style::Modifier::ITALIC, "italic"),
        (ratatui::style::Modifier::UNDERLINED, "underlined"),
        (ratatui::style::Modifier::REVERSED, "reversed"),
        (ratatui::style::Modifier::CROSSED_OUT, "crossed"),
    ] {
        if modifier.contains(flag) {
            parts.push(name.to_string());
        }
    }
    (!parts.is_empty()).then(|| parts.join(" "))
}

pub fn text_delta(text: &str) -> Event {
    Event::TextDelta { text: text.into() }
}

pub fn assistant(text: &str) -> Event {
    Event::AssistantMessage {
        message: Message {
            role: Role::Assistant,
            content: vec![ContentBlock::Text { text: text.into() }],
        },
    }
}

pub fn tool_start(id: &str, name: &str, input: Value) -> Event {
    Event::ToolCallStart {
        id: id.into(),
        name: name.into(),
        summary: summary_of(name, &input),
        input,
    }
}

/// The summary the engine sends for this call: the tool's own facts.
pub fn summary_of(name: &str, input: &Value) -> String {
    let guard = rein_tools::WorkspaceGuard::new(&std::env::temp_dir()).unwrap();
    rein_tools::ToolRegistry::builtin()
        .facts(name, input, &guard)
        .summary
}

/// The change the real `name` tool would make with `input` in a workspace holding `files`
/// (path, contents), as the engine sends it: a unified diff.
pub fn real_diff(name: &str, input: &Value, files: &[(&str, &str)]) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    for (path, contents) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
    }
    let guard = rein_tools::WorkspaceGuard::new(dir.path()).unwrap();
    let diff =
        rein_tools::unified(&rein_tools::ToolRegistry::builtin().preview(name, input, &guard));
    assert!(diff.is_some(), "{name} previews no change for {input}");
    diff
}

/// A file tool's end, with the change it made.
pub fn edit_end(id: &str, name: &str, diff: Option<String>) -> Event {
    Event::ToolCallEnd {
        id: id.into(),
        name: name.into(),
        output: "ok".into(),
        is_error: false,
        duration_ms: 3,
        diff,
        tool_response: None,
        exit_code: None,
        sandbox: None,
    }
}

pub fn tool_end(id: &str, name: &str, output: &str, is_error: bool, duration_ms: u64) -> Event {
    Event::ToolCallEnd {
        id: id.into(),
        name: name.into(),
        output: output.into(),
        is_error,
        duration_ms,
        diff: None,
        tool_response: None,
        exit_code: None,
        sandbox: None,
    }
}

pub fn usage(input: u64, output: u64) -> Event {
    Event::Usage {
        usage: Usage {
            input_tokens: input,
            output_tokens: output,
            ..Usage::default()
        },
        cost_usd: Some(0.0123),
    }
}

pub fn result(outcome: RunOutcome, input: u64, output: u64) -> Event {
    Event::Result {
        outcome,
        text: String::new(),
        turns: 1,
        usage: Usage::default(),
        cost_usd: Some(0.0123),
        duration_ms: 10,
        session_usage: Usage {
            input_tokens: input,
            output_tokens: output,
            ..Usage::default()
        },
        session_cost_usd: Some(0.0123),
    }
}

pub fn bash(command: &str) -> Value {
    json!({ "command": command })
}
