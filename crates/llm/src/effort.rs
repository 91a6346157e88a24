//! How hard the model should think: one setting (`--effort`, config `effort`), told to each
//! wire protocol in its own words.
//!
//! - Anthropic: `thinking: {type: "enabled", budget_tokens}` with a budget from the effort
//!   (always below `max_tokens`, at least the API's 1,024), and the `interleaved-thinking`
//!   beta so the model may think between tool calls; `minimal` asks for no thinking.
//! - OpenAI Responses: `reasoning: {effort, summary: "auto"}` (the encrypted reasoning is
//!   already included and echoed back, as `store` is off).
//! - Chat Completions: `reasoning_effort`, dropped for good when a server refuses the field.
//!
//! Without a setting, requests carry none of these: each model's own default applies.

/// The effort levels, as OpenAI names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effort {
    /// As little reasoning as the model allows (Anthropic: no thinking).
    Minimal,
    /// Some reasoning.
    Low,
    /// The usual amount.
    Medium,
    /// As much as helps.
    High,
}

/// A name that is none of the effort levels (the text given, as it was).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown effort {0:?}: expected minimal, low, medium or high")]
pub struct UnknownEffort(pub String);

/// The Anthropic beta that lets a model think between tool calls.
pub(crate) const INTERLEAVED_THINKING_BETA: &str = "interleaved-thinking-2025-05-14";

/// The smallest thinking budget Anthropic accepts.
const MIN_BUDGET: u32 = 1_024;

impl Effort {
    /// Every level, in order.
    pub const ALL: [Effort; 4] = [Self::Minimal, Self::Low, Self::Medium, Self::High];

    /// Parses a level's name (`minimal`, `low`, `medium`, `high`).
    pub fn parse(text: &str) -> Result<Self, UnknownEffort> {
        Self::ALL
            .into_iter()
            .find(|e| e.name() == text.trim().to_ascii_lowercase())
            .ok_or_else(|| UnknownEffort(text.to_string()))
    }

    /// The level's name, as the flag, the config and OpenAI spell it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Minimal => "minimal",
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
        }
    }

    /// Anthropic's thinking budget for this level under `max_tokens`, or `None` when the
    /// request should not think (`minimal`, or no room for the smallest budget and an answer).
    pub(crate) fn anthropic_budget(self, max_tokens: u32) -> Option<u32> {
        let wanted = match self {
            Self::Minimal => return None,
            Self::Low => 4_000,
            Self::Medium => 10_000,
            Self::High => 32_000,
        };
        // Room is left for the answer itself: at most half of the output limit thinks.
        let budget = wanted.min(max_tokens / 2);
        (budget >= MIN_BUDGET).then_some(budget)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_from_their_names_and_bad_ones_are_named() {
        for effort in Effort::ALL {
            assert_eq!(Effort::parse(effort.name()), Ok(effort));
        }
        assert_eq!(Effort::parse(" HIGH "), Ok(Effort::High));
        let err = Effort::parse("max").unwrap_err().to_string();
        assert!(err.contains("minimal, low, medium or high"), "{err}");
    }

    #[test]
    fn anthropic_budgets_grow_with_the_effort_and_leave_room_for_the_answer() {
        let budgets: Vec<Option<u32>> = Effort::ALL
            .iter()
            .map(|e| e.anthropic_budget(64_000))
            .collect();
        assert_eq!(budgets, [None, Some(4_000), Some(10_000), Some(32_000)]);
        assert_eq!(Effort::High.anthropic_budget(8_192), Some(4_096));
        assert_eq!(Effort::Low.anthropic_budget(1_500), None);
    }
}
