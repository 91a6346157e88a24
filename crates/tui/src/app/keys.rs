//! Keys: what a key press does in each state (a question open, a picker, the input and its
//! completion list), and Ctrl-C's two steps.

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::text::Line;
use rein_engine::Approval;
use rein_policy::PermissionMode;

use super::picker::PickOutcome;
use super::prompt::PromptOutcome;
use super::{Action, App, QUIT_WINDOW};
use crate::input::InputOutcome;

impl App {
    /// Handles a key press at `now`.
    pub fn key(&mut self, key: KeyEvent, now: Instant) -> Vec<Action> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if key.code != KeyCode::Char('c') || !ctrl {
            self.notice = None;
        }
        if ctrl && key.code == KeyCode::Char('c') {
            return self.interrupt(now);
        }
        if ctrl && key.code == KeyCode::Char('z') {
            return vec![Action::Suspend];
        }
        if let Some(actions) = self.dialog_key(key) {
            return actions;
        }
        if let Some(actions) = self.shortcut(key, ctrl, now) {
            return actions;
        }
        if self.completion_visible() && self.completion_key(key) {
            return Vec::new();
        }
        match self.input.key(key) {
            InputOutcome::Submit(text) => self.submit(text, now),
            InputOutcome::Edited => self.after_edit(),
            InputOutcome::Ignored => Vec::new(),
        }
    }

    /// A key for the question or the picker open, which takes every key; `None` when neither
    /// is open.
    fn dialog_key(&mut self, key: KeyEvent) -> Option<Vec<Action>> {
        if let Some(prompt) = self.prompt.as_mut() {
            if key.code == KeyCode::Char('o') && key.modifiers.contains(KeyModifiers::CONTROL) {
                // What the call would do, whole, above: the terminal scrolls it.
                let whole = prompt.whole(usize::from(self.cols.max(10)), self.theme);
                self.committed.push(Line::raw(""));
                self.committed.extend(whole);
                return Some(Vec::new());
            }
            if let PromptOutcome::Answered(approval) = prompt.key(key) {
                let plan = prompt.request().tool == rein_engine::plan::PLAN_TOOL;
                self.prompt = self.waiting.pop_front();
                self.answered(&approval, plan);
                // "No" stops the turn, as in Claude Code: the other questions of the turn are
                // refused with it, what runs is cancelled, and the user says what to do next.
                if approval == Approval::Stop {
                    self.prompt = None;
                    self.waiting.clear();
                    if self.busy.is_some() && !self.cancelling {
                        self.cancelling = true;
                        return Some(vec![Action::Cancel]);
                    }
                }
            }
            return Some(Vec::new());
        }
        if let Some(dialog) = self.questions.front_mut() {
            if dialog.key(key) == super::DialogOutcome::Closed {
                self.questions.pop_front();
            }
            return Some(Vec::new());
        }
        let picker = self.picker.as_mut()?;
        Some(match picker.key(key) {
            PickOutcome::Open => Vec::new(),
            PickOutcome::Closed => {
                self.picker = None;
                Vec::new()
            }
            PickOutcome::Picked(id) => {
                let kind = picker.kind;
                self.picker = None;
                self.picked(kind, id)
            }
        })
    }

    /// The keys that act whatever is typed (Ctrl-D, Ctrl-T, Ctrl-O, Shift-Tab, Esc); `None`
    /// for a key left to the input.
    fn shortcut(&mut self, key: KeyEvent, ctrl: bool, now: Instant) -> Option<Vec<Action>> {
        let actions = match key.code {
            KeyCode::Char('d') if ctrl && self.input.is_empty() => vec![Action::Quit],
            KeyCode::Char('t') if ctrl => {
                self.show_thinking = !self.show_thinking;
                let state = if self.show_thinking {
                    "shown"
                } else {
                    "folded"
                };
                self.notice = Some(format!("thinking {state} (Ctrl-T)"));
                if self.show_thinking {
                    self.unfold_thinking();
                }
                Vec::new()
            }
            KeyCode::Char('o') if ctrl => {
                self.unfold_last();
                Vec::new()
            }
            KeyCode::Char('v') if ctrl => vec![Action::PasteImage],
            KeyCode::BackTab => {
                let next = match self.status.mode {
                    PermissionMode::Default => PermissionMode::AcceptEdits,
                    PermissionMode::AcceptEdits => PermissionMode::Auto,
                    PermissionMode::Auto => PermissionMode::Plan,
                    PermissionMode::Plan | PermissionMode::Bypass => PermissionMode::Default,
                };
                vec![Action::SetMode(next)]
            }
            KeyCode::Esc if self.completion_visible() => {
                self.completion_closed = true;
                Vec::new()
            }
            KeyCode::Esc if self.input.is_empty() && self.close_watch() => Vec::new(),
            KeyCode::Esc if self.busy.is_some() && !self.cancelling => {
                self.cancelling = true;
                vec![Action::Cancel]
            }
            KeyCode::Esc if self.busy.is_none() && self.input.is_empty() => {
                // Two presses read at once arrive as one Esc with Alt.
                if key.modifiers.contains(KeyModifiers::ALT) {
                    return Some(vec![Action::OpenRewind]);
                }
                self.escape_twice(now)
            }
            _ => return None,
        };
        Some(actions)
    }

    fn interrupt(&mut self, now: Instant) -> Vec<Action> {
        if let Some(mut prompt) = self.prompt.take() {
            // Cancelling the turn refuses every question still open.
            prompt.answer(Approval::Deny { note: None });
            self.waiting.clear();
            self.cancelling = true;
            return vec![Action::Cancel];
        }
        if self.picker.take().is_some() {
            return Vec::new();
        }
        // Questions still open are declined (their dialogs say so as they close).
        self.questions.clear();
        if self.busy.is_some() {
            if self.cancelling {
                return vec![Action::Quit];
            }
            self.cancelling = true;
            self.notice = Some("cancelling… (Ctrl-C again quits)".into());
            return vec![Action::Cancel];
        }
        if !self.input.is_empty() {
            self.input.clear();
            return Vec::new();
        }
        if self
            .quit_armed
            .is_some_and(|at| now.duration_since(at) < QUIT_WINDOW)
        {
            return vec![Action::Quit];
        }
        self.quit_armed = Some(now);
        self.notice = Some("press Ctrl-C again to quit".into());
        Vec::new()
    }

    fn answered(&mut self, approval: &Approval, plan: bool) {
        match approval {
            Approval::Deny { note: Some(note) } => {
                self.info(format!("denied, told the model: {note}"))
            }
            Approval::SwitchMode(mode) if plan => {
                // The engine keeps `auto` only with the sandbox; the status line follows the
                // next status it reports.
                self.status.mode = *mode;
                self.info(format!("plan approved; going on in {} mode", mode.name()));
            }
            Approval::SwitchMode(mode) => {
                self.status.mode = *mode;
                self.info(format!(
                    "edits in this workspace are allowed until rein exits ({} mode; Shift+Tab \
                     changes it)",
                    mode.name()
                ));
            }
            _ => {}
        }
    }
}
