//! Parsing the Responses event stream: output items (messages, reasoning, function calls) are
//! opened by `response.output_item.added`, fed by `*.delta` events, and closed by
//! `response.output_item.done`; `response.completed` ends the response.

use std::collections::BTreeMap;

use rein_protocol::{ContentBlock, StopReason, Usage};
use serde_json::Value;

use crate::assemble::parse_tool_input;
use crate::http::StreamParser;
use crate::sse::SseEvent;
use crate::{LlmError, LlmErrorKind, ModelEvent};

const PROVIDER: &str = "openai";

/// An output item being streamed, keyed by `output_index`.
#[derive(Debug)]
enum OpenItem {
    Message(String),
    Reasoning {
        text: String,
        part: Option<u64>,
    },
    Call {
        call_id: String,
        name: String,
        arguments: String,
    },
}

/// Parser state for one response.
#[derive(Debug, Default)]
pub(crate) struct ResponsesParser {
    open: BTreeMap<u64, OpenItem>,
    saw_tool_call: bool,
    /// Web searches the provider ran (`web_search_call` items); the usage does not count them.
    searches: u64,
    done: bool,
}

fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field].as_str().unwrap_or("")
}

impl StreamParser for ResponsesParser {
    fn on_event(&mut self, event: SseEvent, out: &mut Vec<ModelEvent>) -> Result<(), LlmError> {
        let data = event.json(PROVIDER)?;
        let kind = data["type"]
            .as_str()
            .or(event.event.as_deref())
            .unwrap_or("");
        let index = data["output_index"].as_u64().unwrap_or(0);
        match kind {
            "response.output_item.added" => self.add_item(index, &data["item"], out),
            "response.output_text.delta" | "response.refusal.delta" => {
                let delta = text(&data, "delta");
                let entry = self
                    .open
                    .entry(index)
                    .or_insert_with(|| OpenItem::Message(String::new()));
                if let OpenItem::Message(buffer) = entry {
                    buffer.push_str(delta);
                }
                out.push(ModelEvent::TextDelta(delta.to_string()));
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                self.reasoning_delta(index, &data, out);
            }
            "response.function_call_arguments.delta" => {
                if let Some(OpenItem::Call {
                    call_id, arguments, ..
                }) = self.open.get_mut(&index)
                {
                    let fragment = text(&data, "delta");
                    arguments.push_str(fragment);
                    out.push(ModelEvent::ToolCallDelta {
                        id: call_id.clone(),
                        fragment: fragment.to_string(),
                    });
                }
            }
            "response.output_item.done" => self.finish_item(index, &data["item"], out)?,
            "response.completed" | "response.incomplete" => {
                self.complete(&data["response"], out)?
            }
            "response.failed" => {
                let error = &data["response"]["error"];
                return Err(LlmError::from_stream(
                    PROVIDER,
                    text(error, "code"),
                    error["message"].as_str().unwrap_or("the response failed"),
                ));
            }
            "error" => {
                let error = data.get("error").filter(|e| e.is_object()).unwrap_or(&data);
                let code = error["code"]
                    .as_str()
                    .or(error["type"].as_str())
                    .unwrap_or("");
                return Err(LlmError::from_stream(
                    PROVIDER,
                    code,
                    error["message"]
                        .as_str()
                        .unwrap_or("error event without a message"),
                ));
            }
            _ => {}
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
            "the stream ended before response.completed (response incomplete)",
        ))
    }

    fn is_done(&self) -> bool {
        self.done
    }
}

impl ResponsesParser {
    fn add_item(&mut self, index: u64, item: &Value, out: &mut Vec<ModelEvent>) {
        let open = match text(item, "type") {
            "message" => OpenItem::Message(String::new()),
            "reasoning" => OpenItem::Reasoning {
                text: String::new(),
                part: None,
            },
            "function_call" => {
                let (call_id, name) = (call_id(item), text(item, "name").to_string());
                out.push(ModelEvent::ToolCallStart {
                    id: call_id.clone(),
                    name: name.clone(),
                });
                OpenItem::Call {
                    call_id,
                    name,
                    arguments: text(item, "arguments").to_string(),
                }
            }
            _ => return,
        };
        self.open.insert(index, open);
    }

    fn reasoning_delta(&mut self, index: u64, data: &Value, out: &mut Vec<ModelEvent>) {
        let delta = text(data, "delta");
        let this_part = data["summary_index"]
            .as_u64()
            .or(data["content_index"].as_u64());
        let entry = self
            .open
            .entry(index)
            .or_insert_with(|| OpenItem::Reasoning {
                text: String::new(),
                part: None,
            });
        let OpenItem::Reasoning { text, part } = entry else {
            return;
        };
        if !text.is_empty() && this_part != *part {
            text.push_str("\n\n");
            out.push(ModelEvent::ThinkingDelta("\n\n".into()));
        }
        *part = this_part;
        text.push_str(delta);
        out.push(ModelEvent::ThinkingDelta(delta.to_string()));
    }

