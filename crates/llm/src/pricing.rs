//! What a request costs: list prices per million tokens for well-known models. A model not in
//! the table has an unknown cost (`None`), never a guessed one.

use rein_protocol::Usage;

/// US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelPrice {
    /// Uncached input.
    pub input: f64,
    /// Output (reasoning included).
    pub output: f64,
    /// Input written to the prompt cache.
    pub cache_write: f64,
    /// Input read from the prompt cache.
    pub cache_read: f64,
}

const fn p(input: f64, output: f64, cache_write: f64, cache_read: f64) -> ModelPrice {
    ModelPrice {
        input,
        output,
        cache_write,
        cache_read,
    }
}

/// Model name (or documented prefix) → price. A name matches a model that equals it or
/// continues it after `-`, `@` or `:` (dated snapshots, aliases); the longest match wins.
const TABLE: &[(&str, ModelPrice)] = &[
    // Anthropic: cache writes (5-minute) cost 1.25× input, reads 0.1×.
    ("claude-opus-4-5", p(5.0, 25.0, 6.25, 0.50)),
    ("claude-opus-4", p(15.0, 75.0, 18.75, 1.50)),
    ("claude-sonnet-4", p(3.0, 15.0, 3.75, 0.30)),
    ("claude-haiku-4", p(1.0, 5.0, 1.25, 0.10)),
    ("claude-3-7-sonnet", p(3.0, 15.0, 3.75, 0.30)),
    ("claude-3-5-sonnet", p(3.0, 15.0, 3.75, 0.30)),
    ("claude-3-5-haiku", p(0.80, 4.0, 1.0, 0.08)),
    ("claude-3-opus", p(15.0, 75.0, 18.75, 1.50)),
    ("claude-3-haiku", p(0.25, 1.25, 0.30, 0.03)),
    // OpenAI: caching is automatic; writes cost nothing extra.
    ("gpt-5", p(1.25, 10.0, 1.25, 0.125)),
    ("gpt-5.1", p(1.25, 10.0, 1.25, 0.125)),
    ("gpt-5-mini", p(0.25, 2.0, 0.25, 0.025)),
    ("gpt-5-nano", p(0.05, 0.40, 0.05, 0.005)),
    ("gpt-5-pro", p(15.0, 120.0, 15.0, 15.0)),
    ("gpt-4.1", p(2.0, 8.0, 2.0, 0.50)),
    ("gpt-4.1-mini", p(0.40, 1.60, 0.40, 0.10)),
    ("gpt-4.1-nano", p(0.10, 0.40, 0.10, 0.025)),
    ("gpt-4o", p(2.50, 10.0, 2.50, 1.25)),
    ("gpt-4o-mini", p(0.15, 0.60, 0.15, 0.075)),
    ("o3", p(2.0, 8.0, 2.0, 0.50)),
    ("o3-mini", p(1.10, 4.40, 1.10, 0.55)),
    ("o3-pro", p(20.0, 80.0, 20.0, 20.0)),
    ("o4-mini", p(1.10, 4.40, 1.10, 0.275)),
    // DeepSeek (V3.2 prices; cache hits are the cached rate).
    ("deepseek-chat", p(0.28, 0.42, 0.28, 0.028)),
    ("deepseek-reasoner", p(0.28, 0.42, 0.28, 0.028)),
    // Qwen (Alibaba Model Studio, international, lowest tier; implicit cache hits at 20%).
    ("qwen-max", p(1.60, 6.40, 1.60, 0.32)),
    ("qwen-plus", p(0.40, 1.20, 0.40, 0.08)),
    ("qwen-turbo", p(0.05, 0.20, 0.05, 0.01)),
    ("qwen3-coder-plus", p(1.0, 5.0, 1.0, 0.20)),
    // Kimi (Moonshot).
    ("kimi-k2", p(0.60, 2.50, 0.60, 0.15)),
    ("kimi-k2-turbo", p(1.15, 8.0, 1.15, 0.15)),
];

/// The list price of `model`, if known. A router prefix (`openrouter`-style `vendor/model`) is
/// ignored.
pub fn price(model: &str) -> Option<ModelPrice> {
    let model = model.to_ascii_lowercase();
    let model = model.rsplit('/').next().unwrap_or(&model);
    TABLE
        .iter()
        .filter(|(name, _)| {
            model == *name
                || model
                    .strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with(['-', '@', ':']))
        })
        .max_by_key(|(name, _)| name.len())
        .map(|(_, price)| *price)
}

