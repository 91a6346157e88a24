//! Classifying a failed connection or body read into an error a user can act on.

use crate::{LlmError, LlmErrorKind};

/// The error for `error`, a transport failure talking to `url`.
pub(crate) fn error(url: &str, provider: &'static str, error: &reqwest::Error) -> LlmError {
    // reqwest's own top line repeats the URL; the causes say what went wrong.
    let causes = std::error::Error::source(error).map_or_else(|| error.to_string(), error_chain);
    let (kind, message) = if is_refused(error) {
        (
            LlmErrorKind::Unreachable,
            format!("cannot connect to {url}: connection refused (is the server running?)"),
        )
    } else if url.starts_with("https://") && crate::error::speaks_no_tls(&causes) {
        let plain = url.replacen("https://", "http://", 1);
        (
            LlmErrorKind::Unreachable,
            format!(
                "cannot connect to {url}: the server does not speak TLS (HTTPS); if it is a \
                 plain-HTTP server, such as a local one, use {plain} ({causes})"
            ),
        )
    } else if error.is_connect() && causes.contains("dns error") {
        (
            LlmErrorKind::Unreachable,
            format!("cannot connect to {url}: the host name does not resolve ({causes})"),
        )
    } else if error.is_connect() {
        (
            LlmErrorKind::Connection,
            format!("cannot connect to {url}: {causes}"),
        )
    } else if error.is_body() || error.is_decode() {
        (
            LlmErrorKind::Connection,
            format!("connection broke while streaming from {url}: {causes}"),
        )
    } else {
        (
            LlmErrorKind::Connection,
            format!("request to {url} failed: {causes}"),
        )
    };
    LlmError::new(kind, provider, message)
}

/// Whether the connection was refused: nothing listens at the address.
fn is_refused(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut source = Some(error);
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::ConnectionRefused
        {
            return true;
        }
        source = cause.source();
    }
    false
}

/// An error and its causes, innermost last ("connection refused" is usually at the bottom).
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}
