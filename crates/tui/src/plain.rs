//! Plain line output, when standard output or input is not a terminal: the same lines the UI
//! would put in the scrollback, without colour or a live area; prompts are read line by line
//! from standard input after the initial one. Nobody can answer permission questions here, so
//! calls that need approval are refused with a message saying how to allow them.

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use tokio::io::AsyncBufReadExt;
use tokio::sync::mpsc;

use crate::actions::act;
use crate::app::{Action, App};
use crate::host::Launch;
use crate::screen::TuiError;
use crate::start::new_app;
use crate::theme::Theme;
use rein_engine::{Controller, EndReason, Op};

/// Runs prompts until standard input ends or `/quit`.
pub async fn run(launch: Launch) -> Result<String, TuiError> {
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let host = Arc::clone(&launch.host);
    let mut driver = Controller::new(launch.agent, host.clone(), events_tx, None);
    let mut app = new_app(&driver, host.as_ref(), Theme::PLAIN).await;
    let mut stdin = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    let mut next = launch.prompt;
    loop {
        let prompt = match next.take() {
            Some(prompt) => prompt,
            None => match stdin.next_line().await {
                Ok(Some(line)) if line.trim().is_empty() => continue,
                Ok(Some(line)) => line,
                Ok(None) | Err(_) => break,
            },
        };
        let mut pending = app.submit(prompt, Instant::now());
        let mut quit = false;
        while !pending.is_empty() {
            for action in std::mem::take(&mut pending) {
                let job = matches!(action, Action::Run(_) | Action::Compact(_));
                if act(action, &mut app, &mut driver, host.as_ref()).await {
                    quit = true;
                    break;
                }
                print_committed(&mut app);
                if !job {
                    continue;
                }
                // Wait for the job, printing as it goes.
                while let Some(event) = events.recv().await {
                    let end = event.ends_job();
                    pending.extend(app.event(event, Instant::now()));
                    print_committed(&mut app);
                    if end {
                        break;
                    }
                }
            }
            if quit {
                break;
            }
        }
        if quit {
            break;
        }
    }
    let _ = driver.apply(Op::Shutdown(EndReason::PromptInputExit)).await;
    while let Ok(event) = events.try_recv() {
        app.event(event, Instant::now());
    }
    print_committed(&mut app);
    Ok(app.session_id().to_string())
}

fn print_committed(app: &mut App) {
    let mut out = std::io::stdout().lock();
    for line in crate::sanitize::lines(app.take_committed()) {
        let _ = writeln!(out, "{line}");
    }
    let _ = out.flush();
}
