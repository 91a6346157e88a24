//! Getting a page: the client (no proxy, no cookies, no redirects of its own, a resolver that
//! refuses private addresses), the redirect walk, the body cap, the cache.

use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use url::Url;

use crate::addresses::{Guarded, Private, Reach, is_public};
use crate::cache::Cache;

/// How long a fetched page is answered from memory.
pub const FETCH_CACHE_TTL: Duration = Duration::from_secs(15 * 60);
/// What every request says it is.
const USER_AGENT: &str = concat!(
    "rein/",
    env!("CARGO_PKG_VERSION"),
    " (coding agent; web_fetch)"
);

/// How far a fetch may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchLimits {
    /// Most bytes of a body read; the rest is not downloaded.
    pub max_body: usize,
    /// Longest a fetch may take, redirects included.
    pub timeout: Duration,
    /// Most same-host redirects followed.
    pub max_redirects: usize,
}

impl Default for FetchLimits {
    fn default() -> Self {
        Self {
            max_body: 10 * 1024 * 1024,
            timeout: Duration::from_secs(30),
            max_redirects: 10,
        }
    }
}

/// A page as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// Where it was found (after same-host redirects).
    pub url: String,
    /// The HTTP status.
    pub status: u16,
    /// Its media type (`text/html`).
    pub content_type: String,
    /// Its text: Markdown for HTML, the body itself for other text.
    pub text: String,
    /// Bytes downloaded.
    pub bytes: usize,
    /// Whether the body was longer than [`FetchLimits::max_body`] and cut there.
    pub cut: bool,
}

/// What a fetch found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// The page.
    Page(Page),
    /// A redirect to another host, not followed: the model may fetch it itself.
    Redirect {
        /// The URL that redirected.
        from: String,
        /// Where it pointed.
        to: String,
        /// The status (301, 302, 303, 307, 308).
        status: u16,
    },
}

/// Why a page could not be fetched; each says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// Not a URL, or not `http(s)`.
    #[error("{0}")]
    BadUrl(String),
    /// The page could not be turned into text: its parser stopped at its limits.
    #[error("{url}: {message}")]
    Unparsable {
        /// The page.
        url: String,
        /// Why, with the limits.
        message: String,
    },
    /// A loopback, link-local or private address.
    #[error(
        "refused: {} a local or private address; web_fetch reaches public addresses only (a \
         user may allow a host with `[web] allow_private_hosts` in their own config)",
        which(.host, .ip)
    )]
    Private {
        /// The host as the URL names it.
        host: String,
        /// The address it is or resolves to.
        ip: IpAddr,
    },
    /// The name does not resolve.
    #[error("cannot resolve {host}: {message}")]
    Resolve {
        /// The host.
        host: String,
        /// What the resolver said.
        message: String,
    },
    /// Longer than [`FetchLimits::timeout`].
    #[error("timed out after {0} s")]
    Timeout(u64),
    /// A status other than success or a redirect.
    #[error("HTTP {status} from {url}")]
    Status {
        /// The status.
        status: u16,
        /// The URL that answered.
        url: String,
    },
    /// Not text.
    #[error(
        "{url} is {content_type}, not a page: web_fetch reads HTML and text (download a \
         file with bash `curl -o` if you need it)"
    )]
    Binary {
        /// The URL.
        url: String,
        /// Its media type.
        content_type: String,
    },
    /// More same-host redirects than [`FetchLimits::max_redirects`].
    #[error("too many redirects (more than {0})")]
    Redirects(usize),
    /// The connection or the transfer failed.
    #[error("{0}")]
    Network(String),
}

/// The subject of a refusal: `10.0.0.1 is`, or `localhost is 127.0.0.1,` for a name.
fn which(host: &str, ip: &IpAddr) -> String {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    match bare.parse::<IpAddr>() {
        Ok(_) => format!("{host} is"),
        Err(_) => format!("{host} is {ip},"),
    }
}

/// Fetches pages for one session, with its cache.
#[derive(Debug, Clone)]
pub struct Fetcher {
    /// Built at the first fetch: setting up TLS reads the system's root certificates, which a
    /// session that fetches nothing should not pay for at start. One client for the host:port
    /// pairs the user allowed (their private addresses resolve), one for everything else.
    client: Arc<std::sync::OnceLock<Result<reqwest::Client, String>>>,
    allowed_client: Arc<std::sync::OnceLock<Result<reqwest::Client, String>>>,
    reach: Reach,
    limits: FetchLimits,
    cache: Arc<Mutex<Cache>>,
    /// Where a page's HTML is converted (a child under limits in rein).
    parsers: rein_sandbox::bounded::Parsers,
}

