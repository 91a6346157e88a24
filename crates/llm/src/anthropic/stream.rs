//! Parsing the Messages event stream: `message_start`, `content_block_start/delta/stop`,
//! `message_delta`, `message_stop`, `ping`, `error`.

use std::collections::BTreeMap;

use rein_protocol::{ContentBlock, StopReason, Usage};
use serde_json::Value;

use crate::assemble::parse_tool_input;
use crate::http::StreamParser;
use crate::sse::SseEvent;
use crate::{LlmError, LlmErrorKind, ModelEvent};

const PROVIDER: &str = "anthropic";

/// A content block being streamed.
#[derive(Debug)]
enum OpenBlock {
    Text(String),
    Thinking {
        text: String,
        signature: String,
    },
    Redacted(String),
    Tool {
        id: String,
        name: String,
        json: String,
    },
    /// A block only the API understands (server tools and their results, compaction…):
    /// kept as it came, its streamed input joined, and sent back verbatim.
    Opaque {
        block: Value,
        json: String,
    },
}

/// Parser state for one response.
#[derive(Debug, Default)]
pub(crate) struct AnthropicParser {
    open: BTreeMap<u64, OpenBlock>,
    usage: Usage,
    stop_reason: Option<StopReason>,
    done: bool,
    /// The pages cited so far (each is announced once).
    cited: Vec<String>,
}

impl StreamParser for AnthropicParser {
    fn on_event(&mut self, event: SseEvent, out: &mut Vec<ModelEvent>) -> Result<(), LlmError> {
        let data = event.json(PROVIDER)?;
        let kind = data["type"]
            .as_str()
            .or(event.event.as_deref())
            .unwrap_or("");
        match kind {
            "message_start" => self.read_usage(&data["message"]["usage"]),
            "content_block_start" => self.start_block(&data, out),
            "content_block_delta" => self.delta(&data, out)?,
            "content_block_stop" => self.stop_block(&data, out)?,
            "message_delta" => {
                if let Some(reason) = data["delta"]["stop_reason"].as_str() {
                    self.stop_reason = Some(stop_reason(reason));
                }
                self.read_usage(&data["usage"]);
            }
            "message_stop" => {
                self.done = true;
                out.push(ModelEvent::Completed {
                    stop_reason: self.stop_reason.clone().unwrap_or(StopReason::EndTurn),
                    usage: self.usage,
                });
            }
            "error" => {
                let error = &data["error"];
                return Err(LlmError::from_stream(
                    PROVIDER,
                    error["type"].as_str().unwrap_or(""),
                    error["message"]
                        .as_str()
                        .unwrap_or("error event without a message"),
                ));
            }
            _ => {} // ping and future event types
        }
        Ok(())
    }

    fn on_end(&mut self, _out: &mut Vec<ModelEvent>) -> Result<(), LlmError> {
        if self.done {
            return Ok(());
        }
        Err(LlmError::new(
            LlmErrorKind::Protocol,
            PROVIDER,
            "the stream ended before message_stop (response incomplete)",
        ))
    }

    fn is_done(&self) -> bool {
        self.done
    }
}

impl AnthropicParser {
    /// Usage counts are cumulative: the latest value of each field wins.
    fn read_usage(&mut self, usage: &Value) {
        let fields = [
            ("input_tokens", &mut self.usage.input_tokens),
            ("output_tokens", &mut self.usage.output_tokens),
            (
                "cache_creation_input_tokens",
                &mut self.usage.cache_creation_input_tokens,
            ),
            (
                "cache_read_input_tokens",
                &mut self.usage.cache_read_input_tokens,
            ),
        ];
        for (name, slot) in fields {
            if let Some(n) = usage[name].as_u64() {
                *slot = n;
            }
        }
        if let Some(n) = usage["server_tool_use"]["web_search_requests"].as_u64() {
            self.usage.web_search_requests = n;
        }
    }

