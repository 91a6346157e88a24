//! The web tools: `web_fetch` (Claude Code's `WebFetch`, its name in hooks and rules) reads a
//! page through [`rein_web::Fetcher`] and answers the call's prompt from it with a small model
//! when one is configured.

mod fetch_tool;
mod search_tool;
mod shown;

pub(crate) use shown::search_events;

use std::sync::Arc;

use rein_tools::ToolRegistry;

pub use fetch_tool::{WEB_FETCH, WebFetch};
pub use search_tool::{WEB_SEARCH, WebSearch};

/// How the model searches the web.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Search {
    /// It does not.
    #[default]
    Off,
    /// With the provider's own search (Anthropic's for Claude models, the Responses API's),
    /// declared on every request; the Chat protocol has none, so nothing is offered there.
    Hosted(rein_llm::HostedSearch),
    /// With `web_search`, a tool rein runs against a search API.
    Backend(rein_web::SearchBackend),
}

/// What the web tools need.
#[derive(Clone)]
pub struct WebTools {
    /// Gets pages: the addresses it may reach, its limits, the session's cache.
    pub fetcher: rein_web::Fetcher,
    /// The model that answers a fetch's prompt from the page (`[web] fetch_model`, else
    /// `explore_model`); `None`: the page itself is the result, trimmed to the output budget.
    pub answer_model: Option<String>,
    /// How the model searches.
    pub search: Search,
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
    models: Option<Arc<dyn rein_llm::models::ModelSource>>,
) {
    tools.register(Arc::new(WebFetch {
        fetcher: web.fetcher.clone(),
        answerer: web
            .answer_model
            .clone()
            .zip(models)
            .map(|(model, source)| fetch_tool::Answerer { model, source }),
    }));
    if let Search::Backend(backend) = &web.search {
        tools.register(Arc::new(WebSearch(backend.clone())));
    }
}

/// The provider's own search for a request to `model` over `provider`, when `web` has it.
pub(crate) fn hosted(
    web: Option<&WebTools>,
    provider: rein_llm::ProviderKind,
    model: &str,
) -> Option<rein_llm::HostedSearch> {
    let Search::Hosted(search) = &web?.search else {
        return None;
    };
    let serves = match provider {
        rein_llm::ProviderKind::Anthropic => model.starts_with("claude"),
        rein_llm::ProviderKind::Openai => true,
        rein_llm::ProviderKind::OpenaiChat => false,
    };
    serves.then(|| search.clone())
}
