//! The web tools: `web_fetch` (Claude Code's `WebFetch`, its name in hooks and rules) reads a
//! page through [`rein_web::Fetcher`] and answers the call's prompt from it with a small model
//! when one is configured.

mod fetch_tool;

use std::sync::Arc;

use rein_tools::ToolRegistry;

pub use fetch_tool::{WEB_FETCH, WebFetch};

/// What the web tools need.
#[derive(Clone)]
pub struct WebTools {
    /// Gets pages: the addresses it may reach, its limits, the session's cache.
    pub fetcher: rein_web::Fetcher,
    /// The model that answers a fetch's prompt from the page (`[web] fetch_model`, else
    /// `explore_model`); `None`: the page itself is the result, trimmed to the output budget.
    pub answer_model: Option<String>,
}

impl std::fmt::Debug for WebTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebTools")
            .field("answer_model", &self.answer_model)
            .finish_non_exhaustive()
    }
}

/// Adds the web tools to `tools`; `models` gives the client of the answering model.
pub(crate) fn register(
    tools: &mut ToolRegistry,
    web: &WebTools,
    models: Option<Arc<dyn crate::subagents::ModelSource>>,
) {
    tools.register(Arc::new(WebFetch {
        fetcher: web.fetcher.clone(),
        answerer: web
            .answer_model
            .clone()
            .zip(models)
            .map(|(model, source)| fetch_tool::Answerer { model, source }),
    }));
}
