//! Token usage and why a model turn stopped.

use serde::{Deserialize, Serialize};

/// Tokens used by one request (or a sum of requests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Input tokens billed at the normal rate (excludes cache reads and writes).
    pub input_tokens: u64,
    /// Output tokens, reasoning included.
    pub output_tokens: u64,
    /// Input tokens written to the prompt cache.
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    /// Input tokens read from the prompt cache.
    #[serde(default)]
    pub cache_read_input_tokens: u64,
    /// Web searches the provider ran for the request (its `web_search` tool), billed per
    /// search.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub web_search_requests: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// All input tokens of the request, cached or not: the size of the context sent.
    pub fn total_input(&self) -> u64 {
        // Counts come from the network: absurd ones saturate rather than overflow.
        self.input_tokens
            .saturating_add(self.cache_creation_input_tokens)
            .saturating_add(self.cache_read_input_tokens)
    }

    /// The share of input tokens read from the prompt cache (0.0–1.0); `None` before any input.
    pub fn cache_hit_rate(&self) -> Option<f64> {
        let total = self.total_input();
        (total > 0).then(|| self.cache_read_input_tokens as f64 / total as f64)
    }

    /// Adds another usage to this one.
    pub fn add(&mut self, other: &Usage) {
        let add = |a: &mut u64, b: u64| *a = a.saturating_add(b);
        add(&mut self.input_tokens, other.input_tokens);
        add(&mut self.output_tokens, other.output_tokens);
        add(
            &mut self.cache_creation_input_tokens,
            other.cache_creation_input_tokens,
        );
        add(
            &mut self.cache_read_input_tokens,
            other.cache_read_input_tokens,
        );
        add(&mut self.web_search_requests, other.web_search_requests);
    }
}

/// Why the model stopped producing output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model finished its answer.
    EndTurn,
    /// The model wants tool results.
    ToolUse,
    /// The output token limit was reached.
    MaxTokens,
    /// A stop sequence was produced.
    StopSequence,
    /// The model refused (safety).
    Refusal,
    /// The provider paused a long turn; continue by sending the transcript back.
    PauseTurn,
    /// A reason this version does not know, kept verbatim.
    Other(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absurd_counts_from_a_provider_saturate() {
        let huge = Usage {
            input_tokens: u64::MAX,
            output_tokens: u64::MAX,
            cache_creation_input_tokens: 1,
            cache_read_input_tokens: 1,
            web_search_requests: 0,
        };
        let mut total = huge;
        total.add(&huge);
        assert_eq!(total.input_tokens, u64::MAX);
        assert_eq!(total.output_tokens, u64::MAX);
        assert_eq!(total.cache_read_input_tokens, 2);
        assert_eq!(huge.total_input(), u64::MAX);
    }

    #[test]
    fn the_cache_hit_rate_is_reads_over_all_input() {
        assert_eq!(Usage::default().cache_hit_rate(), None);
        let usage = Usage {
            input_tokens: 10,
            output_tokens: 99,
            cache_creation_input_tokens: 30,
            cache_read_input_tokens: 60,
            web_search_requests: 0,
        };
        assert_eq!(usage.cache_hit_rate(), Some(0.6));
    }
}
