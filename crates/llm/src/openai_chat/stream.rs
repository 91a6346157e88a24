//! Parsing Chat Completions chunks. Chat has no block boundaries: a text or reasoning block
//! ends when the other kind starts or a tool call begins; tool calls are assembled by `index`
//! and completed when the response finishes (`[DONE]`, or the end of a stream that carried a
//! `finish_reason`).

use rein_protocol::{ContentBlock, StopReason, Usage};
use serde_json::Value;

use crate::assemble::parse_tool_input;
use crate::http::StreamParser;
use crate::sse::SseEvent;
use crate::{LlmError, LlmErrorKind, ModelEvent};

const PROVIDER: &str = "openai-chat";

/// The text-like block being streamed.
#[derive(Debug, Default, PartialEq)]
enum OpenText {
    #[default]
    None,
    Text(String),
    Thinking(String),
}

/// A tool call being assembled from deltas.
#[derive(Debug)]
struct Call {
    index: Option<u64>,
    id: String,
    name: String,
    arguments: String,
    started: bool,
}

/// Parser state for one response.
#[derive(Debug, Default)]
pub(crate) struct ChatParser {
    open: OpenText,
    calls: Vec<Call>,
    finish_reason: Option<String>,
    usage: Option<Usage>,
    done: bool,
    /// OpenRouter's `reasoning_details`, streamed pieces of one item (same `index` and type)
    /// joined: sent back with the message, as OpenRouter asks, to keep the reasoning.
    reasoning_details: Vec<Value>,
}

impl StreamParser for ChatParser {
    fn on_event(&mut self, event: SseEvent, out: &mut Vec<ModelEvent>) -> Result<(), LlmError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            return self.complete(out);
        }
        if data.is_empty() {
            return Ok(());
        }
        let chunk = event.json(PROVIDER)?;
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            let code = error["code"]
                .as_str()
                .or(error["type"].as_str())
                .unwrap_or("");
            let message = error["message"]
                .as_str()
                .or(error.as_str())
                .unwrap_or("error in stream");
            return Err(LlmError::from_stream(PROVIDER, code, message));
        }
        self.read_usage(&chunk["usage"]);
        let Some(choice) = chunk["choices"].as_array().and_then(|c| c.first()) else {
            return Ok(());
        };
        self.read_usage(&choice["usage"]);
        let delta = &choice["delta"];
        let reasoning = delta["reasoning_content"]
            .as_str()
            .or(delta["reasoning"].as_str());
        if let Some(thinking) = reasoning.filter(|t| !t.is_empty()) {
            self.append(OpenText::Thinking(thinking.to_string()), out);
        }
        // A refusal is the answer: shown and kept as text, not dropped.
        for field in ["content", "refusal"] {
            if let Some(text) = delta[field].as_str().filter(|t| !t.is_empty()) {
                self.append(OpenText::Text(text.to_string()), out);
            }
        }
        for detail in delta["reasoning_details"].as_array().into_iter().flatten() {
            self.add_reasoning_detail(detail);
        }
        if let Some(tool_calls) = delta["tool_calls"].as_array() {
            self.close_text(out);
            for call in tool_calls {
                self.tool_call_delta(call, out);
            }
        }
        if let Some(reason) = choice["finish_reason"].as_str().filter(|r| !r.is_empty()) {
            self.finish_reason = Some(reason.to_string());
        }
        Ok(())
    }

    fn on_end(&mut self, out: &mut Vec<ModelEvent>) -> Result<(), LlmError> {
        if self.done {
            return Ok(());
        }
        if self.finish_reason.is_some() {
            return self.complete(out);
        }
        Err(LlmError::new(
            LlmErrorKind::Protocol,
            PROVIDER,
            "the stream ended without a finish_reason or [DONE] (response incomplete)",
        ))
    }

    fn is_done(&self) -> bool {
        self.done
    }
}

impl ChatParser {
    fn read_usage(&mut self, usage: &Value) {
        if !usage.is_object() {
            return;
        }
        let count = |v: &Value| v.as_u64().unwrap_or(0);
        let prompt = count(&usage["prompt_tokens"]);
        let cached = usage["prompt_tokens_details"]["cached_tokens"]
            .as_u64()
            .or(usage["prompt_cache_hit_tokens"].as_u64())
            .unwrap_or(0);
        self.usage = Some(Usage {
            input_tokens: prompt.saturating_sub(cached),
            output_tokens: count(&usage["completion_tokens"]),
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: cached,
            web_search_requests: 0,
        });
    }

