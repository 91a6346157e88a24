use super::*;
use crate::http::parse_recorded;
use crate::{LlmErrorKind, ModelEvent};
use pretty_assertions::assert_eq;
use rein_protocol::{ContentBlock, ImageSource, Message, Role, StopReason, ToolSpec, Usage};
use serde_json::{Value, json};

const RECORDED: &str = r#"event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":100,"cache_read_input_tokens":50,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me "}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"check."}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAh"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Reading."}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"read_file","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"a"}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":".txt\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: content_block_start
data: {"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_2","name":"glob","input":{}}}

event: content_block_stop
data: {"type":"content_block_stop","index":3}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}

event: message_stop
data: {"type":"message_stop"}

"#;

#[test]
fn recorded_stream_yields_deltas_blocks_usage_and_stop_reason() {
    let events = parse_recorded(&mut AnthropicParser::default(), RECORDED).unwrap();
    assert_eq!(
        events,
        vec![
            ModelEvent::ThinkingDelta("Let me ".into()),
            ModelEvent::ThinkingDelta("check.".into()),
            ModelEvent::BlockComplete(ContentBlock::Thinking {
                thinking: "Let me check.".into(),
                signature: Some("EqQBCgIYAh".into()),
            }),
            ModelEvent::TextDelta("Reading.".into()),
            ModelEvent::BlockComplete(ContentBlock::Text {
                text: "Reading.".into()
            }),
            ModelEvent::ToolCallStart {
                id: "toolu_1".into(),
                name: "read_file".into()
            },
            ModelEvent::ToolCallDelta {
                id: "toolu_1".into(),
                fragment: "".into()
            },
            ModelEvent::ToolCallDelta {
                id: "toolu_1".into(),
                fragment: "{\"path\": \"a".into()
            },
            ModelEvent::ToolCallDelta {
                id: "toolu_1".into(),
                fragment: ".txt\"}".into()
            },
            ModelEvent::BlockComplete(ContentBlock::ToolUse {
                id: "toolu_1".into(),
                name: "read_file".into(),
                input: json!({"path": "a.txt"}),
            }),
            ModelEvent::ToolCallStart {
                id: "toolu_2".into(),
                name: "glob".into()
            },
            ModelEvent::BlockComplete(ContentBlock::ToolUse {
                id: "toolu_2".into(),
                name: "glob".into(),
                input: json!({}),
            }),
            ModelEvent::Completed {
                stop_reason: StopReason::ToolUse,
                usage: Usage {
                    input_tokens: 25,
                    output_tokens: 89,
                    cache_creation_input_tokens: 100,
                    cache_read_input_tokens: 50,
                    web_search_requests: 0,
                },
            },
        ]
    );
}

#[test]
fn redacted_thinking_is_kept_for_sending_back() {
    let stream = r#"data: {"type":"message_start","message":{"usage":{"input_tokens":1,"output_tokens":1}}}

data: {"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"opaque"}}

data: {"type":"content_block_stop","index":0}

data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}

data: {"type":"message_stop"}

"#;
    let events = parse_recorded(&mut AnthropicParser::default(), stream).unwrap();
    assert_eq!(
        events[0],
        ModelEvent::BlockComplete(ContentBlock::RedactedThinking {
            data: "opaque".into()
        })
    );
}

#[test]
fn error_event_mid_stream_becomes_an_error_with_the_provider_type() {
    let stream = r#"event: message_start
data: {"type":"message_start","message":{"usage":{"input_tokens":1,"output_tokens":1}}}

event: error
data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}

"#;
    let err = parse_recorded(&mut AnthropicParser::default(), stream).unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::Overloaded);
    assert_eq!(err.message, "Overloaded (overloaded_error)");
}

#[test]
fn invalid_tool_json_becomes_an_input_naming_the_problem() {
    let stream = r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"bash","input":{}}}

data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"command\":"}}

data: {"type":"content_block_stop","index":0}

data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}

data: {"type":"message_stop"}