impl Fetcher {
    /// A fetcher that reaches public addresses and the hosts `reach` allows.
    pub fn new(reach: Reach, limits: FetchLimits) -> Self {
        Self {
            client: Arc::default(),
            allowed_client: Arc::default(),
            reach,
            limits,
            cache: Arc::default(),
            parsers: rein_sandbox::bounded::Parsers::in_process(),
        }
    }

    /// This fetcher, converting pages with `parsers`.
    pub fn with_parsers(self, parsers: rein_sandbox::bounded::Parsers) -> Self {
        Self { parsers, ..self }
    }

    /// The client for `url`: no proxy, no cookies, no redirects of its own, the guarded
    /// resolver — the one that resolves private addresses only when the user allowed the URL's
    /// host and port. One that could not be built fails every fetch (a client without the
    /// resolver never runs).
    fn client(&self, url: &Url) -> Result<&reqwest::Client, FetchError> {
        let host = url.host_str().unwrap_or_default();
        let port = url.port_or_known_default().unwrap_or(443);
        let (cell, private) = if self.reach.allows(host, port) {
            (&self.allowed_client, Private::Allowed)
        } else {
            (&self.client, Private::Refused)
        };
        let built = cell.get_or_init(|| self.build_client(private));
        built.as_ref().map_err(|e| FetchError::Network(e.clone()))
    }

    fn build_client(&self, private: Private) -> Result<reqwest::Client, String> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let resolver = Arc::new(Guarded {
            reach: self.reach.clone(),
            private,
        });
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .dns_resolver(resolver)
            .connect_timeout(Duration::from_secs(10))
            .user_agent(USER_AGENT)
            .build()
            .map_err(|e| format!("cannot set up the HTTP client: {e}"))
    }

    /// The page at `url` (plain HTTP upgraded to HTTPS, except for a host the user allowed),
    /// from the cache when fetched in the last 15 minutes.
    pub async fn fetch(&self, url: &str) -> Result<Fetched, FetchError> {
        let url = self.target(url)?;
        if let Some(page) = self.cached(url.as_str()) {
            return Ok(Fetched::Page(page));
        }
        let seconds = self.limits.timeout.as_secs().max(1);
        let fetched = tokio::time::timeout(self.limits.timeout, self.walk(url.clone()))
            .await
            .map_err(|_| FetchError::Timeout(seconds))??;
        if let Fetched::Page(page) = &fetched {
            self.keep(url.as_str(), page);
        }
        Ok(fetched)
    }

    /// `url` parsed, checked and upgraded.
    fn target(&self, url: &str) -> Result<Url, FetchError> {
        let mut url = Url::parse(url.trim())
            .map_err(|e| FetchError::BadUrl(format!("not a valid URL ({e}): {url}")))?;
        if !url.username().is_empty() || url.password().is_some() {
            return Err(FetchError::BadUrl(
                "a URL with credentials in it is not fetched".into(),
            ));
        }
        let host = url
            .host_str()
            .ok_or_else(|| FetchError::BadUrl(format!("no host in {url}")))?
            .to_string();
        match url.scheme() {
            "https" => {}
            "http" => {
                let port = url.port_or_known_default().unwrap_or(80);
                if !self.reach.allows(&host, port) {
                    let _ = url.set_scheme("https");
                    if url.port() == Some(80) {
                        let _ = url.set_port(None);
                    }
                }
            }
            other => {
                return Err(FetchError::BadUrl(format!(
                    "only http and https URLs are fetched, not {other}:"
                )));
            }
        }
        self.check_literal(&url)?;
        Ok(url)
    }

    /// An address written in the URL itself (no resolver sees it) must be public or allowed.
    fn check_literal(&self, url: &Url) -> Result<(), FetchError> {
        let ip = match url.host() {
            Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip),
            Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip),
            _ => return Ok(()),
        };
        let host = url.host_str().unwrap_or_default();
        let port = url.port_or_known_default().unwrap_or(443);
        if is_public(ip) || self.reach.allows(host, port) {
            Ok(())
        } else {
            Err(FetchError::Private {
                host: host.to_string(),
                ip,
            })
        }
    }

    /// Follows same-host redirects from `url` to a page, or to a redirect elsewhere.
    async fn walk(&self, mut url: Url) -> Result<Fetched, FetchError> {
        for _ in 0..=self.limits.max_redirects {
            self.check_literal(&url)?;
            let response = self
                .client(&url)?
                .get(url.clone())
                .header(
                    reqwest::header::ACCEPT,
                    "text/html, text/markdown, text/plain, application/xhtml+xml, */*;q=0.5",
                )
                .send()
                .await
                .map_err(|e| transport_error(&e, &url))?;
            let status = response.status();
            if status.is_redirection() {
                let location = response
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|l| l.to_str().ok())
                    .ok_or_else(|| FetchError::Network(format!("{status} without a Location")))?;
                let next = url
                    .join(location)
                    .map_err(|e| FetchError::BadUrl(format!("bad redirect {location}: {e}")))?;
                if !same_host(&url, &next) {
                    return Ok(Fetched::Redirect {
                        from: url.to_string(),
                        to: next.to_string(),
                        status: status.as_u16(),
                    });
                }
                url = self.target(next.as_str())?;
                continue;
            }
            if !status.is_success() {
                return Err(FetchError::Status {
                    status: status.as_u16(),
                    url: url.to_string(),
                });
            }
            return self.read(url, response).await.map(Fetched::Page);
        }
        Err(FetchError::Redirects(self.limits.max_redirects))
    }

    /// The body of a successful answer, capped, as text.
    async fn read(&self, url: Url, response: reqwest::Response) -> Result<Page, FetchError> {
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                v.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            })
            .unwrap_or_default();
        let kind = TextKind::of(&content_type).ok_or_else(|| FetchError::Binary {
            url: url.to_string(),
            content_type: content_type.clone(),
        })?;
        let mut body = Vec::new();
        let mut cut = false;
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| transport_error(&e, &url))?;
            let room = self.limits.max_body - body.len();
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                cut = true;
                break;
            }
            body.extend_from_slice(&chunk);
        }
        if kind == TextKind::Unknown && looks_binary(&body) {
            return Err(FetchError::Binary {
                url: url.to_string(),
                content_type: "binary data".into(),
            });
        }
        let text = match kind {
            TextKind::Html => self.markdown(&url, body.clone()).await?,
            TextKind::Text | TextKind::Unknown => String::from_utf8_lossy(&body).into_owned(),
        };
        Ok(Page {
            url: url.to_string(),
            status,
            content_type,
            text,
            bytes: body.len(),
            cut,
        })
    }

    /// The page `html` as Markdown, converted through the parsers (off the runtime).
    async fn markdown(&self, url: &Url, html: Vec<u8>) -> Result<String, FetchError> {
        let parsers = self.parsers.clone();
        let unparsable = |message: String| FetchError::Unparsable {
            url: url.to_string(),
            message,
        };
        let converted = tokio::task::spawn_blocking(move || {
            parsers.run(crate::markdown::HTML_PARSER, &html, &[])
        })
        .await
        .map_err(|e| unparsable(e.to_string()))?
        .map_err(|e| unparsable(e.to_string()))?;
        Ok(String::from_utf8_lossy(&converted).into_owned())
    }

    fn cached(&self, url: &str) -> Option<Page> {
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        cache.get(url)
    }

    fn keep(&self, url: &str, page: &Page) {
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        cache.put(url, page.clone());
    }
}

