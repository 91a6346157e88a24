//! The model an agent asks: which one and through which client, how hard it thinks, and the
//! limits that follow from it (the context window, the output of each request).

use std::sync::Arc;

use rein_llm::ModelClient;

use super::Agent;

impl Agent {
    /// The protocol of the provider this agent asks.
    pub fn provider(&self) -> rein_llm::ProviderKind {
        self.client.kind()
    }

    /// Where the session keeps files its tools may read back (over-long outputs).
    pub fn outputs_dir(&self) -> Option<&std::path::Path> {
        self.tool_ctx.budget.save_dir()
    }

    /// The model this agent asks.
    pub fn model(&self) -> &str {
        &self.config.model
    }

    /// The model the next request asks: the plan model while the mode is `plan`, when one is
    /// set (`opusplan`), else [`Agent::model`].
    pub(super) fn request_model(&self) -> &str {
        let planning = self
            .gate
            .policy
            .lock()
            .is_ok_and(|p| p.mode == rein_policy::PermissionMode::Plan);
        match &self.config.plan_model {
            Some(model) if planning => model,
            _ => &self.config.model,
        }
    }

    /// Switches to another model from the next request on, served by `client` (the same
    /// client when the provider does not change). The tool set stays as it is.
    pub fn set_model(&mut self, model: impl Into<String>, client: Arc<dyn ModelClient>) {
        self.config.model = model.into();
        self.client = client;
        // The last reported usage was counted by the old model's tokenizer.
        self.transcript.anchor = None;
    }

    /// How hard the model is asked to think (`None`: its own default).
    pub fn effort(&self) -> Option<rein_llm::Effort> {
        self.config.effort
    }

    /// Sets how hard the model thinks from the next request on (`None`: its own default).
    pub fn set_effort(&mut self, effort: Option<rein_llm::Effort>) {
        self.config.effort = effort;
    }

    /// The context window the transcript is kept within, in tokens.
    pub fn context_window(&self) -> u64 {
        self.window()
    }

    /// The context window: configured, else the model's.
    pub(super) fn window(&self) -> u64 {
        self.config
            .context_window
            .unwrap_or_else(|| self.model_limits().context_window)
    }

    /// The output limit of each request: configured, else the model's.
    pub(super) fn max_output(&self) -> u32 {
        self.config.max_tokens.unwrap_or_else(|| {
            rein_llm::models::first_output(&self.config.model, &self.config.max_output_tokens)
        })
    }

    /// The most output a request may ask for after a reply was cut: the model's limit, or
    /// `max_tokens` when the user set it.
    pub(super) fn largest_output(&self) -> u32 {
        self.config
            .max_tokens
            .unwrap_or_else(|| self.model_limits().max_output)
    }

    fn model_limits(&self) -> rein_llm::models::ModelLimits {
        rein_llm::models::limits_with(
            &self.config.model,
            &self.config.context_windows,
            &self.config.max_output_tokens,
        )
    }
}
