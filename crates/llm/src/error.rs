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
    /// Could not connect, or the connection broke.
    Connection,
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