"#;
    let events = parse_recorded(&mut AnthropicParser::default(), stream).unwrap();
    let input = events
        .iter()
        .find_map(|e| match e {
            ModelEvent::BlockComplete(ContentBlock::ToolUse { name, input, .. })
                if name == "bash" =>
            {
                Some(input.clone())
            }
            _ => None,
        })
        .expect("the call is still reported");
    let problem = input[rein_protocol::INVALID_ARGUMENTS].as_str().unwrap();
    assert!(problem.contains(r#"{"command":"#), "{problem}");
}

#[test]
fn a_stream_without_message_stop_is_a_protocol_error() {
    let stream = r#"data: {"type":"message_start","message":{"usage":{"input_tokens":1,"output_tokens":1}}}

data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}

"#;
    let err = parse_recorded(&mut AnthropicParser::default(), stream).unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::Protocol);
}

#[test]
fn stop_reasons_map_to_the_canonical_ones() {
    for (wire, canonical) in [
        ("end_turn", StopReason::EndTurn),
        ("max_tokens", StopReason::MaxTokens),
        ("stop_sequence", StopReason::StopSequence),
        ("refusal", StopReason::Refusal),
        ("pause_turn", StopReason::PauseTurn),
        (
            "model_context_window_exceeded",
            StopReason::Other("model_context_window_exceeded".into()),
        ),
    ] {
        assert_eq!(stream::stop_reason(wire), canonical);
    }
}

#[test]
fn request_body_translates_the_canonical_transcript() {
    let request = ModelRequest {
        model: "claude-sonnet-4-5".into(),
        system: "Be brief.".into(),
        messages: vec![
            Message {
                role: Role::User,
                content: vec![
                    ContentBlock::Text {
                        text: "Look at this".into(),
                    },
                    ContentBlock::Image {
                        source: ImageSource {
                            media_type: "image/png".into(),
                            data: "iVBO".into(),
                        },
                    },
                ],
            },
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::Thinking {
                        thinking: "hm".into(),
                        signature: Some("sig".into()),
                    },
                    ContentBlock::Thinking {
                        thinking: "from elsewhere".into(),
                        signature: None,
                    },
                    ContentBlock::RedactedThinking { data: "red".into() },
                    ContentBlock::Text {
                        text: String::new(),
                    },
                    ContentBlock::ToolUse {
                        id: "t1".into(),
                        name: "bash".into(),
                        input: json!({"command": "ls"}),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![ContentBlock::ToolResult {
                    tool_use_id: "t1".into(),
                    content: "boom".into(),
                    is_error: true,
                    media: Vec::new(),
                }],
            },
        ],
        tools: vec![ToolSpec {
            name: "bash".into(),
            description: "Run a command".into(),
            input_schema: json!({"type": "object"}).into(),
        }],
        max_tokens: 1024,
        cache: Default::default(),
        effort: None,
        web_search: None,
    };
    assert_eq!(
        serde_json::to_value(request_body(&request)).unwrap(),
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 1024,
            "stream": true,
            "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
            "tools": [{"name": "bash", "description": "Run a command", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}],
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "Look at this"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}, "cache_control": {"type": "ephemeral"}},
                ]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "hm", "signature": "sig"},
                    {"type": "redacted_thinking", "data": "red"},
                    {"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "ls"}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "boom", "is_error": true, "cache_control": {"type": "ephemeral"}},
                ]},
            ],
        })
    );
}

