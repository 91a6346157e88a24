//! When and how long to wait before sending a failed request again.

use std::time::Duration;

use crate::LlmError;

/// Exponential backoff with jitter for retryable failures (429, 5xx, 529, connection errors
/// other than a refused connection).
///
/// The wait before retry `n` (1-based) is `base_delay * 2^(n-1)`, capped at `max_delay`, then
/// scaled by a random factor in `[0.5, 1.0)` so that many clients do not retry in lockstep. A
/// server-requested wait (`retry-after`, `retry-after-ms`) is used as is; when it exceeds
/// `max_delay` the request is not retried at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in total, the first one included (1 = never retry).
    pub max_attempts: u32,
    /// Wait before the first retry, before jitter.
    pub base_delay: Duration,
    /// Longest wait between attempts.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 5,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// A policy that never retries.
    pub fn none() -> Self {
        Self {
            max_attempts: 1,
            ..Self::default()
        }
    }

    /// How long to wait before sending again after attempt `attempt` (1-based) failed with
    /// `error`, or `None` when the request must not be retried.
    pub fn delay_for(
        &self,
        attempt: u32,
        error: &LlmError,
        rng: &mut fastrand::Rng,
    ) -> Option<Duration> {
        if !error.kind.is_retryable() || attempt >= self.max_attempts {
            return None;
        }
        if let Some(ms) = error.retry_after_ms {
            let requested = Duration::from_millis(ms);
            return (requested <= self.max_delay).then_some(requested);
        }
        let exponent = attempt.saturating_sub(1).min(20);
        let backoff = self
            .base_delay
            .saturating_mul(1u32 << exponent)
            .min(self.max_delay);
        Some(backoff.mul_f64(0.5 + rng.f64() * 0.5))
    }
}

/// Reads the server's requested wait from `retry-after-ms` (OpenAI) or `retry-after` (seconds;
/// an HTTP date is not understood and ignored).
pub(crate) fn retry_after_ms(headers: &reqwest::header::HeaderMap) -> Option<u64> {
    let value = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let parse = |text: &str| {
        text.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
    };
    if let Some(ms) = value("retry-after-ms").and_then(parse) {
        return Some(ms.round() as u64);
    }
    value("retry-after")
        .and_then(parse)
        .map(|secs| (secs * 1000.0).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LlmErrorKind;
    use pretty_assertions::assert_eq;
    use reqwest::header::{HeaderMap, HeaderValue};

    fn error(kind: LlmErrorKind, retry_after_ms: Option<u64>) -> LlmError {
        LlmError {
            retry_after_ms,
            ..LlmError::new(kind, "anthropic", "x")
        }
    }

    #[test]
    fn backoff_doubles_within_jitter_bounds_and_is_capped() {
        let policy = RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(1000),
        };
        let mut rng = fastrand::Rng::with_seed(7);
        let err = error(LlmErrorKind::Server, None);
        for (attempt, full_ms) in [(1, 100), (2, 200), (3, 400), (4, 800), (5, 1000), (9, 1000)] {
            let delay = policy.delay_for(attempt, &err, &mut rng).unwrap();
            let ms = delay.as_millis() as u64;
            assert!(
                ms >= full_ms / 2 && ms <= full_ms,
                "attempt {attempt}: {ms} ms not in [{}, {full_ms}]",
                full_ms / 2
            );
        }
    }

    #[test]
    fn attempts_are_bounded() {
        let policy = RetryPolicy::default();
        let mut rng = fastrand::Rng::with_seed(1);
        let err = error(LlmErrorKind::RateLimited, None);
        assert!(policy.delay_for(4, &err, &mut rng).is_some());
        assert_eq!(policy.delay_for(5, &err, &mut rng), None);
        assert_eq!(RetryPolicy::none().delay_for(1, &err, &mut rng), None);
    }

    #[test]
    fn only_retryable_kinds_are_retried() {
        let policy = RetryPolicy::default();
        let mut rng = fastrand::Rng::with_seed(1);
        for kind in [
            LlmErrorKind::Auth,
            LlmErrorKind::BadRequest,
            LlmErrorKind::ContextLength,
            LlmErrorKind::Protocol,
            LlmErrorKind::IdleTimeout,
            LlmErrorKind::Unreachable,
        ] {
            assert_eq!(policy.delay_for(1, &error(kind, None), &mut rng), None);
        }
        for kind in [
            LlmErrorKind::RateLimited,
            LlmErrorKind::Overloaded,
            LlmErrorKind::Server,
            LlmErrorKind::Connection,
        ] {
            assert!(policy.delay_for(1, &error(kind, None), &mut rng).is_some());
        }
    }

    #[test]
    fn server_requested_wait_is_honoured_unless_too_long() {
        let policy = RetryPolicy::default();
        let mut rng = fastrand::Rng::with_seed(1);
        let soon = error(LlmErrorKind::RateLimited, Some(1500));
        assert_eq!(
            policy.delay_for(1, &soon, &mut rng),
            Some(Duration::from_millis(1500))
        );
        let absurd = error(LlmErrorKind::RateLimited, Some(3_600_000));
        assert_eq!(policy.delay_for(1, &absurd, &mut rng), None);
    }

    #[test]
    fn retry_after_headers_are_parsed() {
        let headers = |pairs: &[(&'static str, &'static str)]| {
            let mut map = HeaderMap::new();
            for (k, v) in pairs {
                map.insert(*k, HeaderValue::from_static(v));
            }
            map
        };
        assert_eq!(
            retry_after_ms(&headers(&[("retry-after", "2")])),
            Some(2000)
        );
        assert_eq!(
            retry_after_ms(&headers(&[("retry-after", "0.5")])),
            Some(500)
        );
        assert_eq!(
            retry_after_ms(&headers(&[("retry-after", "2"), ("retry-after-ms", "250")])),
            Some(250)
        );
        assert_eq!(
            retry_after_ms(&headers(&[(
                "retry-after",
                "Wed, 21 Oct 2015 07:28:00 GMT"
            )])),
            None
        );
        assert_eq!(retry_after_ms(&headers(&[])), None);
    }
}
