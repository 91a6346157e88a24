//! What the session file gets: the agent starts recording, continues a stored transcript, and
//! appends each record (usage priced with the session's cache lifetime).

use rein_protocol::{Message, Role, SessionRecord, Usage};

use super::{Agent, tool_calls};
use crate::dispatch;
use crate::session::SessionWriter;

impl Agent {
    /// Records the session from now on: every message, usage and error is appended to
    /// `writer` as it happens. Hooks get its file as `transcript_path`.
    pub fn record_to(&mut self, writer: SessionWriter) {
        self.gate.hooks.set_transcript_path(writer.path());
        self.recorder = Some(writer);
    }

    /// Continues an earlier conversation: its transcript becomes this agent's (before the
    /// first run; call [`Agent::record_to`] first so repairs are recorded too). The
    /// `SessionStart` hooks see it as a resume.
    /// A session killed during a tool call ends with calls that have no results: they are
    /// answered as interrupted, so the transcript is valid for the provider again.
    pub fn restore(&mut self, transcript: Vec<Message>, usage: Usage, cost_usd: Option<f64>) {
        self.transcript = transcript;
        self.session_usage = usage;
        self.session_cost = cost_usd;
        self.resumed = true;
        if let Some(last) = self.transcript.last()
            && last.role == Role::Assistant
        {
            let calls = tool_calls(last);
            if !calls.is_empty() {
                self.push_user_blocks(dispatch::interrupted(calls));
            }
        }
    }

    /// Prices one request's usage with the session's cache lifetime and records it; the cost.
    pub(super) fn record_usage(&mut self, usage: rein_protocol::Usage) -> Option<f64> {
        let cost = rein_llm::cost_usd_with(&self.config.model, &usage, self.config.cache_ttl);
        self.record(SessionRecord::Usage {
            model: self.config.model.clone(),
            usage,
            cost_usd: cost,
        });
        cost
    }

    /// Appends a record to the session file; a failure is kept and reported once.
    pub(super) fn record(&mut self, record: SessionRecord) {
        if let Some(writer) = self.recorder.as_mut()
            && let Err(e) = writer.append(&record)
            && self.record_problem.is_none()
        {
            self.record_problem = Some(format!("the session could not be saved: {e}"));
        }
    }
}
