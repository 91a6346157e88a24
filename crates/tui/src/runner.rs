//! The interactive loop: terminal input, engine events and permission questions in, the screen
//! and engine actions out. Draws only when something changed, and ticks only while something
//! animates, so an idle session costs no CPU.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

use tokio::signal::unix::{Signal, SignalKind, signal};

use async_trait::async_trait;
use crossterm::event::{Event as TermEvent, EventStream, KeyEventKind};
use futures::StreamExt;
use ratatui::backend::CrosstermBackend;
use rein_engine::session::SessionSummary;
use rein_engine::{
    Agent, AgentFactory, Applied, Approval, ApprovalRequest, Approver, Controller, EndReason, Op,
};
use rein_protocol::Event;
use tokio::sync::{mpsc, oneshot};

use crate::app::{Action, App};
use crate::history::PromptHistory;
use crate::input::Input;
use crate::screen::Screen;
use crate::slash::Commands;
use crate::term::RawMode;
use crate::theme::Theme;

/// Spinner and elapsed-time refresh while something runs.
const TICK: Duration = Duration::from_millis(100);

/// Output is held until a frame is complete (the screen flushes once per frame), so the
/// terminal never shows half of one: finished lines without the live area below them.
const FRAME_BUFFER: usize = 64 * 1024;

/// What the binary provides: sessions and models, which need its configuration.
/// Agents for `/clear`, `/resume` and `/model` come from its [`AgentFactory`] side.
pub trait SessionHost: AgentFactory {
    /// This workspace's stored sessions, newest first.
    fn sessions(&self) -> Vec<SessionSummary>;
    /// Where this workspace's prompt history is kept.
    fn history_file(&self) -> Option<PathBuf>;
    /// The custom commands and skills the user may type.
    fn commands(&self) -> rein_engine::commands::Catalog;
    /// The session's MCP servers, for `/mcp`.
    fn mcp_servers(&self) -> Vec<McpServerView> {
        Vec::new()
    }
    /// The workspace, for the start line.
    fn workspace(&self) -> Option<PathBuf> {
        None
    }
}

/// One MCP server as `/mcp` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerView {
    /// Its name.
    pub name: String,
    /// `stdio` or `http`.
    pub transport: String,
    /// `connected · 7 tools`, or why it failed.
    pub status: String,
    /// More lines: its tools, its prompts, where it is configured.
    pub details: Vec<String>,
}

/// What `rein` starts the UI with.
pub struct Launch {
    /// The agent (new or resumed, already recording).
    pub agent: Agent,
    /// Sessions and models.
    pub host: Arc<dyn SessionHost>,
    /// A prompt to send at once.
    pub prompt: Option<String>,
    /// `NO_COLOR` is set.
    pub no_color: bool,
}

/// The UI could not run.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// The terminal refused an operation.
    #[error("{0}")]
    Terminal(String),
}

/// Asks the UI loop and waits for its answer.
struct ChannelApprover {
    questions: mpsc::UnboundedSender<(ApprovalRequest, oneshot::Sender<Approval>)>,
}

#[async_trait]
impl Approver for ChannelApprover {
    async fn approve(&self, request: ApprovalRequest) -> Approval {
        let (reply, answer) = oneshot::channel();
        if self.questions.send((request, reply)).is_err() {
            return Approval::Deny { note: None };
        }
        answer.await.unwrap_or(Approval::Deny { note: None })
    }
}

