//! A prompt's answer as one chat message: posted when the first words or tool call come,
//! then edited as more arrive (no oftener than the platform allows), the tool calls listed
//! above the text; at the end, the whole answer.

use std::sync::Arc;

use async_trait::async_trait;
use rein_chat::{ChatId, Platform, Posted};
use rein_protocol::{Event, RunOutcome};
use tokio::time::Instant;

use crate::hosted::Sink;

/// The most tool calls listed above an answer.
const MAX_CALLS: usize = 12;

/// How many times the final text is tried.
const FINAL_TRIES: u32 = 4;

/// The file a long answer is sent as.
const ANSWER_FILE: &str = "answer.md";

/// What a cut answer ends with.
const FILE_NOTE: &str = "(the whole answer is in answer.md)";

/// One prompt's reply message.
pub(super) struct Reply {
    platform: Arc<dyn Platform>,
    chat: ChatId,
    posted: Option<Posted>,
    calls: Vec<String>,
    text: String,
    last_edit: Option<Instant>,
    /// Something changed since the message was last edited.
    dirty: bool,
}

impl Reply {
    pub(super) fn new(platform: Arc<dyn Platform>, chat: ChatId) -> Self {
        Self {
            platform,
            chat,
            posted: None,
            calls: Vec::new(),
            text: String::new(),
            last_edit: None,
            dirty: false,
        }
    }

    /// The message as it stands: the calls, then the text (while it streams, up to its last
    /// space: a word still coming, a key half-way, is not shown before it is whole and can be
    /// redacted).
    fn render(&self, streaming: bool) -> String {
        let mut out = String::new();
        let hidden = self.calls.len().saturating_sub(MAX_CALLS);
        if hidden > 0 {
            out.push_str(&format!("… {hidden} earlier tool calls\n"));
        }
        for call in self.calls.iter().skip(hidden) {
            out.push_str(call);
            out.push('\n');
        }
        if !self.calls.is_empty() && !self.text.is_empty() {
            out.push('\n');
        }
        let text = match streaming {
            true => self
                .text
                .rfind(char::is_whitespace)
                .map_or("", |end| &self.text[..end]),
            false => &self.text,
        };
        out.push_str(text);
        if out.trim().is_empty() {
            out = "…".into();
        }
        out
    }

    /// Posts or edits the message when the platform's pace allows (`now`: regardless, and
    /// a rate limit or an outage waited out a few times: the final text must land). What
    /// could not be shown stays to show at the next change.
    async fn show(&mut self, now: bool) {
        let due = self
            .last_edit
            .is_none_or(|at| at.elapsed() >= self.platform.edit_interval());
        if !(self.dirty && (now || due)) {
            return;
        }
        let text = self.render(!now);
        let tries = if now { FINAL_TRIES } else { 1 };
        for attempt in 1..=tries {
            let shown = match &self.posted {
                Some(posted) => self.platform.edit(posted, &text, &[]).await.map(|()| None),
                None => self.platform.post(&self.chat, &text, &[]).await.map(Some),
            };
            self.last_edit = Some(Instant::now());
            match shown {
                Ok(posted) => {
                    if posted.is_some() {
                        self.posted = posted;
                    }
                    self.dirty = false;
                    return;
                }
                Err(e) => {
                    eprintln!("rein serve: {}: {e}", self.chat);
                    if attempt < tries {
                        tokio::time::sleep(wait_after(&e, attempt)).await;
                    }
                }
            }
        }
    }

    /// The final answer replaces the streamed text; one too long for a message is cut there
    /// and sent whole as a file.
    pub(super) async fn finish(&mut self, answer: &crate::hosted::Reply) {
        self.text = match answer.outcome {
            RunOutcome::Completed => answer.text.clone(),
            RunOutcome::Cancelled => format!("{}\n\n(stopped)", self.text.trim_end()),
            _ => format!("{}\n\n(rein: {})", self.text.trim_end(), answer.text),
        };
        let whole = self.text.clone();
        let too_long = self.render(false).chars().count() > self.platform.max_chars();
        if too_long {
            // Room for the calls above, the note below, and some to spare.
            let room = self
                .platform
                .max_chars()
                .saturating_sub(self.calls_len() + 200);
            let head: String = whole.chars().take(room).collect();
            self.text = format!("{head}…\n\n{FILE_NOTE}");
        }
        self.dirty = true;
        self.show(true).await;
        if too_long && let Err(e) = self.platform.upload(&self.chat, ANSWER_FILE, &whole).await {
            eprintln!("rein serve: {}: {e}", self.chat);
        }
    }

    /// The characters the tool-call lines take.
    fn calls_len(&self) -> usize {
        self.calls.iter().map(|c| c.chars().count() + 1).sum()
    }
}

/// How long to wait after the `attempt`th failure `e`: what a rate limit asks, else 1, 2,
/// 4 s; never more than 30 s.
fn wait_after(e: &rein_chat::ChatError, attempt: u32) -> std::time::Duration {
    let asked = match e {
        rein_chat::ChatError::Refused { retry_after, .. } => *retry_after,
        rein_chat::ChatError::Unreachable { .. } => None,
    };
    let backoff = std::time::Duration::from_secs(1 << attempt.saturating_sub(1).min(4));
    asked
        .unwrap_or(backoff)
        .min(std::time::Duration::from_secs(30))
}

#[async_trait]
impl Sink for Reply {
    async fn event(&mut self, event: Event) {
        let event = &event;
        match event {
            Event::TextDelta { text } => self.text.push_str(text),
            Event::ToolCallStart { name, summary, .. } => {
                self.calls
                    .push(format!("→ {name} {summary}").trim_end().to_string());
            }
            Event::ToolCallEnd { is_error: true, .. } => {
                if let Some(last) = self.calls.last_mut() {
                    last.push_str(" (failed)");
                }
            }
            _ => return,
        }
        self.dirty = true;
        self.show(false).await;
    }
}
