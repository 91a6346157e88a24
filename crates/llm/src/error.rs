//! Errors a user can act on.

use std::fmt;

/// What kind of failure a [`LlmError`] is; drives retry and compaction decisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LlmErrorKind {
    /// 401/403: the key is missing, wrong or lacks permission.
    Auth,
    /// The prompt does not fit the model's context window (compaction can fix it).
    ContextLength,
    /// 429.
    RateLimited,
    /// 529 or an `overloaded_error`.
    Overloaded,
    /// Other 5xx.
    Server,
    /// Other 4xx: the provider's message says why.
    BadRequest,
    /// The connection timed out, was reset, or broke before any output (retried).
    Connection,
    /// Nothing listens at the address (connection refused) or the host name does not resolve:
    /// retrying would not help, so the failure is reported at once (a local server that is not
    /// running, a wrong port, a typo in the base URL).
    Unreachable,
    /// No data arrived on the stream for the idle timeout.
    IdleTimeout,
    /// The provider sent something that does not follow its protocol, or the stream ended
    /// before the response completed.
    Protocol,
}

impl LlmErrorKind {
    /// Whether a request failing this way may be sent again (before any output streamed).
    pub fn is_retryable(self) -> bool {
        matches!(
            self,
            Self::RateLimited | Self::Overloaded | Self::Server | Self::Connection
        )
    }
}

/// A provider failure with the context needed to act on it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct LlmError {
    /// Category.
    pub kind: LlmErrorKind,
    /// Provider name (`anthropic`, `openai`, `openai-chat`).
    pub provider: &'static str,
    /// Human-readable message (the provider's own message where it sent one).
    pub message: String,
    /// HTTP status, when the failure was an HTTP answer.
    pub status: Option<u16>,
    /// The provider's request id, when it sent one.
    pub request_id: Option<String>,
    /// Server-requested wait before retrying (`retry-after`), in milliseconds.
    pub retry_after_ms: Option<u64>,
}

impl LlmError {
    /// An error of `kind` with `message` and no HTTP details.
    pub fn new(kind: LlmErrorKind, provider: &'static str, message: impl Into<String>) -> Self {
        Self {
            kind,
            provider,
            message: message.into(),
            status: None,
            request_id: None,
            retry_after_ms: None,
        }
    }
}

impl fmt::Display for LlmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.provider, self.message)?;
        match (self.status, &self.request_id) {
            (Some(s), Some(id)) => write!(f, " (HTTP {s}, request id {id})"),
            (Some(s), None) => write!(f, " (HTTP {s})"),
            (None, Some(id)) => write!(f, " (request id {id})"),
            (None, None) => Ok(()),
        }
    }
}

/// The parts of an HTTP error answer needed to build an [`LlmError`].
#[derive(Debug, Clone)]
pub(crate) struct HttpFailure<'a> {
    /// HTTP status code.
    pub status: u16,
    /// Response body as text.
    pub body: &'a str,
    /// Request id header value.
    pub request_id: Option<String>,
    /// Server-requested wait.
    pub retry_after_ms: Option<u64>,
}

/// Where the API key comes from, to name it in authentication errors.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeySource<'a> {
    /// Environment variable the key is read from.
    pub env: &'a str,
    /// Whether a key was sent at all.
    pub present: bool,
}

impl LlmError {
    /// Classifies an HTTP error answer and extracts the provider's message from its body.
    pub(crate) fn from_http(
        provider: &'static str,
        key: KeySource<'_>,
        failure: HttpFailure<'_>,
    ) -> Self {
        let (code, provider_message) = provider_message(failure.body);
        let provider_message = provider_message.unwrap_or_else(|| {
            let body = truncate(failure.body.trim(), 500);
            if body.is_empty() {
                reqwest::StatusCode::from_u16(failure.status)
                    .ok()
                    .and_then(|s| s.canonical_reason())
                    .unwrap_or("no details")
                    .to_string()
            } else {
                body
            }
        });
        let code = code.unwrap_or_default();
        let kind = match failure.status {
            401 | 403 => LlmErrorKind::Auth,
            429 if code == "insufficient_quota" => LlmErrorKind::BadRequest,
            429 => LlmErrorKind::RateLimited,
            529 => LlmErrorKind::Overloaded,
            500..=599 if code == "overloaded_error" => LlmErrorKind::Overloaded,
            500..=599 => LlmErrorKind::Server,
            _ if is_context_length(&code, &provider_message) => LlmErrorKind::ContextLength,
            _ => LlmErrorKind::BadRequest,
        };
        // Without a key a gateway may answer 5xx instead of 401: say so, and spend no retries.
        let keyless_failure =
            matches!(kind, LlmErrorKind::Server | LlmErrorKind::Overloaded) && !key.present;
        let kind = if keyless_failure {
            LlmErrorKind::Auth
        } else {
            kind
        };
        let message = match kind {
            LlmErrorKind::Auth if keyless_failure => format!(
                "server error (HTTP {}): {provider_message}. The request went without a key \
                 ({} is not set or empty): if this server needs one, that is the likely cause",
                failure.status, key.env
            ),
            LlmErrorKind::Auth if !key.present => {
                format!(
                    "authentication failed: {} is not set ({provider_message})",
                    key.env
                )
            }
            LlmErrorKind::Auth => {
                format!(
                    "authentication failed: check {} ({provider_message})",
                    key.env
                )
            }
            LlmErrorKind::RateLimited => format!("rate limited: {provider_message}"),
            LlmErrorKind::Overloaded => format!("overloaded: {provider_message}"),
            LlmErrorKind::Server => format!("server error: {provider_message}"),
            LlmErrorKind::ContextLength => format!("prompt too long: {provider_message}"),
            _ => provider_message,
        };
        Self {
            kind,
            provider,
            message,
            status: Some(failure.status),
            request_id: failure.request_id,
            retry_after_ms: failure.retry_after_ms,
        }
    }