/// Runs the interactive UI until the user quits; gives the id of the session shown last.
/// Falls back to plain lines when standard input or output is not a terminal.
pub async fn run(launch: Launch) -> Result<String, TuiError> {
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        return crate::plain::run(launch).await;
    }
    let theme = Theme::new(launch.no_color);
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let (questions_tx, mut questions) = mpsc::unbounded_channel();
    let approver: Arc<dyn Approver> = Arc::new(ChannelApprover {
        questions: questions_tx,
    });
    let host = Arc::clone(&launch.host);
    let session_id = launch.agent.session_id().to_string();
    let mut driver = Controller::new(launch.agent, host.clone(), events_tx, Some(approver));
    let mut app = new_app(&driver, host.as_ref(), theme).await;
    app.replay(&driver.transcript().await, &session_id);

    let mut raw = RawMode::enable().map_err(|e| TuiError::Terminal(e.to_string()))?;
    let mut screen = Screen::new(CrosstermBackend::new(std::io::BufWriter::with_capacity(
        FRAME_BUFFER,
        std::io::stdout(),
    )))
    .map_err(TuiError::Terminal)?;
    let mut input = EventStream::new();
    let mut pending: Vec<Action> = match launch.prompt {
        Some(prompt) => app.submit(prompt, Instant::now()),
        None => Vec::new(),
    };
    let mut dirty = true;
    // SIGTERM (a supervisor) and SIGHUP (the terminal went away) end the session as /quit
    // does: the turn cancelled, its commands killed, the session saved.
    let mut terminate = signal(SignalKind::terminate()).ok();
    let mut hangup = signal(SignalKind::hangup()).ok();
    'ui: loop {
        for action in std::mem::take(&mut pending) {
            if action == Action::Suspend {
                // Ctrl-Z came from the input reader, which, having given an event, reads no
                // more until polled again: the screen may ask the terminal where the cursor is
                // on the way back. (Should the reader still hold the input, the question times
                // out and the screen stops asking.)
                screen.finish().map_err(TuiError::Terminal)?;
                raw = raw
                    .suspend()
                    .map_err(|e| TuiError::Terminal(e.to_string()))?;
                screen.resume().map_err(TuiError::Terminal)?;
                dirty = true;
                continue;
            }
            if act(action, &mut app, &mut driver, host.as_ref()).await {
                break 'ui;
            }
            dirty = true;
        }
        if dirty {
            crate::term::note_session(app.session_id());
            screen
                .draw(&mut app, Instant::now())
                .map_err(TuiError::Terminal)?;
            dirty = false;
        }
        let animating = app.animating();
        tokio::select! {
            term = input.next() => match term {
                Some(Ok(TermEvent::Key(key))) if key.kind != KeyEventKind::Release => {
                    pending = app.key(key, Instant::now());
                    dirty = true;
                }
                Some(Ok(TermEvent::Paste(text))) => {
                    app.paste(&text);
                    dirty = true;
                }
                Some(Ok(TermEvent::Resize(..))) => {
                    // The input reader has just given this event and reads no more until
                    // polled again, so the screen may ask the terminal.
                    screen.resized().map_err(TuiError::Terminal)?;
                    dirty = true;
                }
                Some(Ok(_)) => {}
                Some(Err(_)) | None => break 'ui,
            },
            Some(event) = events.recv() => {
                pending = app.event(event, Instant::now());
                // Take what else has arrived before drawing once.
                while let Ok(event) = events.try_recv() {
                    pending.extend(app.event(event, Instant::now()));
                }
                dirty = true;
            }
            Some((request, reply)) = questions.recv() => {
                app.ask(request, reply);
                dirty = true;
            }
            () = tokio::time::sleep(TICK), if animating => dirty = true,
            Some(()) = next_signal(&mut terminate) => {
                STOPPED_BY.store(SignalKind::terminate().as_raw_value(), Ordering::SeqCst);
                break 'ui;
            }
            Some(()) = next_signal(&mut hangup) => {
                STOPPED_BY.store(SignalKind::hangup().as_raw_value(), Ordering::SeqCst);
                break 'ui;
            }
        }
    }
    let _ = driver.apply(Op::Shutdown(EndReason::PromptInputExit)).await;
    while let Ok(event) = events.try_recv() {
        app.event(event, Instant::now());
    }
    let committed = app.take_committed();
    let _ = screen.insert(&committed);
    let _ = screen.finish();
    drop(raw);
    Ok(app.session_id().to_string())
}

/// The signal that ended the last [`run`], if one did (0: none).
static STOPPED_BY: AtomicI32 = AtomicI32::new(0);

/// The signal (SIGTERM, SIGHUP) that ended the UI, once [`run`] has returned.
pub fn stopped_by() -> Option<i32> {
    Some(STOPPED_BY.load(Ordering::SeqCst)).filter(|s| *s != 0)
}

/// The next delivery of `signal`; never, without one.
async fn next_signal(signal: &mut Option<Signal>) -> Option<()> {
    match signal {
        Some(signal) => signal.recv().await,
        None => std::future::pending().await,
    }
}

