//! The permission prompt the UI shows in its live area for a tool call: what the call would
//! do, whole (wrapped, scrolled when taller than the screen), and the answers.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::{Line, Span};
use rein_engine::{Approval, ApprovalRequest};
use rein_policy::PermissionMode;
use serde_json::Value;
use tokio::sync::oneshot;

use crate::theme::Theme;
use crate::tool_view;

/// Fewest rows of the body shown at once, however small the screen.
const MIN_BODY_ROWS: usize = 4;
/// Rows of the screen the rest of the live area takes around the body (question, answers,
/// input rules, status line).
const AROUND_BODY_ROWS: usize = 12;

/// A tool call waiting for the user's answer.
#[derive(Debug)]
pub struct PermissionPrompt {
    request: ApprovalRequest,
    reply: Option<oneshot::Sender<Approval>>,
    /// The note being typed after `t` (deny and tell the model).
    note: Option<String>,
    /// What the call would do, whole (made once: a large edit's diff is not cheap).
    body: Vec<Line<'static>>,
    /// The first row of the wrapped body shown.
    scroll: usize,
    /// Rows of the body the last view showed (what a page scrolls).
    page: std::cell::Cell<usize>,
    /// The size of the change a file tool would make (`f.txt: 3 lines added, 1 removed`).
    change: Option<String>,
    /// For a plan: `auto` may be chosen (the OS sandbox is there).
    auto: bool,
    /// For an edit: "all edits this session" (accept-edits) is offered.
    edits: bool,
}

/// Whether a permission prompt offers one of its optional answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// The answer is among the choices.
    Shown,
    /// The answer is left out.
    Hidden,
}

/// What a key did to the prompt.
#[derive(Debug, PartialEq, Eq)]
pub enum PromptOutcome {
    /// Still open.
    Open,
    /// Answered; the prompt closes.
    Answered(Approval),
}

impl PermissionPrompt {
    /// A prompt for `request`; the answer goes to `reply`.
    pub fn new(request: ApprovalRequest, reply: oneshot::Sender<Approval>, theme: Theme) -> Self {
        let mut change = None;
        let body = match &request.diff {
            Some(diff) => {
                let shown = crate::diff::unified(diff, theme);
                change = Some(format!("  {}", shown.summary()));
                shown.lines
            }
            None => body(&request.tool, &request.input, theme),
        };
        Self {
            request,
            reply: Some(reply),
            note: None,
            body,
            scroll: 0,
            page: std::cell::Cell::new(MIN_BODY_ROWS),
            change,
            auto: false,
            edits: false,
        }
    }

    /// Offers `auto` among a plan's modes (only where the OS sandbox is).
    pub fn with_auto(mut self, auto: Offer) -> Self {
        self.auto = auto == Offer::Shown;
        self
    }

    /// Offers "all edits this session" for an edit, when edits still ask (`default` mode:
    /// [`Offer::Shown`]).
    pub fn with_edits(mut self, edits: Offer) -> Self {
        self.edits = edits == Offer::Shown && self.request.edit;
        self
    }

    /// The call being asked about.
    pub fn request(&self) -> &ApprovalRequest {
        &self.request
    }

    /// Handles a key: `y` once, `a` for the session, `n` (or Esc) deny and stop the turn, `t`
    /// deny with a note for the model, which goes on; the arrows and pages scroll.
    pub fn key(&mut self, key: KeyEvent) -> PromptOutcome {
        if let Some(note) = self.note.as_mut() {
            match key.code {
                KeyCode::Enter => {
                    let note = note.trim().to_string();
                    return self.answer(Approval::Deny {
                        note: (!note.is_empty()).then_some(note),
                    });
                }
                KeyCode::Esc => self.note = None,
                KeyCode::Backspace => {
                    note.pop();
                }
                KeyCode::Char(c) => note.push(c),
                _ => {}
            }
            return PromptOutcome::Open;
        }
        if self.scrolled(key.code) {
            return PromptOutcome::Open;
        }
        if is_plan(&self.request) {
            let mode = |mode| Approval::SwitchMode(mode);
            return match key.code {
                KeyCode::Char('1') => self.answer(mode(PermissionMode::AcceptEdits)),
                KeyCode::Char('2') => self.answer(mode(PermissionMode::Default)),
                KeyCode::Char('3') if self.auto => self.answer(mode(PermissionMode::Auto)),
                KeyCode::Char('n' | 'N') | KeyCode::Esc => {
                    self.answer(Approval::Deny { note: None })
                }
                KeyCode::Char('t' | 'T' | '4') => {
                    self.note = Some(String::new());
                    PromptOutcome::Open
                }
                _ => PromptOutcome::Open,
            };
        }
        match key.code {
            KeyCode::Char('e' | 'E') if self.edits => {
                self.answer(Approval::SwitchMode(PermissionMode::AcceptEdits))
            }
            KeyCode::Char('y' | 'Y') | KeyCode::Char('1') => self.answer(Approval::AllowOnce),
            KeyCode::Char('a' | 'A') | KeyCode::Char('2') => self.answer(Approval::AllowForSession),
            KeyCode::Char('n' | 'N') | KeyCode::Char('3') | KeyCode::Esc => {
                self.answer(Approval::Stop)
            }
            KeyCode::Char('t' | 'T') | KeyCode::Char('4') => {
                self.note = Some(String::new());
                PromptOutcome::Open
            }
            _ => PromptOutcome::Open,
        }
    }