/// How a body is read as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TextKind {
    Html,
    Text,
    /// No media type: read when it does not look binary.
    Unknown,
}

impl TextKind {
    fn of(content_type: &str) -> Option<Self> {
        match content_type {
            "" => Some(Self::Unknown),
            "text/html" | "application/xhtml+xml" => Some(Self::Html),
            t if t.starts_with("text/") => Some(Self::Text),
            "application/json"
            | "application/xml"
            | "application/javascript"
            | "application/x-javascript"
            | "application/toml"
            | "application/yaml"
            | "application/x-yaml" => Some(Self::Text),
            t if t.ends_with("+json") || t.ends_with("+xml") => Some(Self::Text),
            _ => None,
        }
    }
}

/// A NUL byte in the first 8 KiB.
fn looks_binary(body: &[u8]) -> bool {
    body.iter().take(8192).any(|b| *b == 0)
}

/// The same host (case-insensitive) and port, or `http` on its default port to `https` on
/// its own.
fn same_host(from: &Url, to: &Url) -> bool {
    let host = |u: &Url| u.host_str().map(str::to_ascii_lowercase);
    let upgrade = from.scheme() == "http"
        && to.scheme() == "https"
        && from.port_or_known_default() == Some(80)
        && to.port_or_known_default() == Some(443);
    host(from) == host(to)
        && (from.port_or_known_default() == to.port_or_known_default() || upgrade)
}

/// A transport error as a [`FetchError`]: the resolver's refusal as [`FetchError::Private`].
fn transport_error(error: &reqwest::Error, url: &Url) -> FetchError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        if let Some(refused) = e.downcast_ref::<FetchError>() {
            return refused.clone();
        }
        source = e.source();
    }
    if error.is_timeout() {
        return FetchError::Network(format!("{url}: the connection timed out"));
    }
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(e) = source {
        message = format!("{message}: {e}");
        source = e.source();
    }
    FetchError::Network(message)
}
