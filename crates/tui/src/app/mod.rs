//! The UI's state and its reactions: keys and pastes from the user, events from the engine.
//! Pure: no terminal, no engine; the runner feeds it and carries out the [`Action`]s it returns.
//! Finished output is handed over as lines for the terminal's scrollback
//! ([`App::take_committed`]); only the live area is drawn from this state ([`App::render`]).

mod about;
mod action;
mod commands;
mod complete;
mod events;
mod fold;
mod keys;
mod notices;
mod picker;
mod prompt;
mod question;
mod rewind;
mod settings;
mod shortcuts;
mod team;
mod view;
mod watch;

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use ratatui::text::{Line, Span};
use rein_engine::{Approval, ApprovalRequest};
use rein_policy::PermissionMode;
use tokio::sync::oneshot;

pub use action::Action;
pub use picker::{PickKind, PickOutcome, Picker};
pub use prompt::{Offer, PermissionPrompt, PromptOutcome};
pub use question::{AnswersReply, DialogOutcome, QuestionDialog};

use crate::input::Input;
use crate::markdown::MarkdownStream;
use crate::slash::Commands;
use crate::theme::Theme;

/// How long a first Ctrl-C (or Ctrl-D) waits for the second that quits.
const QUIT_WINDOW: Duration = Duration::from_secs(2);

/// What the status line shows: the engine's session status.
pub use rein_engine::SessionStatus as Status;

/// Work in progress, for the spinner.
#[derive(Debug, Clone)]
struct Busy {
    since: Instant,
    label: String,
    /// When the request that failed is sent again (a retry's wait, counted down).
    retry_at: Option<Instant>,
}

/// A tool call that is running.
#[derive(Debug, Clone)]
struct RunningTool {
    id: String,
    summary: String,
    since: Instant,
    output: String,
    /// Asked about and not answered yet: not running.
    waiting: bool,
    /// Tokens a subagent run by this call has used so far.
    sub_tokens: u64,
    /// A shell command longer than its summary line: shown whole if the call is refused.
    command: Option<String>,
    /// The permission check or the user refused it.
    refused: bool,
    /// Its scrollback lines, held while a call started before it still runs.
    finished: Option<Vec<Line<'static>>>,
}

/// Lines of a prompt echoed before it is folded.
const USER_LINES: usize = 8;

/// The interactive UI's state.
#[derive(Debug)]
pub struct App {
    theme: Theme,
    commands: Commands,
    input: Input,
    status: Status,
    busy: Option<Busy>,
    cancelling: bool,
    markdown: MarkdownStream,
    /// Whether the current assistant message has shown text yet (its first line gets the
    /// bullet).
    text_started: bool,
    thinking: String,
    /// The pages the reply streaming now cites, listed under it when it is complete.
    sources: Vec<(String, String)>,
    show_thinking: bool,
    running: Vec<RunningTool>,
    /// The model's todo list while it has open items.
    todos: Vec<rein_protocol::BoardTask>,
    /// The session's teammates: name, state, and what each spent (tokens, cost).
    team: Vec<Teammate>,
    /// The first line of the user's status line command, shown instead of the model and
    /// the numbers.
    custom_status: Option<String>,
    prompt: Option<PermissionPrompt>,
    /// Questions waiting behind the one shown.
    waiting: VecDeque<PermissionPrompt>,
    picker: Option<Picker>,
    /// When Esc was last pressed on an empty, idle input (a second press opens `/rewind`).
    last_esc: Option<Instant>,
    /// Which completion is selected while a slash command is typed.
    completion: usize,
    completion_closed: bool,
    queued: VecDeque<String>,
    committed: Vec<Line<'static>>,
    quit_armed: Option<Instant>,
    notice: Option<String>,
    /// Folded results and thinking, for Ctrl-O.
    folded: fold::FoldedPieces,
    /// A new status line command for the runner to start (`None` inside: the built-in line).
    new_status_command: Option<Option<crate::StatusCommand>>,
    /// The background shell whose output is shown live (`/tasks` → pick).
    watch: Option<watch::TaskWatch>,
    /// The workspace's paths for `@` completion.
    paths: complete::PathIndex,
    /// A `#` line waiting for the user to pick where to remember it.
    remembering: Option<String>,
    /// The model's questions waiting for answers, the first shown.
    questions: VecDeque<QuestionDialog>,
    /// The terminal's height, for what scrolls inside the live area.
    rows: u16,
    /// The terminal's width, for what is printed to the scrollback at a key.
    cols: u16,
}