    /// Moves the body for a scrolling key (arrows, pages, Home, End); whether it was one.
    fn scrolled(&mut self, code: KeyCode) -> bool {
        let page = self.page.get().max(1);
        self.scroll = match code {
            KeyCode::Up => self.scroll.saturating_sub(1),
            KeyCode::Down => self.scroll + 1,
            KeyCode::PageUp => self.scroll.saturating_sub(page),
            KeyCode::PageDown | KeyCode::Char(' ') => self.scroll + page,
            KeyCode::Home => 0,
            KeyCode::End => usize::MAX,
            _ => return false,
        };
        true
    }

    /// Everything the call would do, wrapped to `width`, for the scrollback (Ctrl-O).
    pub fn whole(&self, width: usize, theme: Theme) -> Vec<Line<'static>> {
        let mut lines = self.heading(theme);
        if let Some(change) = &self.change {
            lines.push(Line::styled(change.clone(), theme.bold()));
        }
        lines.extend(self.body.iter().flat_map(|l| crate::wrap::wrap(l, width)));
        lines
    }

    /// Sends `approval` to the engine.
    pub fn answer(&mut self, approval: Approval) -> PromptOutcome {
        if let Some(reply) = self.reply.take() {
            let _ = reply.send(approval.clone());
        }
        PromptOutcome::Answered(approval)
    }

    /// The prompt's rows for a screen `width` wide and `rows` tall: every row wrapped, never
    /// cut; a body taller than the room left is shown a window at a time, scrolled with the
    /// arrows and pages.
    pub fn view(&self, width: usize, rows: usize, theme: Theme) -> Vec<Line<'static>> {
        let mut lines = self.heading(theme);
        if let Some(change) = &self.change {
            lines.push(Line::styled(change.clone(), theme.bold()));
        }
        let body: Vec<Line<'static>> = self
            .body
            .iter()
            .flat_map(|l| crate::wrap::wrap(l, width))
            .collect();
        let room = rows.saturating_sub(AROUND_BODY_ROWS).max(MIN_BODY_ROWS);
        if body.len() <= room {
            self.page.set(body.len());
            lines.extend(body);
        } else {
            let shown = room - 1;
            self.page.set(shown);
            let first = self.scroll.min(body.len() - shown);
            lines.extend(body[first..first + shown].iter().cloned());
            lines.push(Line::styled(
                format!(
                    "    lines {}–{} of {} · ↑↓ PgUp PgDn scroll · Ctrl-O prints it all above",
                    first + 1,
                    first + shown,
                    body.len()
                ),
                theme.dim(),
            ));
        }
        match &self.note {
            Some(note) => {
                lines.push(Line::styled(
                    "  Tell the model what to do instead (Enter sends, Esc goes back):",
                    theme.dim(),
                ));
                lines.push(Line::from(vec![
                    Span::styled("  › ", theme.accent()),
                    Span::raw(note.clone()),
                ]));
            }
            None if is_plan(&self.request) => lines.push(self.plan_choices(theme)),
            None => self.call_choices(theme, &mut lines),
        }
        lines
            .iter()
            .flat_map(|line| crate::wrap::wrap(line, width))
            .collect()
    }

    /// The question and who asks it.
    fn heading(&self, theme: Theme) -> Vec<Line<'static>> {
        let request = &self.request;
        let title = if is_plan(request) {
            "Approve this plan?".to_string()
        } else if request.tool == "bash" {
            // The command is the body: said once.
            "Allow this bash command?".to_string()
        } else {
            format!(
                "Allow {}?",
                tool_view::call_line(&request.tool, &request.summary, &request.input)
            )
        };
        let asked_by = match &request.agent {
            Some(agent) => format!("  asked by {} (subagent {agent})", request.reason),
            None => format!("  asked by {}", request.reason),
        };
        let mut lines = vec![Line::from(vec![
            Span::styled("? ", theme.warning().patch(theme.bold())),
            Span::styled(title, theme.bold()),
        ])];
        // A plan always asks: who asked says nothing.
        if !is_plan(request) {
            lines.push(Line::styled(asked_by, theme.dim()));
        }
        lines
    }

    /// A plan's answers, on one line: the mode to go on in, or keep planning.
    fn plan_choices(&self, theme: Theme) -> Line<'static> {
        let mut spans = vec![Span::raw("  ")];
        spans.extend(choice("1", " yes, accept edits  ", theme));
        spans.extend(choice("2", " yes, ask before edits  ", theme));
        if self.auto {
            spans.extend(choice("3", " yes, auto  ", theme));
        }
        spans.extend(choice("n", " keep planning  ", theme));
        spans.extend(choice("t", " keep planning, and tell the model…", theme));
        Line::from(spans)
    }

    /// A call's answers: one a line, each "this session" one saying what it allows, then
    /// the refusals.
    fn call_choices(&self, theme: Theme, lines: &mut Vec<Line<'static>>) {
        let mut row = |key, text: String| {
            let mut spans = vec![Span::raw("  ")];
            spans.extend(choice(key, "", theme));
            spans.push(Span::raw(text));
            lines.push(Line::from(spans));
        };
        row("y", " yes".into());
        if let Some(rule) = &self.request.session_rule {
            row("a", format!(" yes, and allow {rule} until rein exits"));
        }
        if self.edits {
            row(
                "e",
                " yes, and allow every edit in this workspace until rein exits \
                 (accept-edits)"
                    .into(),
            );
        }
        let mut spans = vec![Span::raw("  ")];
        spans.extend(choice("n", " no, and stop the turn  ", theme));
        spans.extend(choice(
            "t",
            " no, and tell the model what to do instead…",
            theme,
        ));
        lines.push(Line::from(spans));
    }
}