    /// Adds text or reasoning, closing the open block when the kind changes.
    fn append(&mut self, piece: OpenText, out: &mut Vec<ModelEvent>) {
        match (&mut self.open, piece) {
            (OpenText::Text(buffer), OpenText::Text(more)) => {
                buffer.push_str(&more);
                out.push(ModelEvent::TextDelta(more));
            }
            (OpenText::Thinking(buffer), OpenText::Thinking(more)) => {
                buffer.push_str(&more);
                out.push(ModelEvent::ThinkingDelta(more));
            }
            (_, piece) => {
                self.close_text(out);
                match &piece {
                    OpenText::Text(text) => out.push(ModelEvent::TextDelta(text.clone())),
                    OpenText::Thinking(text) => out.push(ModelEvent::ThinkingDelta(text.clone())),
                    OpenText::None => {}
                }
                self.open = piece;
            }
        }
    }

    fn close_text(&mut self, out: &mut Vec<ModelEvent>) {
        let block = match std::mem::take(&mut self.open) {
            OpenText::None => return,
            OpenText::Text(text) => ContentBlock::Text { text },
            OpenText::Thinking(thinking) => ContentBlock::Thinking {
                thinking,
                signature: None,
            },
        };
        out.push(ModelEvent::BlockComplete(block));
    }

    fn tool_call_delta(&mut self, delta: &Value, out: &mut Vec<ModelEvent>) {
        let index = delta["index"].as_u64();
        let id = delta["id"].as_str().filter(|id| !id.is_empty());
        let function = &delta["function"];
        let position = match (index, id) {
            (Some(index), _) => self.calls.iter().position(|c| c.index == Some(index)),
            // Without an index, a new id means a new call; no id continues the last one.
            (None, Some(id)) => self.calls.iter().position(|c| c.id == id),
            (None, None) => self.calls.len().checked_sub(1),
        };
        let position = position.unwrap_or_else(|| {
            self.calls.push(Call {
                index,
                id: String::new(),
                name: String::new(),
                arguments: String::new(),
                started: false,
            });
            self.calls.len() - 1
        });
        let call = &mut self.calls[position];
        match id {
            Some(id) if call.id.is_empty() => call.id = id.to_string(),
            _ => {}
        }
        match function["name"].as_str() {
            Some(name) if call.name.is_empty() => call.name = name.to_string(),
            _ => {}
        }
        let fragment = function["arguments"].as_str().unwrap_or("");
        call.arguments.push_str(fragment);
        if !call.started && !call.name.is_empty() {
            if call.id.is_empty() {
                call.id = format!("call_{}", fastrand::u64(..));
            }
            call.started = true;
            out.push(ModelEvent::ToolCallStart {
                id: call.id.clone(),
                name: call.name.clone(),
            });
            // Fragments that arrived before the name are sent now.
            if !call.arguments.is_empty() {
                out.push(ModelEvent::ToolCallDelta {
                    id: call.id.clone(),
                    fragment: call.arguments.clone(),
                });
            }
        } else if call.started && !fragment.is_empty() {
            out.push(ModelEvent::ToolCallDelta {
                id: call.id.clone(),
                fragment: fragment.to_string(),
            });
        }
    }

    fn add_reasoning_detail(&mut self, detail: &Value) {
        let same_item = |last: &Value| {
            last["index"] == detail["index"]
                && last["type"] == detail["type"]
                && detail["type"] == "reasoning.text"
        };
        match self.reasoning_details.last_mut() {
            Some(last) if same_item(last) => {
                let joined = format!(
                    "{}{}",
                    last["text"].as_str().unwrap_or(""),
                    detail["text"].as_str().unwrap_or("")
                );
                last["text"] = Value::String(joined);
            }
            _ => self.reasoning_details.push(detail.clone()),
        }
    }

    fn complete(&mut self, out: &mut Vec<ModelEvent>) -> Result<(), LlmError> {
        self.close_text(out);
        if !self.reasoning_details.is_empty() {
            let details = std::mem::take(&mut self.reasoning_details);
            out.push(ModelEvent::BlockComplete(ContentBlock::Provider {
                protocol: PROVIDER.to_string(),
                block: serde_json::json!({"reasoning_details": details}),
            }));
        }
        let calls = std::mem::take(&mut self.calls);
        let has_calls = calls.iter().any(|c| c.started);
        for call in calls.into_iter().filter(|c| c.started) {
            let input = parse_tool_input(&call.arguments);
            out.push(ModelEvent::BlockComplete(ContentBlock::ToolUse {
                id: call.id,
                name: call.name,
                input,
            }));
        }
        let stop_reason = match self.finish_reason.as_deref() {
            Some("length") => StopReason::MaxTokens,
            Some("content_filter") => StopReason::Refusal,
            _ if has_calls => StopReason::ToolUse,
            Some("stop" | "tool_calls" | "function_call" | "eos") | None => StopReason::EndTurn,
            Some(other) => StopReason::Other(other.to_string()),
        };
        self.done = true;
        out.push(ModelEvent::Completed {
            stop_reason,
            usage: self.usage.unwrap_or_default(),
        });
        Ok(())
    }
}
