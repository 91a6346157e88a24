//! Prompt caching: what a request asks of the provider's cache.
//!
//! Every provider caches a request's prefix (tools, then the system prompt, then the
//! transcript in order), so the rest of rein keeps that prefix byte-identical from one turn to
//! the next; this module only says how each wire protocol is told about it. Anthropic needs
//! explicit breakpoints (`cache_control`, at most four per request) and a lifetime; OpenAI
//! caches by prefix on its own and routes requests sharing a `prompt_cache_key` to the same
//! cache.

/// How long Anthropic keeps a cache entry after its last use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CacheTtl {
    /// Five minutes (the API's default; writes cost 1.25× input).
    #[default]
    FiveMinutes,
    /// One hour (writes cost 2× input; worth it when turns are minutes apart).
    OneHour,
}

impl CacheTtl {
    /// Parses the config and flag spelling: `5m` or `1h`.
    pub fn parse(text: &str) -> Result<Self, UnknownCacheTtl> {
        match text.trim() {
            "5m" => Ok(Self::FiveMinutes),
            "1h" => Ok(Self::OneHour),
            other => Err(UnknownCacheTtl(other.to_string())),
        }
    }

    /// The spelling [`CacheTtl::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            Self::FiveMinutes => "5m",
            Self::OneHour => "1h",
        }
    }
}

/// A cache TTL spelled neither `5m` nor `1h` (the spelling given, trimmed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown cache TTL {0:?}: expected \"5m\" or \"1h\"")]
pub struct UnknownCacheTtl(pub String);

/// The prompt-cache settings of one request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptCache {
    /// OpenAI's `prompt_cache_key`: the session id, the same on every request of a session,
    /// so they reach the machine holding their prefix.
    pub key: Option<String>,
    /// Lifetime of Anthropic's breakpoints.
    pub ttl: CacheTtl,
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn ttls_parse_from_their_names_and_bad_ones_are_named() {
        for ttl in [CacheTtl::FiveMinutes, CacheTtl::OneHour] {
            assert_eq!(CacheTtl::parse(ttl.name()), Ok(ttl));
        }
        let err = CacheTtl::parse("2h").unwrap_err().to_string();
        assert!(err.contains("\"2h\""), "{err}");
    }
}