/// An answer's key, highlighted, and what it does.
fn choice(key: &'static str, text: &'static str, theme: Theme) -> [Span<'static>; 2] {
    [
        Span::styled(key, theme.accent().patch(theme.bold())),
        Span::raw(text),
    ]
}

impl Drop for PermissionPrompt {
    fn drop(&mut self) {
        // A prompt closed without an answer (the UI quit) refuses the call.
        if let Some(reply) = self.reply.take() {
            let _ = reply.send(Approval::Deny { note: None });
        }
    }
}

/// Whether `request` asks to approve a plan.
fn is_plan(request: &ApprovalRequest) -> bool {
    request.tool == rein_engine::plan::PLAN_TOOL
}

/// What the user is asked to approve when no change to files comes with it: the command for
/// bash, the plan (rendered Markdown) for a plan, the arguments otherwise.
fn body(tool: &str, input: &Value, theme: Theme) -> Vec<Line<'static>> {
    match tool {
        rein_engine::plan::PLAN_TOOL => {
            let plan = input.get("plan").and_then(Value::as_str).unwrap_or("");
            crate::markdown::render(plan, theme)
                .into_iter()
                .map(|line| {
                    let mut spans = vec![Span::raw("    ")];
                    spans.extend(line.spans);
                    Line::from(spans)
                })
                .collect()
        }
        "bash" => input
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or("")
            .lines()
            .map(|line| {
                Line::from(vec![
                    Span::raw("    $ "),
                    Span::styled(crate::sanitize::output_line(line), theme.bold()),
                ])
            })
            .collect(),
        _ => serde_json::to_string_pretty(input)
            .unwrap_or_default()
            .lines()
            .map(|line| Line::styled(format!("    {line}"), theme.dim()))
            .collect(),
    }
}

/// `line` cut to `width` columns (live-area rows never wrap).
pub fn clip_line(line: Line<'static>, width: usize) -> Line<'static> {
    let mut used = 0;
    let mut spans = Vec::new();
    for span in line.spans {
        let w = span.width();
        if used + w <= width {
            used += w;
            spans.push(span);
            continue;
        }
        let room = width.saturating_sub(used);
        if room > 0 {
            let mut text = String::new();
            let mut taken = 0;
            for c in span.content.chars() {
                let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
                if taken + cw + 1 > room {
                    break;
                }
                taken += cw;
                text.push(c);
            }
            text.push('…');
            spans.push(Span::styled(text, span.style));
        }
        break;
    }
    Line::from(spans).style(line.style)
}
