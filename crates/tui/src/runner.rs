//! The interactive loop: terminal input, engine events and permission questions in, the screen
//! and engine actions out. Draws only when something changed, and ticks only while something
//! animates, so an idle session costs no CPU.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

use tokio::signal::unix::{Signal, SignalKind, signal};

use async_trait::async_trait;
use crossterm::event::{Event as TermEvent, EventStream, KeyEventKind};
use futures::StreamExt;
use ratatui::backend::CrosstermBackend;
use rein_engine::questions::{Answer, Answerer, Question};
use rein_engine::{Agent, Approval, ApprovalRequest, Approver, Controller, EndReason, Op};
use rein_protocol::Event;
use tokio::sync::{mpsc, oneshot};

use crate::app::{Action, App};
use crate::host::{Launch, SessionHost};
use crate::screen::Screen;
use crate::screen::TuiError;
use crate::start::new_app;
use crate::term::RawMode;
use crate::theme::{Colors, Theme};

/// Spinner and elapsed-time refresh while something runs.
const TICK: Duration = Duration::from_millis(100);

/// Output is held until a frame is complete (the screen flushes once per frame), so the
/// terminal never shows half of one: finished lines without the live area below them.
const FRAME_BUFFER: usize = 64 * 1024;

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

/// Puts the model's questions to the UI loop and waits for the answers.
struct ChannelAnswerer {
    asks: mpsc::UnboundedSender<(Vec<Question>, crate::app::AnswersReply)>,
}

#[async_trait]
impl Answerer for ChannelAnswerer {
    async fn answer(&self, questions: Vec<Question>) -> Option<Vec<Answer>> {
        let (reply, answers) = oneshot::channel();
        self.asks.send((questions, reply)).ok()?;
        answers.await.ok().flatten()
    }
}

/// Runs the interactive UI until the user quits; gives the id of the session shown last.
/// Falls back to plain lines when standard input or output is not a terminal.
pub async fn run(launch: Launch) -> Result<String, TuiError> {
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        return crate::plain::run(launch).await;
    }
    let theme = theme(launch.no_color);
    let host = Arc::clone(&launch.host);
    let session_id = launch.agent.session_id().to_string();
    let mut engine = Engine::start(launch.agent, host.clone()).await;
    let mut app = new_app(&engine.driver, host.as_ref(), theme).await;
    app.replay(&engine.driver.transcript().await, &session_id);

    let (mut raw, mut screen) = open_terminal()?;
    let mut input = EventStream::new();
    let mut pending: Vec<Action> = match launch.prompt {
        Some(prompt) => app.submit(prompt, Instant::now()),
        None => Vec::new(),
    };
    let mut dirty = true;
    let mut stops = Stops::listen();
    let mut custom_status = status_lines(host.status_command(), &engine.driver);
    'ui: loop {
        for action in std::mem::take(&mut pending) {
            dirty = true;
            let rest;
            (raw, rest) = hand_over(action, &mut screen, raw, &mut app)?;
            let Some(action) = rest else {
                continue;
            };
            if crate::actions::act(action, &mut app, &mut engine.driver, host.as_ref()).await {
                break 'ui;
            }
            if let Some(command) = app.take_status_command() {
                custom_status = status_lines(command, &engine.driver);
            }
        }
        if dirty {
            crate::actions::refresh_watch(&mut app, &engine.driver);
            crate::term::note_session(app.session_id());
            screen.draw(&mut app, Instant::now())?;
            dirty = false;
        }
        let animating = app.animating();
        tokio::select! {
            term = input.next() => match terminal_input(term, &mut app, &mut screen)? {
                TermInput::Acted(actions) => (pending, dirty) = (actions, true),
                TermInput::Ignored => {}
                TermInput::Ended => break 'ui,
            },
            Some(event) = engine.events.recv() => {
                pending = engine.take_events(event, &mut app);
                dirty = true;
            }
            Some((request, reply)) = engine.questions.recv() => {
                app.ask(request, reply);
                dirty = true;
            }
            Some((questions, reply)) = engine.asks.recv() => {
                app.ask_questions(questions, reply);
                dirty = true;
            }
            Some(line) = custom_status.recv() => {
                app.set_custom_status(line);
                dirty = true;
            }
            () = tokio::time::sleep(TICK), if animating => dirty = true,
            kind = stops.next() => {
                STOPPED_BY.store(kind.as_raw_value(), Ordering::SeqCst);
                break 'ui;
            }
        }
    }
    engine.shut_down(&mut app).await;
    let committed = app.take_committed();
    let _ = screen.insert(&committed);
    let _ = screen.finish();
    drop(raw);
    Ok(app.session_id().to_string())
}

/// The engine's side of the loop: the controller, and what it sends the UI.
struct Engine {
    driver: Controller,
    events: mpsc::UnboundedReceiver<Event>,
    questions: mpsc::UnboundedReceiver<(ApprovalRequest, oneshot::Sender<Approval>)>,
    /// The model's own questions (`ask_user_question`).
    asks: mpsc::UnboundedReceiver<(Vec<Question>, crate::app::AnswersReply)>,
}

