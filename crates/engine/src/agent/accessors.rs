//! What a front end reads and sets on a running agent: the approver, the policy, the model
//! and effort, the transcript and totals.

use std::sync::{Arc, Mutex};

use rein_llm::ModelClient;
use rein_protocol::{Message, Usage};

use super::Agent;
use crate::gate::Approver;
use crate::permissions::Policy;
use crate::prompt::SystemPrompt;

impl Agent {
    /// The workspace's root (canonical).
    pub fn workspace(&self) -> &std::path::Path {
        self.tool_ctx.guard.root()
    }

    /// Lets `approver` answer the calls the policy asks about; without one, such calls are
    /// refused with a message saying how to allow them.
    pub fn set_approver(&mut self, approver: Arc<dyn Approver>) {
        self.gate.approver = Some(approver);
    }

    /// The live permission policy (a front end may switch the mode mid-session).
    pub fn policy(&self) -> Arc<Mutex<Policy>> {
        Arc::clone(&self.gate.policy)
    }

    /// Whether shell commands can run in the OS sandbox (`auto` mode needs it).
    pub fn sandboxed(&self) -> bool {
        self.tool_ctx.sandbox.is_some()
    }

    /// The transcript so far.
    pub fn transcript(&self) -> &[Message] {
        &self.transcript
    }

    /// Problems met setting up that the next run reports (a memory file or `.git/HEAD` that
    /// is not a regular file or is too large: skipped).
    pub fn notices(&self) -> &[String] {
        &self.notices
    }

    /// Adds a problem for the user to [`Agent::notices`].
    pub fn add_notice(&mut self, text: impl Into<String>) {
        self.notices.push(text.into());
    }

    /// Takes the notices to say now (the next run then says none of them).
    pub fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }

    /// The protocol of the provider this agent asks.
    pub fn provider(&self) -> rein_llm::ProviderKind {
        self.client.kind()
    }

    /// The system prompt sent with every request.
    pub fn system_prompt(&self) -> &SystemPrompt {
        &self.system
    }

    /// The model this agent asks.
    pub fn model(&self) -> &str {
        &self.config.model
    }

    /// This session's identifier.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The context window the transcript is kept within, in tokens.
    pub fn context_window(&self) -> u64 {
        self.window()
    }

    /// Usage and cost (when known) of the whole session so far.
    pub fn session_totals(&self) -> (Usage, Option<f64>) {
        (self.session_usage, self.session_cost)
    }

    /// Sets how hard the model thinks from the next request on (`None`: its own default).
    pub fn set_effort(&mut self, effort: Option<rein_llm::Effort>) {
        self.config.effort = effort;
    }

    /// How hard the model is asked to think (`None`: its own default).
    pub fn effort(&self) -> Option<rein_llm::Effort> {
        self.config.effort
    }

    /// Switches to another model from the next request on, served by `client` (the same
    /// client when the provider does not change). The tool set stays as it is.
    pub fn set_model(&mut self, model: impl Into<String>, client: Arc<dyn ModelClient>) {
        self.config.model = model.into();
        self.client = client;
        // The last reported usage was counted by the old model's tokenizer.
        self.anchor = None;
    }
}