    fn start_block(&mut self, data: &Value, out: &mut Vec<ModelEvent>) {
        let index = data["index"].as_u64().unwrap_or(0);
        let block = &data["content_block"];
        let text = |field: &str| block[field].as_str().unwrap_or("").to_string();
        let open = match block["type"].as_str().unwrap_or("") {
            "text" => {
                let initial = text("text");
                if !initial.is_empty() {
                    out.push(ModelEvent::TextDelta(initial.clone()));
                }
                OpenBlock::Text(initial)
            }
            "thinking" => {
                let initial = text("thinking");
                if !initial.is_empty() {
                    out.push(ModelEvent::ThinkingDelta(initial.clone()));
                }
                OpenBlock::Thinking {
                    text: initial,
                    signature: text("signature"),
                }
            }
            "redacted_thinking" => OpenBlock::Redacted(text("data")),
            "tool_use" => {
                let (id, name) = (text("id"), text("name"));
                out.push(ModelEvent::ToolCallStart {
                    id: id.clone(),
                    name: name.clone(),
                });
                // The start event carries `input: {}`; the arguments arrive as deltas.
                OpenBlock::Tool {
                    id,
                    name,
                    json: String::new(),
                }
            }
            _ => OpenBlock::Opaque {
                block: block.clone(),
                json: String::new(),
            },
        };
        self.open.insert(index, open);
    }

    fn delta(&mut self, data: &Value, out: &mut Vec<ModelEvent>) -> Result<(), LlmError> {
        let index = data["index"].as_u64().unwrap_or(0);
        let delta = &data["delta"];
        let field = |name: &str| delta[name].as_str().unwrap_or("");
        let Some(open) = self.open.get_mut(&index) else {
            return Err(LlmError::new(
                LlmErrorKind::Protocol,
                PROVIDER,
                format!("content_block_delta for block {index}, which was never started"),
            ));
        };
        match (delta["type"].as_str().unwrap_or(""), open) {
            ("text_delta", OpenBlock::Text(text)) => {
                text.push_str(field("text"));
                out.push(ModelEvent::TextDelta(field("text").to_string()));
            }
            ("thinking_delta", OpenBlock::Thinking { text, .. }) => {
                text.push_str(field("thinking"));
                out.push(ModelEvent::ThinkingDelta(field("thinking").to_string()));
            }
            ("signature_delta", OpenBlock::Thinking { signature, .. }) => {
                signature.push_str(field("signature"));
            }
            ("input_json_delta", OpenBlock::Tool { id, json, .. }) => {
                json.push_str(field("partial_json"));
                out.push(ModelEvent::ToolCallDelta {
                    id: id.clone(),
                    fragment: field("partial_json").to_string(),
                });
            }
            ("input_json_delta", OpenBlock::Opaque { json, .. }) => {
                json.push_str(field("partial_json"));
            }
            ("citations_delta", _) => {
                let citation = &delta["citation"];
                let url = citation["url"].as_str().unwrap_or("");
                if !url.is_empty() && !self.cited.iter().any(|u| u == url) {
                    self.cited.push(url.to_string());
                    out.push(ModelEvent::Citation {
                        title: citation["title"].as_str().unwrap_or("").to_string(),
                        url: url.to_string(),
                    });
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn stop_block(&mut self, data: &Value, out: &mut Vec<ModelEvent>) -> Result<(), LlmError> {
        let index = data["index"].as_u64().unwrap_or(0);
        let block = match self.open.remove(&index) {
            Some(OpenBlock::Text(text)) if text.is_empty() => return Ok(()),
            Some(OpenBlock::Text(text)) => ContentBlock::Text { text },
            Some(OpenBlock::Thinking { text, signature }) => ContentBlock::Thinking {
                thinking: text,
                signature: (!signature.is_empty()).then_some(signature),
            },
            Some(OpenBlock::Redacted(data)) => ContentBlock::RedactedThinking { data },
            Some(OpenBlock::Tool { id, name, json }) => {
                let input = parse_tool_input(&json);
                ContentBlock::ToolUse { id, name, input }
            }
            Some(OpenBlock::Opaque { mut block, json }) => {
                if !json.trim().is_empty() {
                    block["input"] = parse_tool_input(&json);
                }
                ContentBlock::Provider {
                    protocol: PROVIDER.to_string(),
                    block,
                }
            }
            None => return Ok(()),
        };
        out.push(ModelEvent::BlockComplete(block));
        Ok(())
    }
}

/// Maps the protocol's `stop_reason`.
pub(crate) fn stop_reason(reason: &str) -> StopReason {
    match reason {
        "end_turn" => StopReason::EndTurn,
        "tool_use" => StopReason::ToolUse,
        "max_tokens" => StopReason::MaxTokens,
        "stop_sequence" => StopReason::StopSequence,
        "refusal" => StopReason::Refusal,
        "pause_turn" => StopReason::PauseTurn,
        other => StopReason::Other(other.to_string()),
    }
}
