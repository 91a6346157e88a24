//! Choosing and configuring a provider.

use std::sync::Arc;
use std::time::Duration;

use crate::anthropic::AnthropicProtocol;
use crate::http::HttpClient;
use crate::openai_chat::ChatProtocol;
use crate::openai_responses::ResponsesProtocol;
use crate::{ModelClient, ProviderKind, RetryPolicy};

/// Default idle-stream timeout: no bytes for this long fails the request.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(120);

/// Default no-progress deadline: bytes but no content (only keep-alive pings) for this long
/// fails the request. Longer than the idle timeout: a server-side tool (web search) may run a
/// while with pings before its result.
pub const DEFAULT_NO_PROGRESS_TIMEOUT: Duration = Duration::from_secs(300);

/// Everything needed to talk to one provider. `Debug` shows whether a key is set, never the key.
#[derive(Clone, PartialEq)]
pub struct ProviderConfig {
    /// Wire protocol.
    pub kind: ProviderKind,
    /// Base URL. Anthropic: without `/v1` (`https://api.anthropic.com`); OpenAI-style: ending
    /// in `/v1` (`https://api.openai.com/v1`).
    pub base_url: String,
    /// API key; `None` for keyless local servers (Ollama, llama.cpp, ...).
    pub api_key: Option<String>,
    /// The environment variable the key came from, named in authentication errors.
    pub api_key_env: String,
    /// Retry policy for failed attempts.
    pub retry: RetryPolicy,
    /// A stream that sends no bytes for this long fails with an idle-timeout error.
    pub idle_timeout: Duration,
    /// A stream that sends bytes (keep-alive pings, comments, empty events) but no content
    /// for this long fails too.
    pub no_progress_timeout: Duration,
}

impl std::fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("kind", &self.kind)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("api_key_env", &self.api_key_env)
            .field("retry", &self.retry)
            .field("idle_timeout", &self.idle_timeout)
            .field("no_progress_timeout", &self.no_progress_timeout)
            .finish()
    }
}

impl ProviderConfig {
    /// A configuration with the default retry policy and idle timeout.
    pub fn new(
        kind: ProviderKind,
        base_url: impl Into<String>,
        api_key: Option<String>,
        api_key_env: impl Into<String>,
    ) -> Self {
        Self {
            kind,
            base_url: base_url.into(),
            api_key,
            api_key_env: api_key_env.into(),
            retry: RetryPolicy::default(),
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            no_progress_timeout: DEFAULT_NO_PROGRESS_TIMEOUT,
        }
    }
}

/// A client for `config` with its own HTTP connection pool.
pub fn connect(config: ProviderConfig) -> Arc<dyn ModelClient> {
    let http = if is_plain_http(&config.base_url) {
        plain_http_client()
    } else {
        http_client()
    };
    connect_with(config, http)
}

/// An HTTP client as rein's providers use it (TLS through rustls with the `ring` provider).
pub fn http_client() -> reqwest::Client {
    client_builder().build().unwrap_or_default()
}

/// What every provider client is built from: the TLS provider installed, a 30 s connect
/// timeout.
fn client_builder() -> reqwest::ClientBuilder {
    install_tls_provider();
    reqwest::Client::builder().connect_timeout(Duration::from_secs(30))
}

/// A client for an `http://` endpoint (a local server, a proxy on the machine, the mock): it
/// trusts no certificate, so the system's root certificates are not read and parsed, which
/// is half of the work a run does before its first request. An `https://` redirect from such
/// a server fails instead of being followed.
fn plain_http_client() -> reqwest::Client {
    client_builder()
        .tls_certs_only([])
        .build()
        .unwrap_or_default()
}

/// Whether `base_url` is plain HTTP (no TLS to set up).
fn is_plain_http(base_url: &str) -> bool {
    base_url
        .get(..7)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("http://"))
}

