//! The web tools of a session, from `[web]`.

use std::time::Duration;

use rein_engine::web::WebTools;
use rein_web::{FetchLimits, Fetcher, Reach};

use crate::config::Config;

/// The web tools `config` offers: on unless `[web] enabled = false`; fetches reach public
/// addresses and the private hosts the user's own file allows; a fetch's prompt is answered
/// by `[web] fetch_model`, else `explore_model`, else the page itself is returned.
pub(crate) fn tools(config: &Config) -> Option<WebTools> {
    if config.web.enabled.as_ref().is_some_and(|e| !e.value) {
        return None;
    }
    let reach = Reach::new(
        config
            .web
            .allow_private_hosts
            .iter()
            .map(|h| h.value.clone()),
    );
    let mut limits = FetchLimits::default();
    if let Some(secs) = &config.web.fetch_timeout_secs {
        limits.timeout = Duration::from_secs(secs.value);
    }
    let answer_model = (config.web.fetch_model.as_ref())
        .or(config.explore_model.as_ref())
        .map(|m| m.value.clone());
    Some(WebTools {
        fetcher: Fetcher::new(reach, limits),
        answer_model,
    })
}
