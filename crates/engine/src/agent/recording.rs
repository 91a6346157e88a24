//! What the session file gets: the agent starts recording, continues a stored transcript, and
//! appends each record (usage priced with the session's cache lifetime).

use std::sync::{Arc, Mutex};

use rein_protocol::{ContentBlock, Message, Role, SessionRecord, Usage};
use rein_tools::HiddenEnv;

use super::Agent;
use super::transcript::tool_calls;
use crate::session::SessionWriter;

/// Where the session is recorded, and how that went.
#[derive(Default)]
pub(super) struct Recording {
    /// The session file, if any. Shared with the dispatch of a batch, which records each
    /// result as its call finishes.
    pub(super) writer: Option<Arc<Mutex<SessionWriter>>>,
    /// The first failure to record, reported once at the end of the run.
    pub(super) problem: Option<String>,
    /// A subagent's (`task` call id, agent name): its records go into the parent's session
    /// file wrapped as a side chain.
    pub(super) sidechain: Option<(String, String)>,
}

impl Recording {
    /// Appends a record to the session file; a failure is kept and reported once.
    pub(super) fn append(&mut self, record: SessionRecord) {
        let record = sidechained(self.sidechain.as_ref(), record);
        if let Some(writer) = self.writer.as_ref()
            && let Err(e) = writer
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .append(&record)
            && self.problem.is_none()
        {
            self.problem = Some(format!("the session could not be saved: {e}"));
        }
    }

    /// What records each tool result of a batch as its call finishes, `hidden`'s values
    /// redacted.
    pub(super) fn result_sink(
        &self,
        hidden: HiddenEnv,
    ) -> impl Fn(&ContentBlock) + Send + Sync + use<> {
        let writer = self.writer.clone();
        let sidechain = self.sidechain.clone();
        move |block: &ContentBlock| {
            append_result(writer.as_ref(), &hidden, sidechain.as_ref(), block);
        }
    }
}

impl Agent {
    /// Records the session from now on: every message, usage and error is appended to
    /// `writer` as it happens. Hooks get its file as `transcript_path`.
    pub fn record_to(&mut self, writer: SessionWriter) {
        self.gate.hooks.set_transcript_path(writer.path());
        self.recording.writer = Some(Arc::new(Mutex::new(writer)));
    }

    /// Continues an earlier conversation: its transcript becomes this agent's (before the
    /// first run; call [`Agent::record_to`] first so repairs are recorded too). The
    /// `SessionStart` hooks see it as a resume.
    /// A session killed during a tool call ends with calls that have no results: they are
    /// answered as possibly run with the result lost, so the transcript is valid for the
    /// provider again.
    pub fn restore(&mut self, transcript: Vec<Message>, usage: Usage, cost_usd: Option<f64>) {
        self.transcript.messages = transcript;
        self.totals.usage = usage;
        self.totals.cost = cost_usd;
        self.opening.resumed = true;
        if let Some(last) = self.transcript.messages.last()
            && last.role == Role::Assistant
        {
            let calls = tool_calls(last);
            if !calls.is_empty() {
                // Loading repairs this already; a transcript restored from elsewhere may not be.
                let lost = calls
                    .into_iter()
                    .map(|call| ContentBlock::ToolResult {
                        tool_use_id: call.id,
                        content: crate::session::LOST_RESULT.to_string(),
                        is_error: true,
                        media: Vec::new(),
                    })
                    .collect();
                self.push_user_blocks(lost);
            }
        }
    }

    /// Prices one request's usage with the session's cache lifetime and records it; the cost.
    pub(super) fn record_usage(&mut self, usage: rein_protocol::Usage) -> Option<f64> {
        let model = self.request_model().to_string();
        let cost = rein_llm::cost_usd_with(&model, &usage, self.config.cache_ttl);
        self.record(SessionRecord::Usage {
            model,
            usage,
            cost_usd: cost,
        });
        cost
    }

    /// Appends a record to the session file ([`Recording::append`]).
    pub(super) fn record(&mut self, record: SessionRecord) {
        self.recording.append(record);
    }
}

/// Records one tool result as its own user message part (joined with its batch's other
/// results when the session is loaded). A failure shows up at the agent's next record.
fn append_result(
    recorder: Option<&Arc<Mutex<SessionWriter>>>,
    hidden: &HiddenEnv,
    sidechain: Option<&(String, String)>,
    block: &ContentBlock,
) {
    let Some(recorder) = recorder else {
        return;
    };
    let mut block = block.clone();
    if let ContentBlock::ToolResult { content, .. } = &mut block
        && let std::borrow::Cow::Owned(clean) = hidden.redact(content)
    {
        *content = clean;
    }
    let record = sidechained(
        sidechain,
        SessionRecord::Message {
            message: Message {
                role: Role::User,
                content: vec![block],
            },
        },
    );
    let _ = recorder
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .append(&record);
}

/// `record` as a subagent's side-chain record when `sidechain` names one.
fn sidechained(sidechain: Option<&(String, String)>, record: SessionRecord) -> SessionRecord {
    match sidechain {
        Some((agent_id, agent)) => SessionRecord::Sidechain {
            agent_id: agent_id.clone(),
            agent: agent.clone(),
            record: Box::new(record),
        },
        None => record,
    }
}