/// Makes `ring` the process's TLS provider unless one is installed already; reqwest (built
/// without a provider of its own, to keep aws-lc out of the binary) panics without one.
pub fn install_tls_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// A client for `config` that sends through `http` (to share one connection pool).
pub fn connect_with(config: ProviderConfig, http: reqwest::Client) -> Arc<dyn ModelClient> {
    match config.kind {
        ProviderKind::Anthropic => Arc::new(HttpClient::new(http, config, AnthropicProtocol)),
        ProviderKind::Openai => Arc::new(HttpClient::new(http, config, ResponsesProtocol)),
        ProviderKind::OpenaiChat => {
            Arc::new(HttpClient::new(http, config, ChatProtocol::default()))
        }
    }
}

/// The provider's public API base URL.
pub fn default_base_url(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Anthropic => "https://api.anthropic.com",
        ProviderKind::Openai | ProviderKind::OpenaiChat => "https://api.openai.com/v1",
    }
}

/// The environment variable the provider's key is conventionally read from.
pub fn default_key_env(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Anthropic => "ANTHROPIC_API_KEY",
        ProviderKind::Openai | ProviderKind::OpenaiChat => "OPENAI_API_KEY",
    }
}

/// The protocol a model name most likely speaks: `claude-*` → Anthropic; `gpt-*`, `o<digit>*`
/// and `codex-*` → OpenAI Responses; anything else → Chat Completions (the lingua franca of
/// compatible servers).
pub fn infer_provider(model: &str) -> ProviderKind {
    let model = model.to_ascii_lowercase();
    let reasoning_series = model
        .strip_prefix('o')
        .is_some_and(|rest| rest.chars().next().is_some_and(|c| c.is_ascii_digit()));
    if model.starts_with("claude") {
        ProviderKind::Anthropic
    } else if model.starts_with("gpt-") || model.starts_with("codex-") || reasoning_series {
        ProviderKind::Openai
    } else {
        ProviderKind::OpenaiChat
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn model_names_select_the_protocol() {
        let cases = [
            ("claude-sonnet-4-5-20250929", ProviderKind::Anthropic),
            ("claude-3-5-haiku-latest", ProviderKind::Anthropic),
            ("gpt-5", ProviderKind::Openai),
            ("gpt-4.1-mini", ProviderKind::Openai),
            ("o3", ProviderKind::Openai),
            ("o4-mini", ProviderKind::Openai),
            ("o1-preview", ProviderKind::Openai),
            ("codex-mini-latest", ProviderKind::Openai),
            ("ollama", ProviderKind::OpenaiChat),
            ("deepseek-chat", ProviderKind::OpenaiChat),
            ("qwen3-coder-plus", ProviderKind::OpenaiChat),
            ("kimi-k2-0905-preview", ProviderKind::OpenaiChat),
            ("llama3.1:8b", ProviderKind::OpenaiChat),
        ];
        for (model, kind) in cases {
            assert_eq!(infer_provider(model), kind, "{model}");
        }
    }

    #[test]
    fn defaults_per_provider() {
        assert_eq!(
            default_base_url(ProviderKind::Anthropic),
            "https://api.anthropic.com"
        );
        assert_eq!(
            default_base_url(ProviderKind::OpenaiChat),
            "https://api.openai.com/v1"
        );
        assert_eq!(default_key_env(ProviderKind::Openai), "OPENAI_API_KEY");
        let config = ProviderConfig::new(ProviderKind::Anthropic, "http://x", None, "K");
        assert_eq!(config.retry, RetryPolicy::default());
        assert_eq!(config.idle_timeout, Duration::from_secs(120));
    }

    #[test]
    fn debug_output_never_shows_the_key() {
        let config = ProviderConfig::new(
            ProviderKind::Openai,
            "http://x",
            Some("sk-secret".into()),
            "K",
        );
        let shown = format!("{config:?}");
        assert!(!shown.contains("sk-secret"), "{shown}");
        assert!(shown.contains("<redacted>"), "{shown}");
    }
}
