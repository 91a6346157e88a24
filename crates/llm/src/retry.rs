//! When and how long to wait before sending a failed request again.

use std::time::Duration;

use crate::LlmError;

/// Exponential backoff with jitter for retryable failures (429, 5xx, 529, connection errors
/// other than a refused connection).
///
/// The wait before retry `n` (1-based) is `base_delay * 2^(n-1)`, capped at `max_delay`, then
/// scaled by a random factor in `[0.5, 1.0)` so that many clients do not retry in lockstep. A
/// server-requested wait (`retry-after`, `retry-after-ms`) is used as is, even past
/// `max_delay` (a gateway's rate limit asking for a minute), up to `max_wait`; a longer one is
/// not waited for at all, and the error says how long the server asked
/// ([`RetryPolicy::explain_refusal`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in total, the first one included (1 = never retry).
    pub max_attempts: u32,
    /// Wait before the first retry, before jitter.
    pub base_delay: Duration,
    /// Longest wait of the backoff (the usual cap).
    pub max_delay: Duration,
    /// Longest server-requested wait that is waited out (`max_retry_wait_secs` in config).
    pub max_wait: Duration,
}

/// Default of [`RetryPolicy::max_wait`]: five minutes.
pub const DEFAULT_MAX_RETRY_WAIT: Duration = Duration::from_secs(300);

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 5,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            max_wait: DEFAULT_MAX_RETRY_WAIT,
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
            return (requested <= self.max_wait).then_some(requested);
        }
        let exponent = attempt.saturating_sub(1).min(20);
        let backoff = self
            .base_delay
            .saturating_mul(1u32 << exponent)
            .min(self.max_delay);
        Some(backoff.mul_f64(0.5 + rng.f64() * 0.5))
    }

    /// Adds to `error`'s message how long the server asked to wait when that is why it is not
    /// retried (the wait is past `max_wait`).
    pub fn explain_refusal(&self, error: &mut LlmError) {
        let Some(ms) = error.retry_after_ms else {
            return;
        };
        if !error.kind.is_retryable() || Duration::from_millis(ms) <= self.max_wait {
            return;
        }
        let longest_ms = u64::try_from(self.max_wait.as_millis()).unwrap_or(u64::MAX);
        error.message.push_str(&format!(
            "; the provider asked to wait {} before trying again, longer than rein waits ({}, \
             `max_retry_wait_secs` in config)",
            rein_protocol::wait_text(ms),
            rein_protocol::wait_text(longest_ms)
        ));
    }
}

/// Longest wait taken from a rate-limit reset hint: a bucket that refills in minutes still
/// lets a request through much sooner, so the hint only stretches the backoff this far.
const MAX_RESET_HINT_MS: u64 = 30_000;

/// Reads the server's requested wait: `retry-after-ms` (OpenAI), `retry-after` (seconds or an
/// HTTP date), the same under a gateway's `llm_provider-` prefix (LiteLLM), and when none is
/// there, OpenAI's `x-ratelimit-reset-requests`/`-tokens` (`1s`, `6m0s`, `20ms`; the longer,
/// capped at [`MAX_RESET_HINT_MS`]).
pub(crate) fn retry_after_ms(headers: &reqwest::header::HeaderMap) -> Option<u64> {
    let value = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    for prefix in ["", "llm_provider-"] {
        if let Some(ms) = value(&format!("{prefix}retry-after-ms")).and_then(seconds) {
            return Some(ms.round() as u64);
        }
        if let Some(text) = value(&format!("{prefix}retry-after")) {
            if let Some(secs) = seconds(text) {
                return Some((secs * 1000.0).round() as u64);
            }
            if let Ok(date) = chrono::DateTime::parse_from_rfc2822(text.trim()) {
                let wait = date.with_timezone(&chrono::Utc) - chrono::Utc::now();
                return Some(u64::try_from(wait.num_milliseconds()).unwrap_or(0));
            }
        }
    }
    ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"]
        .into_iter()
        .filter_map(|name| value(name).and_then(go_duration_ms))
        .max()
        .map(|ms| ms.min(MAX_RESET_HINT_MS))
}

/// A non-negative finite number.
fn seconds(text: &str) -> Option<f64> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
}

