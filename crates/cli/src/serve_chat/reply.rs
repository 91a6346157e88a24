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

    /// Posts or edits the message when the platform's pace allows (`now`: regardless).
    async fn show(&mut self, now: bool) {
        let due = self
            .last_edit
            .is_none_or(|at| at.elapsed() >= self.platform.edit_interval());
        if !(self.dirty && (now || due)) {
            return;
        }
        let text = self.render(!now);
        let shown = match &self.posted {
            Some(posted) => self.platform.edit(posted, &text, &[]).await.map(|()| None),
            None => self.platform.post(&self.chat, &text, &[]).await.map(Some),
        };
        match shown {
            Ok(Some(posted)) => self.posted = Some(posted),
            Ok(None) => {}
            Err(e) => eprintln!("rein serve: {}: {e}", self.chat),
        }
        self.last_edit = Some(Instant::now());
        self.dirty = false;
    }

    /// The final answer replaces the streamed text.
    pub(super) async fn finish(&mut self, answer: &crate::hosted::Reply) {
        self.text = match answer.outcome {
            RunOutcome::Completed => answer.text.clone(),
            RunOutcome::Cancelled => format!("{}\n\n(stopped)", self.text.trim_end()),
            _ => format!("{}\n\n(rein: {})", self.text.trim_end(), answer.text),
        };
        self.dirty = true;
        self.show(true).await;
    }
}

#[async_trait]
impl Sink for Reply {
    async fn event(&mut self, event: &Event) {
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
