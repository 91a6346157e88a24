//! The web tools of a session, from `[web]`.

use std::time::Duration;

use rein_engine::web::{Search, WebTools};
use rein_llm::{HostedSearch, ProviderKind};
use rein_policy::Policy;
use rein_web::{FetchLimits, Fetcher, Reach, SearchBackend};

use super::ProviderSettings;
use crate::Exit;
use crate::config::Config;

/// Searches the provider runs per response unless `[web] search_max_uses` says.
const MAX_USES: u32 = 5;
/// Brave's API.
const BRAVE_URL: &str = "https://api.search.brave.com";

/// Gives `agent` the web tools `config` offers, and hides the search API's key from the
/// processes its tools start.
pub(crate) fn give(
    agent: &mut rein_engine::AgentConfig,
    config: &Config,
    provider: &ProviderSettings,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(), Exit> {
    agent.web = tools(config, provider, (&agent.policy, &agent.parsers), env)?;
    agent.hidden_env.extend(search_key_env(config));
    Ok(())
}

/// The web tools `config` offers: on unless `[web] enabled = false`; fetches reach public
/// addresses and the private hosts the user's own file allows; a fetch's prompt is answered
/// by `[web] fetch_model`, else `explore_model`, else the page itself is returned; searches
/// as [`search`] says.
pub(crate) fn tools(
    config: &Config,
    provider: &ProviderSettings,
    (policy, parsers): (&Policy, &rein_sandbox::bounded::Parsers),
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<WebTools>, Exit> {
    if config.web.enabled.as_ref().is_some_and(|e| !e.value) {
        return Ok(None);
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
    Ok(Some(WebTools {
        // The session's parsers: pages share the children's slots with its files.
        fetcher: Fetcher::new(reach, limits).with_parsers(parsers.clone()),
        answer_model,
        search: search(config, provider, policy, env)?,
    }))
}

/// How the model searches: `[web] search`, by default (`auto`) the provider's own search at
/// Anthropic's and OpenAI's own endpoints (a compatible server may have none) and none
/// elsewhere; `searxng` and `brave` a search API rein calls. A rule that denies or asks for
/// `WebSearch` turns the provider's search off: it runs at the provider, where nobody asks.
fn search(
    config: &Config,
    provider: &ProviderSettings,
    policy: &Policy,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Search, Exit> {
    let web = &config.web;
    let mode = web.search.as_ref().map_or("auto", |m| m.value.as_str());
    let official = provider.kind != ProviderKind::OpenaiChat
        && provider.base_url == rein_llm::default_base_url(provider.kind);
    let withheld = (policy.rules.deny.iter().chain(&policy.rules.ask))
        .any(|r| r.rule.covers(rein_engine::web::WEB_SEARCH));
    let hosted = || {
        Search::Hosted(HostedSearch {
            max_uses: web.search_max_uses.as_ref().map_or(MAX_USES, |m| m.value),
            allowed_domains: web
                .search_allowed_domains
                .iter()
                .map(|d| d.value.clone())
                .collect(),
            blocked_domains: web
                .search_blocked_domains
                .iter()
                .map(|d| d.value.clone())
                .collect(),
        })
    };
    let url = web.search_url.as_ref().map(|u| u.value.clone());
    Ok(match mode {
        "off" => Search::Off,
        "auto" if official && !withheld => hosted(),
        "hosted" if !withheld => hosted(),
        "auto" | "hosted" => Search::Off,
        "searxng" => Search::Backend(SearchBackend::Searxng {
            url: url.ok_or_else(|| {
                Exit::usage("[web] search = \"searxng\" needs search_url (the instance's URL)")
            })?,
        }),
        _ => {
            let key_env = search_key_env(config).unwrap_or_default();
            let key = env(&key_env)
                .filter(|k| !k.trim().is_empty())
                .ok_or_else(|| {
                    Exit::usage(format!(
                        "[web] search = \"brave\" needs a Brave Search API key in {key_env}"
                    ))
                })?;
            Search::Backend(SearchBackend::Brave {
                url: url.unwrap_or_else(|| BRAVE_URL.to_string()),
                key,
            })
        }
    })
}

/// The variable holding the search API's key, when a keyed API is configured: no child
/// process may inherit it.
pub(crate) fn search_key_env(config: &Config) -> Option<String> {
    let brave = config
        .web
        .search
        .as_ref()
        .is_some_and(|m| m.value == "brave");
    brave.then(|| {
        (config.web.search_key_env.as_ref())
            .map_or_else(|| "BRAVE_API_KEY".to_string(), |k| k.value.clone())
    })
}
