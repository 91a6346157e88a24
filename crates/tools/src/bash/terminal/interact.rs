//! One exchange with a session: keys typed (unless the terminal waits for a secret), a wait
//! for the program to answer, and what it showed since the last exchange, with how the
//! session stands.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::{Session, Terminals};
use crate::bash::jobs::JobStatus;
use crate::{ToolContext, ToolOutput};

/// The quiet after output that ends the wait for a new command's first output: long enough
/// that a program pausing between lines is not cut short, short enough for a prompt.
pub(crate) const START_QUIET: Duration = Duration::from_millis(500);
/// The quiet after output that ends the wait once keys were typed: a REPL's answer.
pub(crate) const TYPED_QUIET: Duration = Duration::from_millis(200);

/// Longest wait one exchange may ask for.
pub(crate) const MAX_YIELD_MS: u64 = 30_000;
/// Longest wait of a poll (nothing typed).
pub(crate) const MAX_POLL_MS: u64 = 300_000;

/// How the result is written: rein's notes, or codex's header (for models trained on it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// Output, then a bracketed note on the session.
    Rein,
    /// `Wall time`, `Process running with session ID N` or `Process exited with code N`,
    /// then `Output:`.
    Codex,
}

/// What one exchange asks.
pub(crate) struct Exchange<'a> {
    pub id: u32,
    pub chars: &'a str,
    pub wait: Duration,
    /// Most bytes of output returned.
    pub limit: usize,
    pub style: Style,
}

/// Types into session `exchange.id`, waits, and reports.
pub(crate) async fn exchange(
    terminals: &Terminals,
    exchange: Exchange<'_>,
    ctx: &ToolContext,
) -> ToolOutput {
    let started = Instant::now();
    let session = match terminals.get(exchange.id) {
        Ok(session) => session,
        Err(error) => return ToolOutput::error(error.to_string()),
    };
    if !exchange.chars.is_empty() {
        if !session.running() {
            return report(&session, Report::new(exchange.id, started, &exchange), ctx)
                .into_error_note("nothing was typed: the command has ended");
        }
        if session.reads_secret() {
            return ToolOutput::error(secret_note(exchange.id, &session));
        }
        if let Err(e) = session.write(exchange.chars.as_bytes()).await {
            return ToolOutput::error(format!("cannot type into session {}: {e}", exchange.id));
        }
        terminals.typed(exchange.id, exchange.chars);
    }
    settle(&session, (exchange.wait, TYPED_QUIET), ctx).await;
    report(&session, Report::new(exchange.id, started, &exchange), ctx).finish()
}

/// Waits for the program as [`Session::settle`] does (`wait` at most, `quiet` after
/// output), or until the user interrupts.
pub(crate) async fn settle(
    session: &Session,
    (wait, quiet): (Duration, Duration),
    ctx: &ToolContext,
) {
    tokio::select! {
        () = session.settle(Instant::now() + wait, quiet) => {}
        () = ctx.cancel.cancelled() => {}
    }
}

/// The parts of a result.
pub(crate) struct Report {
    id: u32,
    started: Instant,
    limit: usize,
    style: Style,
}

impl Report {
    pub(crate) fn new(id: u32, started: Instant, exchange: &Exchange<'_>) -> Self {
        Self {
            id,
            started,
            limit: exchange.limit,
            style: exchange.style,
        }
    }
}

/// A result being written.
pub(crate) struct Written {
    text: String,
    status: String,
    is_error: bool,
    style: Style,
    header: String,
}

impl Written {
    fn into_error_note(mut self, note: &str) -> ToolOutput {
        self.is_error = true;
        self.status = format!("[{note}]\n{}", self.status);
        self.finish()
    }

    pub(crate) fn finish(self) -> ToolOutput {
        let text = match self.style {
            Style::Rein => {
                let mut text = self.text;
                if text.is_empty() {
                    text.push_str("(no new output)\n");
                }
                text.push_str(&self.status);
                text
            }
            Style::Codex => format!("{}{}\nOutput:\n{}", self.header, self.status, self.text),
        };
        ToolOutput {
            text,
            is_error: self.is_error,
            details: None,
            media: Vec::new(),
        }
    }
}

/// What session `report.id` showed since the last exchange, and how it stands.
pub(crate) fn report(session: &Arc<Session>, report: Report, ctx: &ToolContext) -> Written {
    let raw = session
        .screen
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .read_new();
    let text = ctx.hidden_env.redact(&raw).into_owned();
    let limit = report.limit.min(ctx.budget.content_room());
    let text = crate::output::truncate_head_tail(&text, limit);
    let status = session.status();
    let id = report.id;
    let (status_line, is_error) = match (&status, report.style) {
        (JobStatus::Running, Style::Codex) if session.reads_secret() => (
            format!(
                "Process running with session ID {id}\n{}",
                secret_note(id, session)
            ),
            false,
        ),
        (JobStatus::Running, Style::Codex) => {
            (format!("Process running with session ID {id}"), false)
        }
        (JobStatus::Exited(code), Style::Codex) => {
            (format!("Process exited with code {code}"), *code != 0)
        }
        (other, Style::Codex) => (format!("Process ended: {other}"), true),
        (JobStatus::Running, Style::Rein) if session.reads_secret() => {
            (format!("[{}]", secret_note(id, session)), false)
        }
        (JobStatus::Running, Style::Rein) => (
            format!(
                "[session {id} is running: type into it with write_stdin {{\"id\": {id}, \
                 \"chars\": \"...\\n\"}} (empty chars waits for more output; \"\\u0003\" is \
                 Ctrl-C), end it with kill_shell {{\"id\": \"{id}\"}}]"
            ),
            false,
        ),
        (JobStatus::Exited(0), Style::Rein) => {
            (format!("[session {id} ended: exit code 0]"), false)
        }
        (other, Style::Rein) => (format!("[session {id} ended: {other}]"), true),
    };
    let header = format!(
        "Wall time: {:.4} seconds\n",
        report.started.elapsed().as_secs_f64()
    );
    Written {
        text: if text.is_empty() || text.ends_with('\n') {
            text
        } else {
            format!("{text}\n")
        },
        status: status_line,
        is_error,
        style: report.style,
        header,
    }
}

/// The note for a program waiting for a password or passphrase.
fn secret_note(id: u32, session: &Session) -> String {
    let prompt = session
        .screen
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .last_line();
    format!(
        "session {id} is asking for a secret ({prompt:?}, typed without echo); rein never types \
         passwords or passphrases: ask the user to run this command themselves, or use a way \
         that needs none (a key agent, a token in the environment, `sudo -n`); end it with \
         kill_shell {{\"id\": \"{id}\"}}"
    )
}