    fn finish_item(
        &mut self,
        index: u64,
        item: &Value,
        out: &mut Vec<ModelEvent>,
    ) -> Result<(), LlmError> {
        let streamed = self.open.remove(&index);
        let block = match text(item, "type") {
            "message" => {
                let from_item: String = parts(item, "content", &["output_text", "refusal"]);
                let text = match streamed {
                    Some(OpenItem::Message(streamed)) if from_item.is_empty() => streamed,
                    _ => from_item,
                };
                if text.is_empty() {
                    return Ok(());
                }
                out.push(ModelEvent::BlockComplete(ContentBlock::Text { text }));
                // OpenAI asks clients to send the item's phase back with it.
                let Some(phase) = item["phase"].as_str() else {
                    return Ok(());
                };
                ContentBlock::Provider {
                    protocol: PROVIDER.to_string(),
                    block: serde_json::json!({"type": "message_phase", "phase": phase}),
                }
            }
            "reasoning" => {
                let mut thinking = summary_text(item);
                match streamed {
                    Some(OpenItem::Reasoning { text, .. }) if thinking.is_empty() => {
                        thinking = text
                    }
                    _ => {}
                }
                let signature = item["encrypted_content"].as_str().map(str::to_string);
                if thinking.is_empty() && signature.is_none() {
                    return Ok(());
                }
                ContentBlock::Thinking {
                    thinking,
                    signature,
                }
            }
            "function_call" => {
                let (mut id, mut name) = (call_id(item), text(item, "name").to_string());
                let mut arguments = item["arguments"].as_str().map(str::to_string);
                match streamed {
                    Some(OpenItem::Call {
                        call_id,
                        name: streamed_name,
                        arguments: streamed_arguments,
                    }) => {
                        if id.is_empty() {
                            id = call_id;
                        }
                        if name.is_empty() {
                            name = streamed_name;
                        }
                        arguments.get_or_insert(streamed_arguments);
                    }
                    // The call was never announced by `output_item.added`.
                    _ => out.push(ModelEvent::ToolCallStart {
                        id: id.clone(),
                        name: name.clone(),
                    }),
                }
                let arguments = arguments.unwrap_or_default();
                let input = parse_tool_input(&arguments);
                self.saw_tool_call = true;
                ContentBlock::ToolUse { id, name, input }
            }
            "web_search_call" => self.searched(item),
            _ => return Ok(()),
        };
        out.push(ModelEvent::BlockComplete(block));
        Ok(())
    }

    /// A search the provider ran: counted, and shown (the query, the sources), not sent back.
    fn searched(&mut self, item: &Value) -> ContentBlock {
        self.searches += 1;
        ContentBlock::Provider {
            protocol: PROVIDER.to_string(),
            block: item.clone(),
        }
    }

    fn complete(&mut self, response: &Value, out: &mut Vec<ModelEvent>) -> Result<(), LlmError> {
        let reason = text(&response["incomplete_details"], "reason");
        let stop_reason = match (text(response, "status"), reason) {
            ("incomplete", "max_output_tokens") => StopReason::MaxTokens,
            ("incomplete", other) => {
                return Err(LlmError::new(
                    LlmErrorKind::BadRequest,
                    PROVIDER,
                    format!(
                        "the response is incomplete: {}",
                        if other.is_empty() {
                            "no reason given"
                        } else {
                            other
                        }
                    ),
                ));
            }
            _ if self.saw_tool_call => StopReason::ToolUse,
            _ => StopReason::EndTurn,
        };
        let usage = &response["usage"];
        let count = |v: &Value| v.as_u64().unwrap_or(0);
        let cached = count(&usage["input_tokens_details"]["cached_tokens"]);
        self.done = true;
        out.push(ModelEvent::Completed {
            stop_reason,
            usage: Usage {
                input_tokens: count(&usage["input_tokens"]).saturating_sub(cached),
                output_tokens: count(&usage["output_tokens"]),
                cache_creation_input_tokens: 0,
                cache_read_input_tokens: cached,
                web_search_requests: self.searches,
            },
        });
        Ok(())
    }
}

/// A function call's id: `call_id` (what results refer to), falling back to the item id.
fn call_id(item: &Value) -> String {
    item["call_id"]
        .as_str()
        .or(item["id"].as_str())
        .unwrap_or("")
        .to_string()
}

/// The concatenated text of an item's `field` parts whose type is one of `types`.
fn parts(item: &Value, field: &str, types: &[&str]) -> String {
    let Some(parts) = item[field].as_array() else {
        return String::new();
    };
    parts
        .iter()
        .filter(|p| types.contains(&text(p, "type")))
        .map(|p| p["text"].as_str().or(p["refusal"].as_str()).unwrap_or(""))
        .collect()
}

/// A reasoning item's summary parts joined by blank lines, or its full reasoning text.
fn summary_text(item: &Value) -> String {
    let collect = |field: &str| -> Vec<&str> {
        item[field]
            .as_array()
            .map(|parts| parts.iter().filter_map(|p| p["text"].as_str()).collect())
            .unwrap_or_default()
    };
    let summary = collect("summary");
    if summary.is_empty() {
        collect("content").join("\n\n")
    } else {
        summary.join("\n\n")
    }
}