impl App {
    /// A UI with `theme`, these slash commands and an input box.
    pub fn new(theme: Theme, commands: Commands, input: Input, status: Status) -> Self {
        Self {
            theme,
            commands,
            input,
            status,
            busy: None,
            cancelling: false,
            markdown: MarkdownStream::new(theme),
            text_started: false,
            thinking: String::new(),
            sources: Vec::new(),
            show_thinking: false,
            running: Vec::new(),
            todos: Vec::new(),
            team: Vec::new(),
            custom_status: None,
            prompt: None,
            waiting: VecDeque::new(),
            picker: None,
            last_esc: None,
            completion: 0,
            completion_closed: false,
            queued: VecDeque::new(),
            folded: fold::FoldedPieces::default(),
            committed: Vec::new(),
            quit_armed: None,
            notice: None,
            new_status_command: None,
            watch: None,
            paths: complete::PathIndex::default(),
            remembering: None,
            questions: VecDeque::new(),
            rows: 24,
            cols: 80,
        }
    }

    /// The terminal is `cols` wide and `rows` tall (the screen says so before each draw).
    pub fn set_size(&mut self, cols: u16, rows: u16) {
        (self.cols, self.rows) = (cols, rows);
    }

    /// Lines finished since the last call, for the terminal's scrollback.
    pub fn take_committed(&mut self) -> Vec<Line<'static>> {
        std::mem::take(&mut self.committed)
    }

    /// Whether something animates (a spinner or elapsed time), so the screen needs ticks. A
    /// turn stopped on the user's answer to a permission prompt does not: nothing moves until
    /// they press a key.
    pub fn animating(&self) -> bool {
        let running = self
            .running
            .iter()
            .any(|tool| !tool.waiting && tool.finished.is_none());
        // A watched task's output is read again on each tick.
        let asking = self.prompt.is_some() || !self.questions.is_empty();
        running || (self.busy.is_some() && !asking) || self.watch.is_some()
    }

    /// Whether a turn (or a compaction) is in progress.
    pub fn is_busy(&self) -> bool {
        self.busy.is_some()
    }

    /// The status line's data.
    pub fn status_mut(&mut self) -> &mut Status {
        &mut self.status
    }

    /// The session shown (from the engine's `SessionStart`).
    pub fn session_id(&self) -> &str {
        &self.status.session_id
    }

    /// Adds lines to the scrollback.
    pub fn commit(&mut self, lines: impl IntoIterator<Item = Line<'static>>) {
        self.committed.extend(lines);
    }

    /// The user's message in the scrollback, after a blank line.
    pub(super) fn commit_user(&mut self, text: &str) {
        let theme = self.theme;
        self.committed.push(Line::raw(""));
        let count = text.lines().count();
        // A long prompt (a paste) is echoed folded: it was sent whole.
        let shown = if count > USER_LINES {
            USER_LINES - 2
        } else {
            count
        };
        for (n, line) in text.lines().take(shown).enumerate() {
            let lead = if n == 0 { "› " } else { "  " };
            self.committed.push(Line::from(vec![
                Span::styled(lead, theme.accent()),
                Span::styled(line.to_string(), theme.user()),
            ]));
        }
        if shown < count {
            self.committed.push(Line::styled(
                format!(
                    "  … +{} lines, sent whole (Ctrl-O shows all)",
                    count - shown
                ),
                theme.dim(),
            ));
            self.folded
                .keep("your prompt".into(), text, fold::FoldedKind::Text);
        }
    }

    /// A one-line note in the scrollback.
    pub fn info(&mut self, text: impl Into<String>) {
        let line = Line::styled(format!("  {}", text.into()), self.theme.dim());
        self.committed.push(line);
    }

    /// A one-line error in the scrollback.
    pub fn error(&mut self, text: impl Into<String>) {
        let line = Line::styled(format!("  ✗ {}", text.into()), self.theme.error());
        self.committed.push(line);
    }

    /// A compaction that did not happen: an error, or a note when there was nothing to do.
    pub fn compaction_failed(&mut self, message: &str) {
        if message.starts_with("nothing to compact") {
            self.info(message);
        } else {
            self.error(format!("compaction failed, nothing changed: {message}"));
        }
    }

    /// The model asks the user `questions`; the answers go to `reply`.
    pub fn ask_questions(
        &mut self,
        questions: Vec<rein_engine::questions::Question>,
        reply: AnswersReply,
    ) {
        if questions.is_empty() {
            let _ = reply.send(Some(Vec::new()));
            return;
        }
        self.questions
            .push_back(QuestionDialog::new(questions, reply));
    }

    /// Shows the engine's question about a tool call; the answer goes to `reply`.
    pub fn ask(&mut self, request: ApprovalRequest, reply: oneshot::Sender<Approval>) {
        let prompt = PermissionPrompt::new(request, reply, self.theme)
            .with_auto(if self.status.sandboxed {
                Offer::Shown
            } else {
                Offer::Hidden
            })
            .with_edits(if self.status.mode == PermissionMode::Default {
                Offer::Shown
            } else {
                Offer::Hidden
            });
        if self.prompt.is_some() {
            self.waiting.push_back(prompt);
        } else {
            self.prompt = Some(prompt);
        }
    }

    /// The slash commands the user may type, read again.
    pub fn set_commands(&mut self, commands: Commands) {
        self.commands = commands;
    }

    /// The session was replaced (`/clear`, `/resume`): a fresh status, nothing in flight.
    pub fn session_replaced(&mut self, status: Status, note: &str) {
        self.status = status;
        self.busy = None;
        self.release_calls();
        self.queued.clear();
        if !note.is_empty() {
            self.info(note);
        }
    }

    /// Handles a pasted text.
    pub fn paste(&mut self, text: &str) {
        match self.prompt.as_mut() {
            Some(_) => {}
            None => self.input.paste(text),
        }
    }

    /// Sends `text` as if typed and entered: a slash command, a prompt, or a queued prompt.
    pub fn submit(&mut self, text: String, now: Instant) -> Vec<Action> {
        if let Some(command) = self.commands.parse(&text) {
            return self.command(command, &text, now);
        }
        if let Some(actions) =
            (self.shortcut_prompt(&text, now)).or_else(|| self.type_into_watched(&text))
        {
            return actions;
        }
        if self.busy.is_some() {
            self.queued.push_back(text);
            return Vec::new();
        }
        self.begin_run(&text, now);
        vec![Action::Run(text)]
    }

    /// The mode was switched.
    pub fn set_mode(&mut self, mode: PermissionMode) {
        self.status.mode = mode;
        self.notice = Some(format!("permission mode: {}", mode.name()));
    }

    /// No call runs any more: the lines held for call order are committed, in order.
    fn release_calls(&mut self) {
        for tool in std::mem::take(&mut self.running) {
            self.committed.extend(tool.finished.unwrap_or_default());
        }
    }

    /// A job the runner started (a run, a compaction) ended.
    pub fn job_done(&mut self, now: Instant) -> Vec<Action> {
        self.flush_stream();
        self.busy = None;
        self.cancelling = false;
        self.notice = None;
        self.release_calls();
        match self.queued.pop_front() {
            Some(next) => self.submit(next, now),
            None => Vec::new(),
        }
    }

    /// Marks the UI busy with `label` (a compaction started by the runner, say).
    pub fn set_busy(&mut self, label: &str, now: Instant) {
        self.busy = Some(Busy {
            since: now,
            label: label.to_string(),
            retry_at: None,
        });
    }

    fn begin_run(&mut self, text: &str, now: Instant) {
        self.commit_user(text);
        self.set_busy("thinking", now);
        self.cancelling = false;
    }
}

#[cfg(test)]
#[path = "about_tests.rs"]
mod about_tests;
#[cfg(test)]
#[path = "fold_tests.rs"]
mod fold_tests;
#[cfg(test)]
#[path = "keys_tests.rs"]
mod keys_tests;
#[cfg(test)]
#[path = "notices_tests.rs"]
mod notices_tests;
#[cfg(test)]
#[path = "plan_tests.rs"]
mod plan_tests;
#[cfg(test)]
#[path = "prompt_tests.rs"]
mod prompt_tests;
#[cfg(test)]
#[path = "reply_tests.rs"]
mod reply_tests;
#[cfg(test)]
#[path = "rewind_tests.rs"]
mod rewind_tests;
#[cfg(test)]
#[path = "tests.rs"]
mod tests;

/// A teammate as the status line shows it.
#[derive(Debug, Clone, PartialEq)]
struct Teammate {
    name: String,
    state: String,
    tokens: u64,
    cost: Option<f64>,
}
