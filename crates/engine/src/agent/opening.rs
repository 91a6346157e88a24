//! How a run opens: the `SessionStart` event, the problems met setting up (said once, at the
//! start of the next run), and what the `SessionStart` hooks are told (first run only; a
//! resume or a fresh start).

use rein_protocol::Event;

use super::Agent;
use crate::EventSender;
use crate::emitter::Emitter;

/// What the next run's opening depends on.
#[derive(Debug, Default)]
pub(super) struct Opening {
    /// Whether a run has started (the `SessionStart` hooks ran).
    pub(super) started: bool,
    /// Whether the transcript was restored from a stored session.
    pub(super) resumed: bool,
    /// Problems met setting up (a memory file or `.git/HEAD` skipped), reported as `Error`
    /// events at the start of the next run.
    pub(super) notices: Vec<String>,
}

impl Agent {
    /// Problems met setting up that the next run reports (a memory file or `.git/HEAD` that
    /// is not a regular file or is too large: skipped).
    pub fn notices(&self) -> &[String] {
        &self.opening.notices
    }

    /// Adds a problem for the user to [`Agent::notices`].
    pub fn add_notice(&mut self, text: impl Into<String>) {
        self.opening.notices.push(text.into());
    }

    /// Takes the notices to say now (the next run then says none of them).
    pub fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.opening.notices)
    }

    /// Says the run starts (`SessionStart`: provider, model, workspace, tools, and the prompt
    /// for in-process consumers), then the notices.
    pub(super) fn open_run(&mut self, events: &EventSender, prompt: Option<&str>) {
        events.emit(Event::SessionStart {
            session_id: self.session_id.clone(),
            provider: self.client.kind().name().to_string(),
            model: self.config.model.clone(),
            cwd: self.tool_ctx.guard.root().display().to_string(),
            tools: self.toolset.registry.names(),
            prompt: prompt.map(str::to_string),
        });
        for message in self.take_notices() {
            events.error(message);
        }
    }
}
