//! What the three wire protocols share: which protocol a route speaks, and how a scenario turn
//! is cut into the deltas every protocol streams.

use serde_json::Value;

use crate::cache::CachedInput;
use crate::scenario::{ScenarioToolCall, ScenarioTurn, ScenarioUsage};
use crate::sse::SseFrame;
use crate::{anthropic, openai_chat, openai_responses};

/// The streaming protocol a request speaks, chosen by its route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wire {
    /// `POST /v1/messages`.
    Anthropic,
    /// `POST /v1/responses`.
    Responses,
    /// `POST /v1/chat/completions`.
    Chat,
}

impl Wire {
    /// The protocol served at `path`, if any.
    pub(crate) fn from_path(path: &str) -> Option<Self> {
        match path.trim_end_matches('/') {
            "/v1/messages" => Some(Self::Anthropic),
            "/v1/responses" => Some(Self::Responses),
            "/v1/chat/completions" => Some(Self::Chat),
            _ => None,
        }
    }

    /// The response header carrying the request id.
    pub(crate) fn request_id_header(self) -> &'static str {
        match self {
            Self::Anthropic => "request-id",
            Self::Responses | Self::Chat => "x-request-id",
        }
    }

    /// The SSE frames answering `reply`.
    pub(crate) fn frames(self, reply: &Reply<'_>) -> Vec<SseFrame> {
        match self {
            Self::Anthropic => anthropic::frames(reply),
            Self::Responses => openai_responses::frames(reply),
            Self::Chat => openai_chat::frames(reply),
        }
    }

    /// The protocol's JSON error body for an HTTP error.
    pub(crate) fn error_body(self, status: u16, message: &str, request_id: &str) -> Value {
        match self {
            Self::Anthropic => anthropic::error_body(status, message, request_id),
            Self::Responses | Self::Chat => openai_chat::error_body(status, message),
        }
    }
}

/// Everything a protocol needs to render one turn.
#[derive(Debug, Clone)]
pub(crate) struct Reply<'a> {
    /// The scripted turn.
    pub turn: &'a ScenarioTurn,
    /// 1-based turn number, used in generated ids.
    pub number: usize,
    /// The `model` of the request (echoed back).
    pub model: String,
    /// Whether a Chat Completions request asked for `stream_options.include_usage`.
    pub include_usage: bool,
    /// The input side of the usage from the simulated prompt cache, when simulated.
    pub cached: Option<CachedInput>,
}

impl Reply<'_> {
    /// The turn's usage, or 10 input / 5 output tokens. With a simulated cache, the input side
    /// is the cache's and the output is scripted or estimated from the reply (bytes / 4).
    pub(crate) fn usage(&self) -> ScenarioUsage {
        let scripted = self.turn.usage.unwrap_or(ScenarioUsage {
            input_tokens: 10,
            output_tokens: 5,
            ..ScenarioUsage::default()
        });
        let Some(cached) = self.cached else {
            return scripted;
        };
        let output_tokens = match self.turn.usage {
            Some(usage) => usage.output_tokens,
            None => {
                let turn = self.turn;
                let bytes = [&turn.thinking, &turn.text]
                    .into_iter()
                    .flatten()
                    .map(String::len)
                    .chain(
                        turn.tool_calls
                            .iter()
                            .map(|c| c.arguments.to_string().len()),
                    )
                    .sum::<usize>();
                (bytes as u64).div_ceil(4).max(1)
            }
        };
        ScenarioUsage {
            input_tokens: cached.input,
            output_tokens,
            cache_creation_input_tokens: cached.creation,
            cache_read_input_tokens: cached.read,
            reasoning_tokens: scripted.reasoning_tokens,
        }
    }

    /// Why the turn stops.
    pub(crate) fn finish(&self) -> Finish {
        match self.turn.stop_reason.as_deref() {
            None if self.turn.tool_calls.is_empty() => Finish::EndTurn,
            None => Finish::ToolUse,
            Some("end_turn" | "stop" | "completed") => Finish::EndTurn,
            Some("tool_use" | "tool_calls" | "function_call") => Finish::ToolUse,
            Some("max_tokens" | "length" | "max_output_tokens") => Finish::MaxTokens,
            Some(other) => Finish::Other(other.to_string()),
        }
    }

    /// Whether to stream a reasoning block (thinking text or a bare signature).
    pub(crate) fn has_reasoning(&self) -> bool {
        self.turn.thinking.is_some() || self.turn.signature.is_some()
    }

    /// The id of the `index`-th (0-based) tool call: scripted, or `call_<turn>_<index+1>`.
    pub(crate) fn call_id(&self, index: usize, call: &ScenarioToolCall) -> String {
        call.id
            .clone()
            .unwrap_or_else(|| format!("call_{}_{}", self.number, index + 1))
    }
}

/// Why a turn stops, independent of the protocol's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Finish {
    /// The model finished its answer.
    EndTurn,
    /// The model wants tools to run.
    ToolUse,
    /// The output token limit was hit.
    MaxTokens,
    /// A protocol-specific word, passed through.
    Other(String),
}

/// Splits text into word-sized deltas (each keeps its trailing whitespace), as models stream.
pub(crate) fn words(text: &str) -> Vec<&str> {
    text.split_inclusive(char::is_whitespace).collect()
}

/// Splits serialized tool arguments into up to three fragments on character boundaries, so
/// clients must reassemble the JSON.
pub(crate) fn fragments(json: &str) -> Vec<&str> {
    let chars: Vec<usize> = json.char_indices().map(|(i, _)| i).collect();
    if chars.len() < 3 {
        return vec![json];
    }
    let (a, b) = (chars[chars.len() / 3], chars[2 * chars.len() / 3]);
    vec![&json[..a], &json[a..b], &json[b..]]
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn words_keep_whitespace_and_rejoin_to_the_text() {
        assert_eq!(words("Hello big world"), vec!["Hello ", "big ", "world"]);
        assert_eq!(words("héllo\nwörld").concat(), "héllo\nwörld");
        assert_eq!(words(""), Vec::<&str>::new());
    }

    #[test]
    fn fragments_split_on_char_boundaries_and_rejoin() {
        let json = r#"{"path":"é€😀.py"}"#;
        let parts = fragments(json);
        assert_eq!(parts.len(), 3);
        assert_eq!(parts.concat(), json);
        assert_eq!(fragments("{}"), vec!["{}"]);
    }

    #[test]
    fn routes_map_to_protocols() {
        assert_eq!(Wire::from_path("/v1/messages"), Some(Wire::Anthropic));
        assert_eq!(Wire::from_path("/v1/responses"), Some(Wire::Responses));
        assert_eq!(Wire::from_path("/v1/chat/completions"), Some(Wire::Chat));
        assert_eq!(Wire::from_path("/v1/models"), None);
    }

    #[test]
    fn finish_is_derived_from_content_or_translated() {
        let mut turn = ScenarioTurn::default();
        let reply = |turn: &ScenarioTurn| {
            Reply {
                turn,
                number: 1,
                model: "m".into(),
                include_usage: false,
                cached: None,
            }
            .finish()
        };
        assert_eq!(reply(&turn), Finish::EndTurn);
        turn.tool_calls.push(ScenarioToolCall {
            id: None,
            name: "x".into(),
            arguments: Value::Null,
        });
        assert_eq!(reply(&turn), Finish::ToolUse);
        turn.stop_reason = Some("length".into());
        assert_eq!(reply(&turn), Finish::MaxTokens);
        turn.stop_reason = Some("refusal".into());
        assert_eq!(reply(&turn), Finish::Other("refusal".into()));
    }
}
