//! What rein knows of a model's limits: its context window and the most output it may write
//! per request. One built-in table by model-name prefix (the longest matching prefix wins; a
//! router's `vendor/` prefix is ignored), which the user's config extends the same way
//! (`[context_windows]`, `[max_output_tokens]`).

/// A model's limits, in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelLimits {
    /// Input and output together.
    pub context_window: u64,
    /// Output per request (the request's `max_tokens` / `max_output_tokens`).
    pub max_output: u32,
}

/// Limits of a model the table does not know: a window most servers offer and the output
/// limit every provider accepts.
pub const UNKNOWN_MODEL: ModelLimits = ModelLimits {
    context_window: 128_000,
    max_output: 8_192,
};

const fn m(context_window: u64, max_output: u32) -> ModelLimits {
    ModelLimits {
        context_window,
        max_output,
    }
}

/// Model-name prefix → limits, from the providers' model pages.
const TABLE: &[(&str, ModelLimits)] = &[
    ("claude", m(200_000, 8_192)),
    ("claude-3-opus", m(200_000, 4_096)),
    ("claude-3-haiku", m(200_000, 4_096)),
    ("claude-3-5", m(200_000, 8_192)),
    ("claude-3-7-sonnet", m(200_000, 64_000)),
    ("claude-sonnet-4", m(200_000, 64_000)),
    ("claude-haiku-4", m(200_000, 64_000)),
    ("claude-opus-4", m(200_000, 32_000)),
    ("claude-opus-4-5", m(200_000, 64_000)),
    ("gpt-4.1", m(1_047_576, 32_768)),
    ("gpt-4o", m(128_000, 16_384)),
    ("gpt-5", m(400_000, 128_000)),
    ("o3", m(200_000, 100_000)),
    ("o4", m(200_000, 100_000)),
    ("codex", m(400_000, 128_000)),
    ("deepseek", m(128_000, 8_192)),
    ("deepseek-reasoner", m(128_000, 64_000)),
    ("qwen", m(128_000, 8_192)),
    ("qwen3-coder", m(1_000_000, 65_536)),
    ("kimi-k2", m(256_000, 16_384)),
    ("moonshot", m(128_000, 8_192)),
];

/// Whether `name` starts with `prefix`, ignoring ASCII case.
fn starts(name: &str, prefix: &str) -> bool {
    name.get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}

/// The value of the longest prefix in `table` that `model` (or its last `/` segment) starts
/// with.
fn longest<'a, T>(model: &str, table: impl Iterator<Item = (&'a str, T)>) -> Option<T> {
    let last = model.rsplit('/').next().unwrap_or(model);
    table
        .filter(|(prefix, _)| starts(model, prefix) || starts(last, prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, value)| value)
}

/// Most output the first request of a turn asks for when neither the user's table nor
/// `max_tokens` sets it: Anthropic counts `max_tokens` against output rate limits up front, so
/// rein asks for the model's full limit only when a reply was cut inside a tool call (as
/// Claude Code goes from 32k to 64k).
pub const FIRST_OUTPUT_CAP: u32 = 32_000;

/// The output limit a request to `model` asks for first: the user's table's, else the
/// built-in limit up to [`FIRST_OUTPUT_CAP`].
pub fn first_output(model: &str, outputs: &[(String, u32)]) -> u32 {
    longest(model, outputs.iter().map(|(p, o)| (p.as_str(), *o)))
        .unwrap_or_else(|| limits(model).max_output.min(FIRST_OUTPUT_CAP))
}

/// The built-in limits of `model` ([`UNKNOWN_MODEL`] when the table has no prefix of it).
pub fn limits(model: &str) -> ModelLimits {
    longest(model, TABLE.iter().map(|(p, l)| (*p, *l))).unwrap_or(UNKNOWN_MODEL)
}

/// The limits of `model` with the user's tables (model-name prefix → tokens) laid over the
/// built-in one: a configured prefix beats the table, the longest configured prefix wins.
pub fn limits_with(
    model: &str,
    windows: &[(String, u64)],
    outputs: &[(String, u32)],
) -> ModelLimits {
    let table = limits(model);
    ModelLimits {
        context_window: longest(model, windows.iter().map(|(p, w)| (p.as_str(), *w)))
            .unwrap_or(table.context_window),
        max_output: longest(model, outputs.iter().map(|(p, o)| (p.as_str(), *o)))
            .unwrap_or(table.max_output),
    }
}

/// Model-name prefixes of models that read images, from the providers' model pages (Claude
/// 3 and later, OpenAI's GPT-4o, 4.1 and 5 and the o-series, the vision variants of open
/// models). A model the table does not name is taken not to see: it is told what an image
/// result held instead of being sent one a server may refuse.
const VISION: &[(&str, bool)] = &[
    ("claude", true),
    ("claude-2", false),
    ("claude-instant", false),
    ("gpt-4o", true),
    ("gpt-4.1", true),
    ("gpt-5", true),
    ("o3", true),
    ("o4", true),
    ("codex", true),
    ("gemini", true),
    ("llava", true),
    ("qwen2.5-vl", true),
    ("qwen-vl", true),
    ("pixtral", true),
    ("kimi-vl", true),
    ("llama-4", true),
];

