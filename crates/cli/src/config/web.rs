//! `[web]`: the web tools — whether they are offered, the model that answers a fetch's
//! prompt, the fetch timeout, and the private hosts a fetch may reach (the user's own file
//! only: a workspace must not open the way to the machine's network) — and `[vision]`, which
//! models read images.

use serde::Deserialize;
use toml::Spanned;

use super::file::TomlFile;
use super::{Config, ConfigError, Reader, Scope, Sourced, Why, ignore, set};

/// `[web]` as a file writes it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebFile {
    /// `false` offers no web tool.
    pub enabled: Option<Spanned<bool>>,
    /// The model that answers a fetch's prompt from the page (default: `explore_model`).
    pub fetch_model: Option<Spanned<String>>,
    /// Seconds a fetch may take, redirects included (default 30).
    pub fetch_timeout_secs: Option<Spanned<u64>>,
    /// `host:port` or `host` a fetch may reach although it is local or private.
    pub allow_private_hosts: Option<Vec<Spanned<String>>>,
    /// How the model searches: `auto`, `hosted`, `searxng`, `brave` or `off`.
    pub search: Option<Spanned<String>>,
    /// The search API's base URL (SearXNG's instance; Brave's API by default).
    pub search_url: Option<Spanned<String>>,
    /// The variable holding the search API's key (default `BRAVE_API_KEY`).
    pub search_key_env: Option<Spanned<String>>,
    /// Most searches the provider runs per response (default 5).
    pub search_max_uses: Option<Spanned<u32>>,
    /// Only these domains in the provider's search results.
    pub search_allowed_domains: Option<Vec<Spanned<String>>>,
    /// Never these domains in the provider's search results.
    pub search_blocked_domains: Option<Vec<Spanned<String>>>,
}

/// `[web]` merged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WebConfig {
    pub enabled: Option<Sourced<bool>>,
    pub fetch_model: Option<Sourced<String>>,
    pub fetch_timeout_secs: Option<Sourced<u64>>,
    /// From the user's own file only.
    pub allow_private_hosts: Vec<Sourced<String>>,
    pub search: Option<Sourced<String>>,
    pub search_url: Option<Sourced<String>>,
    pub search_key_env: Option<Sourced<String>>,
    pub search_max_uses: Option<Sourced<u32>>,
    pub search_allowed_domains: Vec<Sourced<String>>,
    pub search_blocked_domains: Vec<Sourced<String>>,
}

/// The values `[web] search` takes.
pub const SEARCH_MODES: [&str; 5] = ["auto", "hosted", "searxng", "brave", "off"];

/// Adds `[web]` and `[vision]` of `file` to `config`.
pub(super) fn merge(
    config: &mut Config,
    file: &TomlFile,
    reader: &Reader<'_>,
) -> Result<(), ConfigError> {
    merge_fetch(config, &file.web, reader)?;
    merge_search(config, &file.web, reader)?;
    for (prefix, sees) in &file.vision {
        if prefix.trim().is_empty() {
            let key = format!("vision.{prefix}");
            return Err(reader.error(sees, &key, "the model name prefix is empty"));
        }
        config
            .vision
            .insert(prefix.to_ascii_lowercase(), reader.sourced(sees));
    }
    Ok(())
}

/// `enabled`, the fetch settings, and the private hosts (the user's own file only).
fn merge_fetch(config: &mut Config, web: &WebFile, reader: &Reader<'_>) -> Result<(), ConfigError> {
    set(&mut config.web.enabled, web.enabled.as_ref(), reader);
    set(
        &mut config.web.fetch_model,
        web.fetch_model.as_ref(),
        reader,
    );
    if let Some(secs) = &web.fetch_timeout_secs
        && *secs.get_ref() == 0
    {
        return Err(reader.error(secs, "web.fetch_timeout_secs", "must be above 0"));
    }
    set(
        &mut config.web.fetch_timeout_secs,
        web.fetch_timeout_secs.as_ref(),
        reader,
    );
    for host in web.allow_private_hosts.iter().flatten() {
        if reader.source.scope == Scope::User {
            config.web.allow_private_hosts.push(reader.sourced(host));
        } else {
            let what = format!("web.allow_private_hosts entry {:?}", host.get_ref());
            ignore(config, what, reader.at(host), Why::UserOnly);
        }
    }
    Ok(())
}

/// How the model searches; where queries go and which key they carry only from the user's
/// own file, as provider routing is (a workspace could otherwise send a key to a server of
/// its choosing).
fn merge_search(
    config: &mut Config,
    web: &WebFile,
    reader: &Reader<'_>,
) -> Result<(), ConfigError> {
    if let Some(mode) = &web.search
        && !SEARCH_MODES.contains(&mode.get_ref().as_str())
    {
        let expected = SEARCH_MODES.join(", ");
        return Err(reader.error(mode, "web.search", format!("expected one of {expected}")));
    }
    set(&mut config.web.search, web.search.as_ref(), reader);
    for (key, value, slot) in [
        (
            "web.search_url",
            &web.search_url,
            &mut config.web.search_url,
        ),
        (
            "web.search_key_env",
            &web.search_key_env,
            &mut config.web.search_key_env,
        ),
    ] {
        let Some(value) = value else { continue };
        if reader.source.scope == Scope::User {
            *slot = Some(reader.sourced(value));
        } else {
            let what = format!("{key} {:?}", value.get_ref());
            config.ignored.push(super::Ignored {
                what,
                source: reader.at(value),
                why: Why::Credentials,
            });
        }
    }
    set(
        &mut config.web.search_max_uses,
        web.search_max_uses.as_ref(),
        reader,
    );
    for domain in web.search_allowed_domains.iter().flatten() {
        config
            .web
            .search_allowed_domains
            .push(reader.sourced(domain));
    }
    for domain in web.search_blocked_domains.iter().flatten() {
        config
            .web
            .search_blocked_domains
            .push(reader.sourced(domain));
    }
    Ok(())
}