/// The cost of `usage` on `model` in US dollars; `None` when the model's price is unknown.
pub fn cost_usd(model: &str, usage: &Usage) -> Option<f64> {
    cost_usd_with(model, usage, crate::CacheTtl::FiveMinutes)
}

/// [`cost_usd`] for requests whose cache entries live `ttl`: Anthropic bills a one-hour cache
/// write at twice the input price instead of 1.25 times.
pub fn cost_usd_with(model: &str, usage: &Usage, ttl: crate::CacheTtl) -> Option<f64> {
    let mut price = price(model)?;
    if ttl == crate::CacheTtl::OneHour {
        price.cache_write = price.input * 2.0;
    }
    let part = |tokens: u64, per_million: f64| tokens as f64 * per_million / 1_000_000.0;
    Some(round_cost(
        part(usage.input_tokens, price.input)
            + part(usage.output_tokens, price.output)
            + part(usage.cache_creation_input_tokens, price.cache_write)
            + part(usage.cache_read_input_tokens, price.cache_read)
            + usage.web_search_requests as f64 * WEB_SEARCH_USD,
    ))
}

/// What one web search the provider runs costs: $10 per 1,000 at Anthropic and at OpenAI.
const WEB_SEARCH_USD: f64 = 0.01;

/// Rounds dollars to a billionth, so sums print as `0.009165`, not `0.009165000000000001`.
pub fn round_cost(usd: f64) -> f64 {
    (usd * 1e9).round() / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_one_hour_cache_write_costs_twice_the_input_price() {
        let usage = Usage {
            cache_creation_input_tokens: 1_000_000,
            ..Usage::default()
        };
        let input = price("claude-sonnet-4-5").unwrap().input;
        assert_eq!(cost_usd("claude-sonnet-4-5", &usage), Some(input * 1.25));
        assert_eq!(
            cost_usd_with("claude-sonnet-4-5", &usage, crate::CacheTtl::OneHour),
            Some(input * 2.0)
        );
    }

    #[test]
    fn costs_are_rounded_to_a_billionth_of_a_dollar() {
        let usage = Usage {
            input_tokens: 1200,
            output_tokens: 48,
            cache_creation_input_tokens: 900,
            cache_read_input_tokens: 0,
            web_search_requests: 0,
        };
        let cost = cost_usd("claude-sonnet-4-5", &usage).unwrap();
        assert_eq!(serde_json::to_string(&cost).unwrap(), "0.007695");
        assert_eq!(round_cost(0.007695 + 0.00147).to_string(), "0.009165");
    }

    #[test]
    fn names_match_exactly_or_by_documented_prefix_longest_first() {
        let cases = [
            ("claude-sonnet-4-5-20250929", Some(3.0)),
            ("claude-sonnet-4-20250514", Some(3.0)),
            ("claude-opus-4-1-20250805", Some(15.0)),
            ("claude-opus-4-5", Some(5.0)),
            ("claude-haiku-4-5", Some(1.0)),
            ("claude-3-5-haiku-latest", Some(0.80)),
            ("claude-sonnet-4-5@20250929", Some(3.0)),
            ("gpt-5", Some(1.25)),
            ("gpt-5-mini-2025-08-07", Some(0.25)),
            ("gpt-5-codex", Some(1.25)),
            ("gpt-4.1-mini", Some(0.40)),
            ("gpt-4o-2024-08-06", Some(2.50)),
            ("o3", Some(2.0)),
            ("o4-mini", Some(1.10)),
            ("deepseek-reasoner", Some(0.28)),
            ("deepseek/deepseek-chat", Some(0.28)),
            ("qwen-max-latest", Some(1.60)),
            ("qwen3-coder-plus", Some(1.0)),
            ("kimi-k2-0905-preview", Some(0.60)),
            ("kimi-k2-turbo-preview", Some(1.15)),
            ("gpt-5.5", None),
            ("gpt-4", None),
            ("llama3.1:8b", None),
            ("o3x", None),
        ];
        for (model, input) in cases {
            assert_eq!(price(model).map(|p| p.input), input, "{model}");
        }
    }

    #[test]
    fn cost_adds_every_token_kind_at_its_rate() {
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 100_000,
            cache_creation_input_tokens: 200_000,
            cache_read_input_tokens: 2_000_000,
            web_search_requests: 0,
        };
        // 3.00 + 1.50 + 0.75 + 0.60
        let cost = cost_usd("claude-sonnet-4-5", &usage).unwrap();
        assert!((cost - 5.85).abs() < 1e-9, "{cost}");
    }

    #[test]
    fn unknown_models_have_no_cost() {
        assert_eq!(cost_usd("my-local-model", &Usage::default()), None);
    }
}
