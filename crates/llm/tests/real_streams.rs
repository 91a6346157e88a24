//! The 80 responses recorded from the real provider APIs (`../shared/conformance/real-streams/`)
//! replayed through the mock server, whole and in small writes. What rein assembles is checked
//! against what the recording says, read by a small parser of the recorded events written here
//! (not rein's), and the follow-up request rein builds from the answer is checked for what the
//! real API requires.

use pretty_assertions::assert_eq;
use rein_llm::{ModelRequest, ProviderKind};
use rein_protocol::{ContentBlock, Message, Role, StopReason};
use rein_testkit::{MockServer, Scenario, ScenarioTurn};
use serde_json::{Value, json};

use crate::support::{client, hello, run};

/// What a recording says the response was.
#[derive(Debug, Default, PartialEq)]
struct Expected {
    text: String,
    thinking: String,
    /// `(id, name, arguments)` in order.
    calls: Vec<(String, String, Value)>,
    stop: Option<StopReason>,
    output_tokens: Option<u64>,
    input_tokens: Option<u64>,
    /// The stream carries an error event: the response is an error.
    error: bool,
}

/// The JSON payloads of the recording's `data:` lines, with their `event:` names.
fn events(body: &str) -> Vec<(Option<String>, Value)> {
    let mut out = Vec::new();
    let mut name = None;
    for line in body.lines() {
        if let Some(event) = line.strip_prefix("event:") {
            name = Some(event.trim().to_string());
        } else if let Some(data) = line.strip_prefix("data:") {
            if let Ok(value) = serde_json::from_str::<Value>(data.trim()) {
                out.push((name.take(), value));
            }
        } else if line.is_empty() {
            name = None;
        }
    }
    out
}

fn arguments(text: &str) -> Value {
    if text.trim().is_empty() {
        json!({})
    } else {
        serde_json::from_str(text).unwrap_or_else(|e| panic!("recorded arguments {text:?}: {e}"))
    }
}

