use super::*;
use crate::http::parse_recorded;
use crate::{LlmErrorKind, ModelEvent};
use pretty_assertions::assert_eq;
use rein_protocol::{ContentBlock, ImageSource, Message, Role, StopReason, ToolSpec, Usage};
use serde_json::{Value, json};

/// DeepSeek-style: reasoning_content, then text, then two tool calls by index, the usage chunk
/// with empty choices, `[DONE]`.
const RECORDED: &str = r#"data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":"Think"},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"reasoning_content":"ing."},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Sure"},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read_file","arguments":""}}]},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":"}}]},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"glob","arguments":"{}"}}]},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"a\"}"}}]},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: {"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120,"prompt_tokens_details":{"cached_tokens":60}}}

data: [DONE]

"#;

#[test]
fn recorded_stream_assembles_reasoning_text_and_tool_calls_by_index() {
    let events = parse_recorded(&mut ChatParser::default(), RECORDED).unwrap();
    assert_eq!(
        events,
        vec![
            ModelEvent::ThinkingDelta("Think".into()),
            ModelEvent::ThinkingDelta("ing.".into()),
            ModelEvent::BlockComplete(ContentBlock::Thinking {
                thinking: "Thinking.".into(),
                signature: None,
            }),
            ModelEvent::TextDelta("Sure".into()),
            ModelEvent::BlockComplete(ContentBlock::Text {
                text: "Sure".into()
            }),
            ModelEvent::ToolCallStart {
                id: "call_a".into(),
                name: "read_file".into()
            },
            ModelEvent::ToolCallDelta {
                id: "call_a".into(),
                fragment: "{\"path\":".into()
            },
            ModelEvent::ToolCallStart {
                id: "call_b".into(),
                name: "glob".into()
            },
            ModelEvent::ToolCallDelta {
                id: "call_b".into(),
                fragment: "{}".into()
            },
            ModelEvent::ToolCallDelta {
                id: "call_a".into(),
                fragment: "\"a\"}".into()
            },
            ModelEvent::BlockComplete(ContentBlock::ToolUse {
                id: "call_a".into(),
                name: "read_file".into(),
                input: json!({"path": "a"}),
            }),
            ModelEvent::BlockComplete(ContentBlock::ToolUse {
                id: "call_b".into(),
                name: "glob".into(),
                input: json!({}),
            }),
            ModelEvent::Completed {
                stop_reason: StopReason::ToolUse,
                usage: Usage {
                    input_tokens: 40,
                    output_tokens: 20,
                    cache_creation_input_tokens: 0,
                    cache_read_input_tokens: 60,
                    web_search_requests: 0,
                },
            },
        ]
    );
}