    /// An error reported inside a stream (an `error` event), classified by the provider's error
    /// type or code.
    pub(crate) fn from_stream(provider: &'static str, code: &str, message: &str) -> Self {
        let kind = match code {
            "overloaded_error" | "overloaded" | "server_is_overloaded" => LlmErrorKind::Overloaded,
            "rate_limit_error" | "rate_limit_exceeded" | "slow_down" => LlmErrorKind::RateLimited,
            "api_error" | "server_error" | "internal_error" => LlmErrorKind::Server,
            "authentication_error" | "permission_error" | "invalid_api_key" => LlmErrorKind::Auth,
            _ if is_context_length(code, message) => LlmErrorKind::ContextLength,
            "" => LlmErrorKind::Protocol,
            _ => LlmErrorKind::BadRequest,
        };
        let message = match (code, message) {
            ("", m) => m.to_string(),
            (c, "") => c.to_string(),
            (c, m) => format!("{m} ({c})"),
        };
        Self::new(kind, provider, message)
    }

    /// Sets the request id unless the error already has one.
    pub(crate) fn with_request_id(mut self, request_id: Option<&str>) -> Self {
        if self.request_id.is_none() {
            self.request_id = request_id.map(str::to_string);
        }
        self
    }
}

/// Whether an error code or message says the prompt does not fit the context window.
pub(crate) fn is_context_length(code: &str, message: &str) -> bool {
    const PATTERNS: [&str; 8] = [
        "prompt is too long",
        "context_length_exceeded",
        "maximum context length",
        "context window",
        "context length",
        "too many tokens",
        "context size",
        "input is too long",
    ];
    let message = message.to_lowercase();
    code == "context_length_exceeded" || PATTERNS.iter().any(|p| message.contains(p))
}

/// The error code/type and message from a provider's JSON error body. Understands
/// `{"error": {"type"|"code", "message"}}` (Anthropic, OpenAI), `{"error": "text"}` and
/// `{"message"|"detail": "text"}` (various compatible servers).
pub(crate) fn provider_message(body: &str) -> (Option<String>, Option<String>) {
    let value = match serde_json::from_str::<serde_json::Value>(body) {
        Ok(value) => value,
        // An error framed as server-sent events (`data: {"error": …}`): the first data line
        // that is a JSON object.
        Err(_) => match body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<serde_json::Value>(data.trim()).ok())
            .find(serde_json::Value::is_object)
        {
            Some(value) => value,
            None => return (None, None),
        },
    };
    let error = value.get("error").unwrap_or(&value);
    if let Some(text) = error.as_str() {
        return (None, Some(text.to_string()));
    }
    let text = |v: Option<&serde_json::Value>| v.and_then(|v| v.as_str()).map(str::to_string);
    let code = text(error.get("code"))
        .or_else(|| text(error.get("type")))
        .filter(|c| c != "error");
    let message = text(error.get("message")).or_else(|| text(error.get("detail")));
    (code, message)
}

/// What a 404 from `url` may mean about the base URL's `/v1`, as a sentence to append.
pub(crate) fn v1_hint(url: &str) -> String {
    if url.contains("/v1/v1/") {
        format!(" (POST {url}: the path has /v1 twice; drop /v1 from the base URL)")
    } else if !url.contains("/v1/") {
        format!(
            " (POST {url}: no /v1 in the path; if the server's API is under /v1, end the base URL with /v1)"
        )
    } else {
        format!(" (POST {url}: check the base URL and the model name)")
    }
}

/// Whether a TLS failure's causes say the other side answered in plain text (rustls:
/// "received corrupt message of type InvalidContentType"; OpenSSL: "wrong version number").
pub(crate) fn speaks_no_tls(causes: &str) -> bool {
    [
        "InvalidContentType",
        "corrupt message",
        "wrong version number",
    ]
    .iter()
    .any(|sign| causes.contains(sign))
}

/// The first `max` characters of `text`, with an ellipsis when cut.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
#[path = "error_tests.rs"]
mod tests;