fn anthropic(body: &str) -> Expected {
    let mut e = Expected::default();
    let mut open: Vec<(usize, String, String, String)> = Vec::new();
    for (name, data) in events(body) {
        let kind = data["type"]
            .as_str()
            .map(str::to_string)
            .or(name)
            .unwrap_or_default();
        match kind.as_str() {
            "message_start" => {
                let u = &data["message"]["usage"];
                let input = [
                    "input_tokens",
                    "cache_creation_input_tokens",
                    "cache_read_input_tokens",
                ]
                .iter()
                .filter_map(|k| u[k].as_u64())
                .sum();
                e.input_tokens = Some(input);
                e.output_tokens = u["output_tokens"].as_u64();
            }
            "content_block_start" if data["content_block"]["type"] == "tool_use" => {
                let block = &data["content_block"];
                let index = data["index"].as_u64().unwrap_or(0) as usize;
                let id = block["id"].as_str().unwrap_or("").to_string();
                let name = block["name"].as_str().unwrap_or("").to_string();
                open.push((index, id, name, String::new()));
            }
            "content_block_delta" => {
                let d = &data["delta"];
                match d["type"].as_str() {
                    Some("text_delta") => e.text.push_str(d["text"].as_str().unwrap_or("")),
                    Some("thinking_delta") => {
                        e.thinking.push_str(d["thinking"].as_str().unwrap_or(""))
                    }
                    Some("input_json_delta") => {
                        let index = data["index"].as_u64().unwrap_or(0) as usize;
                        if let Some(call) = open.iter_mut().find(|c| c.0 == index) {
                            call.3.push_str(d["partial_json"].as_str().unwrap_or(""));
                        }
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(reason) = data["delta"]["stop_reason"].as_str() {
                    e.stop = Some(match reason {
                        "end_turn" => StopReason::EndTurn,
                        "tool_use" => StopReason::ToolUse,
                        "max_tokens" => StopReason::MaxTokens,
                        "stop_sequence" => StopReason::StopSequence,
                        "pause_turn" => StopReason::PauseTurn,
                        "refusal" => StopReason::Refusal,
                        other => StopReason::Other(other.to_string()),
                    });
                }
                // Counts in message_delta are cumulative (server tools add input): they win.
                let u = &data["usage"];
                if let Some(n) = u["output_tokens"].as_u64() {
                    e.output_tokens = Some(n);
                }
                let fields = [
                    "input_tokens",
                    "cache_creation_input_tokens",
                    "cache_read_input_tokens",
                ];
                if fields.iter().any(|k| u[k].is_u64()) {
                    e.input_tokens = Some(fields.iter().filter_map(|k| u[k].as_u64()).sum());
                }
            }
            "error" => e.error = true,
            _ => {}
        }
    }
    e.calls = open
        .into_iter()
        .map(|(_, id, name, args)| (id, name, arguments(&args)))
        .collect();
    e
}

fn chat(body: &str) -> Expected {
    let mut e = Expected::default();
    let mut calls: Vec<(u64, String, String, String)> = Vec::new();
    for (_, data) in events(body) {
        if data.get("error").is_some_and(|x| !x.is_null()) {
            e.error = true;
        }
        if let Some(u) = data.get("usage").filter(|u| u.is_object()) {
            e.output_tokens = u["completion_tokens"].as_u64();
            e.input_tokens = u["prompt_tokens"].as_u64();
        }
        let Some(choice) = data["choices"].get(0) else {
            continue;
        };
        let d = &choice["delta"];
        e.text.push_str(d["content"].as_str().unwrap_or(""));
        e.text.push_str(d["refusal"].as_str().unwrap_or(""));
        let reasoning = d["reasoning_content"].as_str().or(d["reasoning"].as_str());
        e.thinking.push_str(reasoning.unwrap_or(""));
        for call in d["tool_calls"].as_array().into_iter().flatten() {
            let index = call["index"].as_u64().unwrap_or(calls.len() as u64);
            let pos = match calls.iter().position(|c| c.0 == index) {
                Some(pos) => pos,
                None => {
                    calls.push((index, String::new(), String::new(), String::new()));
                    calls.len() - 1
                }
            };
            let entry = &mut calls[pos];
            if let Some(id) = call["id"].as_str().filter(|id| !id.is_empty()) {
                entry.1 = id.to_string();
            }
            if let Some(name) = call["function"]["name"].as_str() {
                entry.2.push_str(name);
            }
            entry
                .3
                .push_str(call["function"]["arguments"].as_str().unwrap_or(""));
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            e.stop = Some(match reason {
                "stop" => StopReason::EndTurn,
                "tool_calls" | "function_call" => StopReason::ToolUse,
                "length" => StopReason::MaxTokens,
                "content_filter" => StopReason::Refusal,
                other => StopReason::Other(other.to_string()),
            });
        }
    }
    e.calls = calls
        .into_iter()
        .map(|(_, id, name, args)| (id, name, arguments(&args)))
        .collect();
    e
}

fn responses(body: &str) -> Expected {
    let mut e = Expected::default();
    for (name, data) in events(body) {
        let kind = data["type"]
            .as_str()
            .map(str::to_string)
            .or(name)
            .unwrap_or_default();
        match kind.as_str() {
            "response.output_text.delta" | "response.refusal.delta" => {
                e.text.push_str(data["delta"].as_str().unwrap_or(""));
            }
            // Summary parts are separate paragraphs; rein shows them with a blank line between.
            "response.reasoning_summary_part.added" if !e.thinking.is_empty() => {
                e.thinking.push_str("\n\n");
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                e.thinking.push_str(data["delta"].as_str().unwrap_or(""));
            }
            "response.output_item.done" if data["item"]["type"] == "function_call" => {
                let item = &data["item"];
                e.calls.push((
                    item["call_id"].as_str().unwrap_or("").to_string(),
                    item["name"].as_str().unwrap_or("").to_string(),
                    arguments(item["arguments"].as_str().unwrap_or("")),
                ));
            }
            "response.completed" | "response.incomplete" => {
                let r = &data["response"];
                e.output_tokens = r["usage"]["output_tokens"].as_u64();
                e.input_tokens = r["usage"]["input_tokens"].as_u64();
                e.stop = Some(match r["incomplete_details"]["reason"].as_str() {
                    Some("max_output_tokens") => StopReason::MaxTokens,
                    Some(other) => StopReason::Other(other.to_string()),
                    None if !e.calls.is_empty() => StopReason::ToolUse,
                    None => StopReason::EndTurn,
                });
            }
            "response.failed" | "error" => e.error = true,
            _ => {}
        }
    }
    e
}

struct Recording {
    name: String,
    kind: ProviderKind,
    body: String,
}

/// The recordings, or `None` (skipped visibly; a failure under CI=true) without the corpus.
fn recordings() -> Option<Vec<Recording>> {
    let manifest = rein_testkit::conformance_file("real-streams/corpus/manifest.json")
        .unwrap_or_else(|e| panic!("{e}"))?;
    let manifest: Value = serde_json::from_str(&manifest).unwrap();
    let list = manifest["recordings"].as_array().unwrap();
    let mut out = Vec::new();
    for entry in list {
        let file = entry["file"].as_str().unwrap();
        let body = rein_testkit::conformance_file(&format!("real-streams/corpus/{file}"))
            .unwrap_or_else(|e| panic!("{e}"))?;
        let kind = match entry["protocol"].as_str().unwrap() {
            "anthropic" => ProviderKind::Anthropic,
            "openai" => ProviderKind::Openai,
            _ => ProviderKind::OpenaiChat,
        };
        out.push(Recording {
            name: entry["name"].as_str().unwrap().to_string(),
            kind,
            body,
        });
    }
    assert_eq!(out.len(), 80, "the corpus has 80 recordings");
    Some(out)
}

fn expected(recording: &Recording) -> Expected {
    match recording.kind {
        ProviderKind::Anthropic => anthropic(&recording.body),
        ProviderKind::OpenaiChat => chat(&recording.body),
        ProviderKind::Openai => responses(&recording.body),
    }
}

async fn server(turns: Vec<ScenarioTurn>) -> MockServer {
    let scenario = Scenario {
        turns,
        ..Scenario::default()
    };
    MockServer::start(scenario).await.unwrap()
}

fn replay(recording: &Recording, chunk_size: Option<usize>) -> ScenarioTurn {
    ScenarioTurn {
        raw_stream: Some(recording.body.clone()),
        chunk_size,
        ..ScenarioTurn::default()
    }
}

#[tokio::test]
async fn every_recorded_stream_is_read_as_recorded_whole_and_in_small_writes() {
    let Some(recordings) = recordings() else {
        return;
    };
    let mut failures = Vec::new();
    for recording in &recordings {
        let want = expected(recording);
        for chunk in [None, Some(7)] {
            let server = server(vec![replay(recording, chunk)]).await;
            let outcome = run(client(&server, recording.kind).as_ref(), hello()).await;
            let label = format!(
                "{} ({})",
                recording.name,
                chunk.map_or("whole".into(), |n| format!("{n}-byte writes"))
            );
            if want.error {
                if outcome.result.is_ok() {
                    failures.push(format!("{label}: the error event was not reported"));
                }
                continue;
            }
            let text = outcome.text();
            let thinking = outcome.thinking();
            let response = match outcome.result {
                Ok(response) => response,
                Err(e) => {
                    failures.push(format!("{label}: {e}"));
                    continue;
                }
            };
            let calls: Vec<(String, String, Value)> = response
                .message
                .content
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::ToolUse { id, name, input } => {
                        Some((id.clone(), name.clone(), input.clone()))
                    }
                    _ => None,
                })
                .collect();
            let mut check = |what: &str, got: String, wanted: String| {
                if got != wanted {
                    failures.push(format!("{label}: {what}: got {got:?}, recorded {wanted:?}"));
                }
            };
            check("text", text, want.text.clone());
            check("message text", response.message.text(), want.text.clone());
            check("thinking", thinking, want.thinking.clone());
            check(
                "tool calls",
                format!("{calls:?}"),
                format!("{:?}", want.calls),
            );
            if let Some(stop) = &want.stop {
                check(
                    "stop reason",
                    format!("{:?}", response.stop_reason),
                    format!("{stop:?}"),
                );
            }
            if let Some(n) = want.output_tokens {
                check(
                    "output tokens",
                    response.usage.output_tokens.to_string(),
                    n.to_string(),
                );
            }
            if let Some(n) = want.input_tokens {
                check(
                    "input tokens",
                    response.usage.total_input().to_string(),
                    n.to_string(),
                );
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The request after a recorded answer: the answer echoed as the assistant turn, each call
/// answered; what each API requires of it checked on the wire.
#[tokio::test]
async fn the_follow_up_request_echoes_each_recorded_answer_as_the_api_requires() {
    let Some(recordings) = recordings() else {
        return;
    };
    let mut failures = Vec::new();
    for recording in &recordings {
        if expected(recording).error {
            continue;
        }
        let next = ScenarioTurn {
            text: Some("ok".into()),
            ..ScenarioTurn::default()
        };
        let server = server(vec![replay(recording, None), next]).await;
        let client = client(&server, recording.kind);
        let Ok(response) = run(client.as_ref(), hello()).await.result else {
            failures.push(format!(
                "{}: the recording did not assemble",
                recording.name
            ));
            continue;
        };
        let answer = response.message.clone();
        let results: Vec<ContentBlock> = answer
            .tool_uses()
            .map(|(id, _, _)| ContentBlock::ToolResult {
                tool_use_id: id.to_string(),
                content: "done".into(),
                is_error: false,
                media: Vec::new(),
            })
            .collect();
        let mut messages = hello().messages;
        messages.push(answer.clone());
        messages.push(if results.is_empty() {
            Message::user_text("go on")
        } else {
            Message {
                role: Role::User,
                content: results,
            }
        });
        let request = ModelRequest {
            messages,
            ..hello()
        };
        if let Err(e) = run(client.as_ref(), request).await.result {
            failures.push(format!("{}: the follow-up failed: {e}", recording.name));
            continue;
        }
        let body = &server.requests()[1].body;
        if let Err(problem) = follow_up_ok(recording, &answer, body) {
            failures.push(format!("{}: {problem}", recording.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// What each API requires of the request after `answer`.
fn follow_up_ok(recording: &Recording, answer: &Message, body: &Value) -> Result<(), String> {
    let ids: Vec<String> = answer
        .tool_uses()
        .map(|(id, _, _)| id.to_string())
        .collect();
    let sent = body.to_string();
    for id in &ids {
        if sent.matches(id.as_str()).count() < 2 {
            return Err(format!("call {id} is not echoed and answered"));
        }
    }
    let recorded = events(&recording.body);
    match recording.kind {
        ProviderKind::Anthropic => {
            // Signed thinking, redacted thinking and server-tool blocks go back as they came.
            let assistant = body["messages"]
                .as_array()
                .and_then(|m| m.iter().find(|m| m["role"] == "assistant"))
                .ok_or("no assistant message")?;
            for (_, data) in &recorded {
                if data["type"] != "content_block_start" {
                    continue;
                }
                let kind = data["content_block"]["type"].as_str().unwrap_or("");
                let wanted = match kind {
                    "thinking" | "redacted_thinking" | "server_tool_use" => kind,
                    k if k.ends_with("_tool_result") => kind,
                    _ => continue,
                };
                let echoed = assistant["content"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|b| b["type"] == wanted);
                if !echoed {
                    return Err(format!("the {wanted} block is not sent back"));
                }
            }
            for (_, data) in &recorded {
                if let Some(signature) = data["delta"]["signature"].as_str()
                    && !sent.contains(signature)
                {
                    return Err("a thinking signature is not sent back".into());
                }
            }
        }
        ProviderKind::Openai => {
            for (_, data) in &recorded {
                let item = &data["item"];
                if data["type"] != "response.output_item.done" {
                    continue;
                }
                if let Some(encrypted) = item["encrypted_content"].as_str()
                    && !sent.contains(encrypted)
                {
                    return Err("encrypted reasoning is not sent back".into());
                }
                if let Some(phase) = item["phase"].as_str()
                    && !sent.contains(&format!("\"phase\":\"{phase}\""))
                {
                    return Err(format!("the message's phase {phase:?} is not sent back"));
                }
            }
        }
        ProviderKind::OpenaiChat => {
            let reasoning = chat(&recording.body).thinking;
            let assistant = body["messages"]
                .as_array()
                .and_then(|m| m.iter().find(|m| m["role"] == "assistant"))
                .ok_or("no assistant message")?;
            let echoes =
                assistant["reasoning_content"].as_str().unwrap_or("") == reasoning.as_str();
            if !ids.is_empty() && !reasoning.is_empty() && !echoes {
                return Err("the reasoning of a message with tool calls is not sent back".into());
            }
            // OpenRouter's reasoning_details go back whole: each streamed item's text joined.
            let recorded_details: Vec<&Value> = recorded
                .iter()
                .flat_map(|(_, d)| d["choices"][0]["delta"]["reasoning_details"].as_array())
                .flatten()
                .collect();
            if !recorded_details.is_empty() {
                let sent = assistant["reasoning_details"]
                    .as_array()
                    .ok_or("reasoning_details are not sent back")?;
                let text = |items: &mut dyn Iterator<Item = &Value>| -> String {
                    items
                        .filter_map(|d| d["text"].as_str().or(d["data"].as_str()))
                        .collect()
                };
                if text(&mut sent.iter()) != text(&mut recorded_details.into_iter()) {
                    return Err(
                        "the reasoning_details sent back differ from the recorded ones".into(),
                    );
                }
            }
        }
    }
    Ok(())
}