#[test]
fn tolerates_missing_index_and_id_reasoning_field_and_usage_on_the_last_choice_chunk() {
    // Ollama/Kimi-like: no `index`, no `id`, `reasoning` instead of `reasoning_content`,
    // `data:` without a space, usage on the finishing chunk, stream closed without [DONE].
    let stream = r#"data:{"choices":[{"delta":{"reasoning":"hm"}}]}

data:{"choices":[{"delta":{"tool_calls":[{"function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]},"extra":1}]}

data:{"choices":[{"delta":{},"finish_reason":"stop","usage":{"prompt_tokens":7,"completion_tokens":3}}]}

"#;
    let events = parse_recorded(&mut ChatParser::default(), stream).unwrap();
    let ModelEvent::ToolCallStart { id, name } = &events[2] else {
        panic!("expected a tool call start: {events:?}");
    };
    assert!(id.starts_with("call_"), "{id}");
    assert_eq!(name, "bash");
    assert_eq!(
        events.last().unwrap(),
        &ModelEvent::Completed {
            stop_reason: StopReason::ToolUse,
            usage: Usage {
                input_tokens: 7,
                output_tokens: 3,
                ..Usage::default()
            },
        }
    );
    assert_eq!(
        events[events.len() - 2],
        ModelEvent::BlockComplete(ContentBlock::ToolUse {
            id: id.clone(),
            name: "bash".into(),
            input: json!({"command": "ls"}),
        })
    );
}

#[test]
fn finish_reasons_map_to_stop_reasons() {
    for (finish, expected) in [
        ("stop", StopReason::EndTurn),
        ("length", StopReason::MaxTokens),
        ("content_filter", StopReason::Refusal),
        ("tool_calls", StopReason::EndTurn),
        ("weird", StopReason::Other("weird".into())),
    ] {
        let stream = format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"x\"}},\"finish_reason\":\"{finish}\"}}]}}\n\ndata: [DONE]\n\n"
        );
        let events = parse_recorded(&mut ChatParser::default(), &stream).unwrap();
        let Some(ModelEvent::Completed { stop_reason, .. }) = events.last() else {
            panic!("no completion: {events:?}");
        };
        assert_eq!(stop_reason, &expected, "{finish}");
    }
}

#[test]
fn a_stream_without_finish_reason_or_done_is_a_protocol_error() {
    let stream = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n";
    let err = parse_recorded(&mut ChatParser::default(), stream).unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::Protocol);
}

#[test]
fn an_error_object_in_the_stream_is_an_error() {
    let stream =
        "data: {\"error\":{\"message\":\"upstream overloaded\",\"code\":\"overloaded\"}}\n\n";
    let err = parse_recorded(&mut ChatParser::default(), stream).unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::Overloaded);
}

#[test]
fn stream_options_refusal_is_adapted_to_once() {
    let protocol = ChatProtocol::default();
    let request = ModelRequest {
        model: "m".into(),
        system: String::new(),
        messages: vec![Message::user_text("hi")],
        tools: vec![],
        max_tokens: 10,
        cache: Default::default(),
        effort: None,
        web_search: None,
    };
    assert!(sent(&protocol, &request).get("stream_options").is_some());
    let refusal = LlmError {
        status: Some(400),
        ..LlmError::new(
            LlmErrorKind::BadRequest,
            "openai-chat",
            "Unrecognized request argument supplied: stream_options",
        )
    };
    let other = LlmError {
        status: Some(400),
        ..LlmError::new(LlmErrorKind::BadRequest, "openai-chat", "bad model")
    };
    assert!(!protocol.adapt(&other));
    assert!(protocol.adapt(&refusal));
    assert!(!protocol.adapt(&refusal), "only once");
    assert!(sent(&protocol, &request).get("stream_options").is_none());
}

#[test]
fn request_body_maps_the_transcript_to_chat_messages() {
    let request = ModelRequest {
        model: "deepseek-chat".into(),
        system: "Be brief.".into(),
        messages: vec![
            Message {
                role: Role::User,
                content: vec![
                    ContentBlock::Text { text: "See".into() },
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
                        thinking: "hidden".into(),
                        signature: None,
                    },
                    ContentBlock::ToolUse {
                        id: "call_1".into(),
                        name: "bash".into(),
                        input: json!({"command": "ls"}),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![
                    ContentBlock::ToolResult {
                        tool_use_id: "call_1".into(),
                        content: "a.txt".into(),
                        is_error: false,
                        media: Vec::new(),
                    },
                    ContentBlock::Text {
                        text: "Now?".into(),
                    },
                ],
            },
            Message::assistant_text("Done."),
        ],
        tools: vec![ToolSpec {
            name: "bash".into(),
            description: "Run".into(),
            input_schema: json!({"type": "object"}).into(),
        }],
        max_tokens: 512,
        cache: Default::default(),
        effort: None,
        web_search: None,
    };
    assert_eq!(
        serde_json::to_value(request_body(&request, ChatFields::ALL)).unwrap(),
        json!({
            "model": "deepseek-chat",
            "stream": true,
            "stream_options": {"include_usage": true},
            "max_tokens": 512,
            "tools": [{"type": "function", "function": {"name": "bash", "description": "Run", "parameters": {"type": "object"}}}],
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": [
                    {"type": "text", "text": "See"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}},
                ]},
                // The reasoning this server streamed goes back with the calls (DeepSeek, GLM).
                {"role": "assistant", "content": null, "reasoning_content": "hidden", "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}},
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"},
                {"role": "user", "content": "Now?"},
                {"role": "assistant", "content": "Done."},
            ],
        })
    );
}

/// The body `protocol` sends for `request`, parsed back.
fn sent(protocol: &ChatProtocol, request: &ModelRequest) -> Value {
    let bytes = protocol.body(request).unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

#[test]
fn the_body_is_written_from_the_request_as_it_always_was() {
    let body = serde_json::to_value(request_body(
        &crate::test_request::every_block(),
        ChatFields::ALL,
    ))
    .unwrap();
    let expected: Value = serde_json::from_str(WRITTEN_BEFORE).unwrap();
    assert_eq!(body, expected);
}

/// What the Value-building body of `every_block` was, serialised.
const WRITTEN_BEFORE: &str = r#"{"max_tokens":32000,"messages":[{"content":"Sys \"quoted\"\n","role":"system"},{"content":[{"text":"first\n\nsecond","type":"text"},{"image_url":{"url":"data:image/png;base64,iVBO"},"type":"image_url"}],"role":"user"},{"content":"calling","reasoning_content":"mine again","reasoning_details":[{"text":"r","type":"reasoning.text"}],"role":"assistant","tool_calls":[{"function":{"arguments":"{\"n\":[1,2.5,null],\"path\":\"a \\\"b\\\".txt\"}","name":"read_file"},"id":"t1","type":"function"},{"function":{"arguments":"{}","name":"bash"},"id":"t2","type":"function"}]},{"content":"ok ✓\n","role":"tool","tool_call_id":"t1"},{"content":"boom","role":"tool","tool_call_id":"t2"},{"content":"and then","role":"user"},{"content":"done\n\nreally","role":"assistant"},{"content":[{"image_url":{"url":"data:image/png;base64,iVBO"},"type":"image_url"}],"role":"user"},{"content":"last","role":"user"}],"model":"model-x","prompt_cache_key":"session-1","reasoning_effort":"high","stream":true,"stream_options":{"include_usage":true},"tools":[{"function":{"description":"Reads","name":"read_file","parameters":{"properties":{"path":{"type":"string"}},"type":"object"}},"type":"function"},{"function":{"description":"Runs","name":"bash","parameters":{"type":"object"}},"type":"function"}]}"#;

#[test]
fn a_results_pdf_text_joins_the_tool_message_and_its_pictures_follow_as_a_user_message() {
    let body = serde_json::to_value(request_body(
        &crate::test_request::result_with_media(),
        ChatFields::ALL,
    ))
    .unwrap();
    assert_eq!(
        body["messages"][1],
        json!({"role": "tool", "tool_call_id": "t1", "content": "a.png: PNG image\n\npage 1: hello"})
    );
    assert_eq!(
        body["messages"][2],
        json!({"role": "user", "content": [
            {"type": "text", "text": "The images the tool results above returned:\n\nwhat is it?"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}},
        ]})
    );
}
