//! Web search through an API rein calls itself, for servers without a search of their own
//! (the Chat protocol): a SearXNG instance's JSON API, or Brave's Web Search API with a key.
//! The endpoint is the user's own configuration, so it may be on the local network.

use std::sync::OnceLock;
use std::time::Duration;

use serde::Deserialize;

/// A search API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchBackend {
    /// A SearXNG instance (`<url>/search?q=…&format=json`; JSON output must be enabled).
    Searxng {
        /// The instance's base URL.
        url: String,
    },
    /// Brave's Web Search API (`X-Subscription-Token`).
    Brave {
        /// The API's base URL (`https://api.search.brave.com`; a test's server otherwise).
        url: String,
        /// The subscription token.
        key: String,
    },
}

/// One result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// Its title.
    pub title: String,
    /// Its address.
    pub url: String,
    /// The snippet the engine shows.
    pub snippet: String,
}

/// Why a search failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    /// The API could not be reached or failed.
    #[error("the search API failed: {0}")]
    Failed(String),
    /// The API answered something else than its documented JSON.
    #[error("the search API's answer could not be read: {0}")]
    Unreadable(String),
}

/// SearXNG's answer (`results[]`).
#[derive(Deserialize)]
struct Searxng {
    #[serde(default)]
    results: Vec<SearxngHit>,
}

#[derive(Deserialize)]
struct SearxngHit {
    #[serde(default)]
    title: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    content: String,
}

/// Brave's answer (`web.results[]`).
#[derive(Deserialize)]
struct Brave {
    #[serde(default)]
    web: Option<BraveWeb>,
}

#[derive(Deserialize)]
struct BraveWeb {
    #[serde(default)]
    results: Vec<BraveHit>,
}

#[derive(Deserialize)]
struct BraveHit {
    #[serde(default)]
    title: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    description: String,
}

impl SearchBackend {
    /// The results for `query`, at most `limit`.
    pub async fn search(&self, query: &str, limit: usize) -> Result<Vec<Hit>, SearchError> {
        let client = client()?;
        let endpoint = |base: &str, path: &str, pairs: &[(&str, &str)]| {
            let mut url = url::Url::parse(&format!("{}{path}", base.trim_end_matches('/')))
                .map_err(|e| SearchError::Failed(format!("bad search URL {base}: {e}")))?;
            url.query_pairs_mut().extend_pairs(pairs);
            Ok::<_, SearchError>(url)
        };
        let request = match self {
            Self::Searxng { url } => client.get(endpoint(
                url,
                "/search",
                &[("q", query), ("format", "json")],
            )?),
            Self::Brave { url, key } => {
                let count = limit.min(20).to_string();
                let pairs = [("q", query), ("count", count.as_str())];
                client
                    .get(endpoint(url, "/res/v1/web/search", &pairs)?)
                    .header("Accept", "application/json")
                    .header("X-Subscription-Token", key)
            }
        };
        let response = request
            .send()
            .await
            .map_err(|e| SearchError::Failed(e.to_string()))?;
        let status = response.status();
        let body = response
            .bytes()
            .await
            .map_err(|e| SearchError::Failed(e.to_string()))?;
        if !status.is_success() {
            let text = String::from_utf8_lossy(&body);
            let first: String = text.chars().take(200).collect();
            return Err(SearchError::Failed(format!("HTTP {status}: {first}")));
        }
        let hits: Vec<Hit> = match self {
            Self::Searxng { .. } => serde_json::from_slice::<Searxng>(&body)
                .map_err(|e| SearchError::Unreadable(e.to_string()))?
                .results
                .into_iter()
                .map(|h| Hit {
                    title: h.title,
                    url: h.url,
                    snippet: h.content,
                })
                .collect(),
            Self::Brave { .. } => serde_json::from_slice::<Brave>(&body)
                .map_err(|e| SearchError::Unreadable(e.to_string()))?
                .web
                .map(|w| w.results)
                .unwrap_or_default()
                .into_iter()
                .map(|h| Hit {
                    title: h.title,
                    url: h.url,
                    snippet: h.description,
                })
                .collect(),
        };
        Ok(hits.into_iter().take(limit).collect())
    }
}

/// The client every search shares, built at the first: setting up TLS reads the system's root
/// certificates, once.
fn client() -> Result<&'static reqwest::Client, SearchError> {
    static CLIENT: OnceLock<Result<reqwest::Client, String>> = OnceLock::new();
    let built = CLIENT.get_or_init(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
        reqwest::Client::builder()
            .timeout(Duration::from_secs(20))
            .user_agent(concat!("rein/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| e.to_string())
    });
    built.as_ref().map_err(|e| SearchError::Failed(e.clone()))
}

/// Whether `url`'s host is `domain` or under it (`docs.rs` covers `www.docs.rs`).
pub fn in_domain(url: &str, domain: &str) -> bool {
    let Some(host) = url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
    else {
        return false;
    };
    let domain = domain.trim().trim_start_matches("*.").to_ascii_lowercase();
    host == domain || host.ends_with(&format!(".{domain}"))
}