impl Engine {
    /// A controller for `agent` whose permission questions come to the UI.
    async fn start(agent: Agent, host: Arc<dyn SessionHost>) -> Self {
        let (events_tx, events) = mpsc::unbounded_channel();
        let (questions_tx, questions) = mpsc::unbounded_channel();
        let (asks_tx, asks) = mpsc::unbounded_channel();
        let approver: Arc<dyn Approver> = Arc::new(ChannelApprover {
            questions: questions_tx,
        });
        let mut driver = Controller::new(agent, host, events_tx, Some(approver));
        driver.serve_schedule();
        driver
            .set_answerer(Arc::new(ChannelAnswerer { asks: asks_tx }))
            .await;
        Self {
            driver,
            events,
            questions,
            asks,
        }
    }

    /// Hands `first` to the app, with what else has arrived (drawn once); the actions they
    /// ask.
    fn take_events(&mut self, first: Event, app: &mut App) -> Vec<Action> {
        let mut pending = app.event(first, Instant::now());
        while let Ok(event) = self.events.try_recv() {
            pending.extend(app.event(event, Instant::now()));
        }
        pending
    }

    /// Ends the session (the turn cancelled, the session saved) and shows its last events.
    async fn shut_down(&mut self, app: &mut App) {
        let _ = self
            .driver
            .apply(Op::Shutdown(EndReason::PromptInputExit))
            .await;
        while let Ok(event) = self.events.try_recv() {
            app.event(event, Instant::now());
        }
    }
}

/// Raw mode on, and the screen's live area at the cursor.
fn open_terminal() -> Result<(RawMode, Screen<CrosstermBackend<Stdout>>), TuiError> {
    let raw = RawMode::enable().map_err(|e| TuiError::Terminal(e.to_string()))?;
    let screen = Screen::new(CrosstermBackend::new(std::io::BufWriter::with_capacity(
        FRAME_BUFFER,
        std::io::stdout(),
    )))?;
    Ok((raw, screen))
}

/// Output as the screen writes it: held until a frame is complete.
type Stdout = std::io::BufWriter<std::io::Stdout>;

/// SIGTERM (a supervisor) and SIGHUP (the terminal went away), which end the session as
/// /quit does: the turn cancelled, its commands killed, the session saved.
struct Stops {
    terminate: Option<Signal>,
    hangup: Option<Signal>,
}

impl Stops {
    /// Listens for both (either may be unavailable: then it never arrives).
    fn listen() -> Self {
        Self {
            terminate: signal(SignalKind::terminate()).ok(),
            hangup: signal(SignalKind::hangup()).ok(),
        }
    }

    /// The next of them to arrive.
    async fn next(&mut self) -> SignalKind {
        tokio::select! {
            Some(()) = next_signal(&mut self.terminate) => SignalKind::terminate(),
            Some(()) = next_signal(&mut self.hangup) => SignalKind::hangup(),
            else => std::future::pending().await,
        }
    }
}

/// Carries out an action that hands the terminal over (Ctrl-Z, an editor); the others are
/// given back for [`crate::actions::act`].
fn hand_over<B: ratatui::backend::Backend>(
    action: Action,
    screen: &mut Screen<B>,
    raw: RawMode,
    app: &mut App,
) -> Result<(RawMode, Option<Action>), TuiError> {
    match action {
        Action::Suspend => Ok((crate::term::suspend(screen, raw)?, None)),
        Action::EditFile(path) => {
            // The model's memory is private: its folder and file are made so before an
            // editor creates them with the umask's modes.
            if path
                .file_name()
                .is_some_and(|n| n == rein_engine::auto_memory::INDEX)
            {
                let _ = rein_engine::auto_memory::prepare(&path);
            }
            let (raw, edited) = crate::term::edit(screen, raw, &path)?;
            app.edited(&path, edited);
            Ok((raw, None))
        }
        other => Ok((raw, Some(other))),
    }
}

/// The UI's colours: none with `NO_COLOR`.
fn theme(no_color: bool) -> Theme {
    Theme::new(if no_color { Colors::Off } else { Colors::On })
}

/// The lines of the user's status line command (`None`: nothing comes).
fn status_lines(
    command: Option<crate::StatusCommand>,
    driver: &Controller,
) -> mpsc::UnboundedReceiver<String> {
    match command {
        Some(command) => crate::status_command::spawn(command, driver.watch_status()),
        None => mpsc::unbounded_channel().1,
    }
}

/// What an input from the terminal did.
enum TermInput {
    /// The app took it (a key, a paste, a resize): these actions follow, then a redraw.
    Acted(Vec<Action>),
    /// Nothing to do (a key release, an event the UI does not use).
    Ignored,
    /// The terminal's input ended.
    Ended,
}

/// Hands one input from the terminal to the app (or the screen, for a resize).
fn terminal_input<B: ratatui::backend::Backend>(
    term: Option<std::io::Result<TermEvent>>,
    app: &mut App,
    screen: &mut Screen<B>,
) -> Result<TermInput, TuiError> {
    Ok(match term {
        Some(Ok(TermEvent::Key(key))) if key.kind != KeyEventKind::Release => {
            TermInput::Acted(app.key(key, Instant::now()))
        }
        Some(Ok(TermEvent::Paste(text))) => {
            app.paste(&text);
            TermInput::Acted(Vec::new())
        }
        Some(Ok(TermEvent::Resize(..))) => {
            // The input reader has just given this event and reads no more until polled
            // again, so the screen may ask the terminal.
            screen.resized()?;
            TermInput::Acted(Vec::new())
        }
        Some(Ok(_)) => TermInput::Ignored,
        Some(Err(_)) | None => TermInput::Ended,
    })
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