/// An `App` for the controller's agent, with this workspace's history and commands.
pub(crate) async fn new_app(driver: &Controller, host: &dyn SessionHost, theme: Theme) -> App {
    let history = PromptHistory::load(host.history_file());
    let commands = Commands::load(&host.commands());
    let warnings: Vec<String> = history.warning().map(str::to_string).into_iter().collect();
    let status = driver.status().await;
    let mut start = format!("rein {}", env!("CARGO_PKG_VERSION"));
    if let Some(workspace) = host.workspace() {
        start.push_str(&format!(" · {}", home_relative(&workspace)));
    }
    start.push_str(&format!(
        " · {} · {} mode",
        status.model,
        status.mode.name()
    ));
    let mut app = App::new(theme, commands, Input::new(history), status);
    app.info(start);
    for warning in warnings {
        app.error(warning);
    }
    app
}

/// `path` with the home folder shown as `~`.
fn home_relative(path: &std::path::Path) -> String {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match home
        .as_deref()
        .and_then(|home| path.strip_prefix(home).ok())
    {
        Some(rest) if rest.as_os_str().is_empty() => "~".to_string(),
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}

/// Carries out one action; true when the UI should end.
pub(crate) async fn act(
    action: Action,
    app: &mut App,
    driver: &mut Controller,
    host: &dyn SessionHost,
) -> bool {
    let op = match action {
        Action::Quit => return true,
        // Only the terminal loop can suspend.
        Action::Suspend => return false,
        Action::ListSessions => {
            app.open_session_picker(&host.sessions());
            return false;
        }
        Action::ShowPermissions => {
            if let Some(policy) = driver.policy().await {
                app.show_policy(&policy);
            }
            return false;
        }
        Action::ListTasks => {
            app.show_tasks(&driver.tasks());
            return false;
        }
        Action::ShowMcp => {
            app.show_mcp(&host.mcp_servers());
            return false;
        }
        Action::OpenRewind => {
            match driver.rewind_points() {
                Ok(points) => app.open_rewind_picker(&points),
                Err(e) => app.error(e.to_string()),
            }
            return false;
        }
        Action::PlanRewind(back) => {
            match driver.rewind_preview(back) {
                Ok(preview) => app.open_rewind_choices(back, preview.as_ref()),
                Err(e) => app.error(e.to_string()),
            }
            return false;
        }
        Action::Rewind {
            back,
            code,
            conversation,
            force,
        } => Op::Rewind {
            back,
            code,
            conversation,
            force,
        },
        Action::StopTask(id) => Op::StopTask(id),
        Action::Run(prompt) => Op::Submit(prompt),
        Action::Cancel => Op::Cancel,
        Action::Compact(focus) => Op::Compact { focus },
        Action::NewSession => Op::NewSession,
        Action::Resume(id) => Op::Resume(id),
        Action::SetModel(model) => Op::SetModel(model),
        Action::SetEffort(effort) => Op::SetEffort(effort),
        Action::SetMode(mode) => Op::SetMode(mode),
    };
    let shown = match &op {
        Op::Resume(id) => Some(id.clone()),
        _ => None,
    };
    match (op.clone(), driver.apply(op).await) {
        (_, Err(error)) => app.error(error.to_string()),
        (Op::NewSession, Ok(Applied::Status(status))) => {
            app.session_replaced(status, "── new session ──");
            // The new agent read the command folders again: so does the list.
            app.set_commands(Commands::load(&host.commands()));
        }
        (Op::Resume(_), Ok(Applied::Status(status))) => {
            app.session_replaced(status, "");
            app.set_commands(Commands::load(&host.commands()));
            if let Some(id) = shown {
                app.replay(&driver.transcript().await, &id);
            }
        }
        (Op::SetModel(_), Ok(Applied::Status(status))) => {
            app.info(format!("model: {}", status.model));
            let current = app.status_mut();
            current.model = status.model;
            current.context_window = status.context_window;
            current.context_tokens = status.context_tokens;
        }
        (Op::SetEffort(effort), Ok(_)) => {
            app.status_mut().effort = effort;
            app.info(format!(
                "effort: {}",
                effort.map_or("the model's own", |e| e.name())
            ));
        }
        (Op::SetMode(mode), Ok(_)) => app.set_mode(mode),
        (_, Ok(Applied::Said(said))) => app.info(said),
        (
            _,
            Ok(Applied::Rewound {
                status,
                prompt,
                files,
            }),
        ) => app.rewound(status, &prompt, &files),
        _ => {}
    }
    false
}

/// Whether `event` ends a job: a run's `Result`, a compaction's `CompactionEnd`.
pub(crate) fn ends_job(event: &Event) -> bool {
    matches!(event, Event::Result { .. } | Event::CompactionEnd { .. })
}