/// A Go-style duration (`1h2m3.5s`, `6m0s`, `20ms`, `1.5s`) in milliseconds.
fn go_duration_ms(text: &str) -> Option<u64> {
    let mut rest = text.trim();
    if rest.is_empty() {
        return None;
    }
    let mut total = 0.0;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let factor = match &rest[..unit_end] {
            "h" => 3_600_000.0,
            "m" => 60_000.0,
            "s" => 1_000.0,
            "ms" => 1.0,
            _ => return None,
        };
        total += number * factor;
        rest = &rest[unit_end..];
    }
    total.is_finite().then(|| total.round() as u64)
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
            max_wait: Duration::ZERO,
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
        let litellm = error(LlmErrorKind::RateLimited, Some(60_000));
        assert_eq!(
            policy.delay_for(1, &litellm, &mut rng),
            Some(Duration::from_secs(60)),
            "past the usual cap, within max_wait: waited out"
        );
        let absurd = error(LlmErrorKind::RateLimited, Some(3_600_000));
        assert_eq!(policy.delay_for(1, &absurd, &mut rng), None);
        let impatient = RetryPolicy {
            max_wait: Duration::from_secs(10),
            ..policy
        };
        assert_eq!(impatient.delay_for(1, &litellm, &mut rng), None);
        assert_eq!(
            impatient.delay_for(1, &soon, &mut rng),
            Some(Duration::from_millis(1500))
        );
        let never = RetryPolicy {
            max_wait: Duration::ZERO,
            ..policy
        };
        assert_eq!(never.delay_for(1, &soon, &mut rng), None);
        let no_hint = error(LlmErrorKind::RateLimited, None);
        assert!(
            never.delay_for(1, &no_hint, &mut rng).is_some(),
            "max_wait bounds a server's request, not the backoff"
        );
    }

    #[test]
    fn a_refused_wait_is_explained_only_when_it_is_the_reason() {
        let policy = RetryPolicy::default();
        let mut absurd = error(LlmErrorKind::RateLimited, Some(3_600_000));
        policy.explain_refusal(&mut absurd);
        assert_eq!(
            absurd.message,
            "x; the provider asked to wait 60 min before trying again, longer than rein waits \
             (5 min, `max_retry_wait_secs` in config)"
        );
        for mut untouched in [
            error(LlmErrorKind::RateLimited, Some(60_000)),
            error(LlmErrorKind::RateLimited, None),
            error(LlmErrorKind::Auth, Some(3_600_000)),
        ] {
            policy.explain_refusal(&mut untouched);
            assert_eq!(untouched.message, "x");
        }
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
            Some(0)
        );
        assert_eq!(retry_after_ms(&headers(&[])), None);
    }

    #[test]
    fn retry_hints_in_other_forms_are_read() {
        let headers = |pairs: &[(&'static str, String)]| {
            let mut map = HeaderMap::new();
            for (name, value) in pairs {
                map.insert(*name, HeaderValue::from_str(value).unwrap());
            }
            map
        };
        let soon = chrono::Utc::now() + chrono::Duration::seconds(20);
        let date = soon.format("%a, %d %b %Y %H:%M:%S GMT").to_string();
        let waited = retry_after_ms(&headers(&[("retry-after", date)])).unwrap();
        assert!((18_000..=20_000).contains(&waited), "{waited}");
        let past = "Wed, 21 Oct 2015 07:28:00 GMT".to_string();
        assert_eq!(retry_after_ms(&headers(&[("retry-after", past)])), Some(0));
        assert_eq!(
            retry_after_ms(&headers(&[("llm_provider-retry-after", "3".into())])),
            Some(3000)
        );
        // A standard header beats a gateway's copy.
        let both = [
            ("retry-after", "1".into()),
            ("llm_provider-retry-after", "9".into()),
        ];
        assert_eq!(retry_after_ms(&headers(&both)), Some(1000));
        for (text, ms) in [
            ("1s", 1000),
            ("6m0s", 30_000),
            ("20ms", 20),
            ("1.5s", 1500),
            ("1m2s", 30_000),
        ] {
            let hint = [("x-ratelimit-reset-tokens", text.to_string())];
            assert_eq!(retry_after_ms(&headers(&hint)), Some(ms), "{text}");
        }
        assert_eq!(go_duration_ms("2m30s"), Some(150_000));
        for bad in ["", "5", "1x", "s"] {
            assert_eq!(go_duration_ms(bad), None, "{bad:?}");
        }
    }
}