/// Whether `model` reads images: the user's table (model-name prefix → yes or no,
/// `[vision]`) over the built-in one, the longest prefix winning.
pub fn sees_images(model: &str, configured: &[(String, bool)]) -> bool {
    longest(model, configured.iter().map(|(p, v)| (p.as_str(), *v)))
        .or_else(|| longest(model, VISION.iter().map(|(p, v)| (*p, *v))))
        .unwrap_or(false)
}

/// The common models a picker offers besides the current one (`/model` in the terminal UI,
/// the model option of `rein acp`); any other is typed by name.
pub const COMMON: [&str; 9] = [
    "claude-sonnet-4-5",
    "claude-opus-4-5",
    "claude-haiku-4-5",
    "gpt-5",
    "gpt-5-mini",
    "o4-mini",
    "deepseek-chat",
    "qwen3-coder-plus",
    "kimi-k2",
];

/// Why a [`ModelSource`] has no client for a model: the front end's own error (an unknown
/// provider, a missing key), whose type rein-llm does not know.
pub type SourceError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Where an agent's helper (a subagent, `web_fetch`'s reader) that names a model (`haiku`, `claude-opus-4-1`) gets a client for it.
pub trait ModelSource: Send + Sync {
    /// The full model name for `model` (an alias or a name) and a client that serves it; an
    /// error the model can read when there is none (unknown provider, missing key).
    fn client_for(
        &self,
        model: &str,
    ) -> Result<(String, std::sync::Arc<dyn crate::ModelClient>), SourceError>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn vision_follows_the_table_and_the_users_prefixes() {
        let none: &[(String, bool)] = &[];
        for model in ["claude-sonnet-4-5", "gpt-5-codex", "gpt-4o-mini", "o4-mini"] {
            assert!(sees_images(model, none), "{model}");
        }
        for model in ["deepseek-chat", "qwen3-coder", "claude-2.1", "mystery"] {
            assert!(!sees_images(model, none), "{model}");
        }
        let mine = [
            ("mystery".to_string(), true),
            ("claude-sonnet".to_string(), false),
        ];
        assert!(sees_images("mystery-7b", &mine));
        assert!(!sees_images("claude-sonnet-4-5", &mine));
        assert!(sees_images("claude-opus-4", &mine));
    }

    #[test]
    fn the_table_gives_each_family_its_window_and_output_limit() {
        let cases = [
            ("claude-sonnet-4-5-20250929", 200_000, 64_000),
            ("claude-opus-4-1", 200_000, 32_000),
            ("claude-opus-4-5", 200_000, 64_000),
            ("claude-3-5-haiku-latest", 200_000, 8_192),
            ("claude-3-haiku-20240307", 200_000, 4_096),
            ("openrouter/anthropic/claude-x", 200_000, 8_192),
            ("gpt-5-codex", 400_000, 128_000),
            ("gpt-4.1-mini", 1_047_576, 32_768),
            ("gpt-4o", 128_000, 16_384),
            ("o4-mini", 200_000, 100_000),
            ("deepseek-chat", 128_000, 8_192),
            ("deepseek-reasoner", 128_000, 64_000),
            ("Qwen/Qwen3-Coder-30B", 1_000_000, 65_536),
            ("mystery", 128_000, 8_192),
        ];
        for (model, window, output) in cases {
            assert_eq!(limits(model), m(window, output), "{model}");
        }
    }

    #[test]
    fn configured_tables_beat_the_built_in_one_and_the_longest_prefix_wins() {
        let windows = vec![
            ("claude".to_string(), 1_000_000),
            ("claude-haiku".to_string(), 50_000),
            ("My-Local".to_string(), 32_768),
        ];
        let outputs = vec![
            ("my-local".to_string(), 4_000),
            ("claude".to_string(), 9_000),
        ];
        let cases = [
            ("claude-sonnet-4-5", 1_000_000, 9_000),
            ("claude-haiku-4-5", 50_000, 9_000),
            ("my-local-coder:7b", 32_768, 4_000),
            ("ollama/MY-LOCAL-coder", 32_768, 4_000),
            ("gpt-4o", 128_000, 16_384),
        ];
        for (model, window, output) in cases {
            assert_eq!(
                limits_with(model, &windows, &outputs),
                m(window, output),
                "{model}"
            );
        }
        assert_eq!(
            limits_with("claude-sonnet-4-5", &[], &[]),
            limits("claude-sonnet-4-5")
        );
    }
}