/// Every kind of block, in the places the breakpoints look at, with thinking and a one-hour
/// cache: the body as the Value-building implementation wrote it.
fn every_block_request() -> ModelRequest {
    let text = |text: &str| ContentBlock::Text { text: text.into() };
    ModelRequest {
        model: "claude-opus-4-1".into(),
        system: "Sys \"quoted\"\n".into(),
        messages: vec![
            Message {
                role: Role::User,
                content: vec![text("first"), text("")],
            },
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::Provider {
                        protocol: "anthropic".into(),
                        block: json!({"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"q": "x"}}),
                    },
                    ContentBlock::Provider {
                        protocol: "openai".into(),
                        block: json!({"type": "message", "phase": "commentary"}),
                    },
                    ContentBlock::ToolUse {
                        id: "t1".into(),
                        name: "read_file".into(),
                        input: json!({"path": "a.txt", "n": [1, 2.5, null]}),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![
                    ContentBlock::ToolResult {
                        tool_use_id: "t1".into(),
                        content: "ok ✓".into(),
                        is_error: false,
                        media: Vec::new(),
                    },
                    text("and then"),
                ],
            },
            Message {
                role: Role::Assistant,
                content: vec![
                    text("thinking next"),
                    ContentBlock::Thinking {
                        thinking: "t".into(),
                        signature: Some("s".into()),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![ContentBlock::Thinking {
                    thinking: "unsigned".into(),
                    signature: None,
                }],
            },
            Message {
                role: Role::User,
                content: vec![text("last")],
            },
        ],
        tools: crate::test_request::tools(),
        max_tokens: 32_000,
        cache: crate::PromptCache {
            ttl: crate::CacheTtl::OneHour,
            key: Some("k".into()),
        },
        effort: Some(crate::Effort::High),
        web_search: None,
    }
}

#[test]
fn the_body_is_written_from_the_request_as_it_always_was() {
    let body = serde_json::to_value(request_body(&every_block_request())).unwrap();
    let expected: Value = serde_json::from_str(WRITTEN_BEFORE).unwrap();
    assert_eq!(body, expected);
}

/// What the Value-building body of `every_block_request` was, serialised.
const WRITTEN_BEFORE: &str = r#"{"max_tokens":32000,"messages":[{"content":[{"text":"first","type":"text"}],"role":"user"},{"content":[{"id":"s1","input":{"q":"x"},"name":"web_search","type":"server_tool_use"},{"id":"t1","input":{"n":[1,2.5,null],"path":"a.txt"},"name":"read_file","type":"tool_use"}],"role":"assistant"},{"content":[{"content":"ok ✓","tool_use_id":"t1","type":"tool_result"},{"cache_control":{"ttl":"1h","type":"ephemeral"},"text":"and then","type":"text"}],"role":"user"},{"content":[{"text":"thinking next","type":"text"},{"signature":"s","thinking":"t","type":"thinking"}],"role":"assistant"},{"content":[{"cache_control":{"ttl":"1h","type":"ephemeral"},"text":"last","type":"text"}],"role":"user"}],"model":"claude-opus-4-1","stream":true,"system":[{"cache_control":{"ttl":"1h","type":"ephemeral"},"text":"Sys \"quoted\"\n","type":"text"}],"thinking":{"budget_tokens":16000,"type":"enabled"},"tools":[{"description":"Reads","input_schema":{"properties":{"path":{"type":"string"}},"type":"object"},"name":"read_file"},{"cache_control":{"ttl":"1h","type":"ephemeral"},"description":"Runs","input_schema":{"type":"object"},"name":"bash"}]}"#;

#[test]
fn the_memory_tool_is_anthropics_own_for_claude_models_and_a_function_for_others() {
    let tool = |name: &str| ToolSpec {
        name: name.into(),
        description: "d".into(),
        input_schema: json!({"type": "object"}).into(),
    };
    let request = |model: &str| ModelRequest {
        model: model.into(),
        system: String::new(),
        messages: Vec::new(),
        tools: vec![tool("bash"), tool("memory")],
        max_tokens: 1024,
        cache: Default::default(),
        effort: None,
        web_search: None,
    };
    let body = serde_json::to_value(request_body(&request("claude-sonnet-4-5"))).unwrap();
    assert_eq!(
        body["tools"],
        json!([
            {"name": "bash", "description": "d", "input_schema": {"type": "object"}},
            {"type": "memory_20250818", "name": "memory", "cache_control": {"type": "ephemeral"}}
        ])
    );
    // A model behind an Anthropic-compatible server that is not Claude gets a function.
    let body = serde_json::to_value(request_body(&request("kimi-k2"))).unwrap();
    assert_eq!(body["tools"][1]["description"], "d");
    assert!(body["tools"][1].get("type").is_none());
}
