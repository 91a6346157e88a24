use super::*;
use crate::http::parse_recorded;
use crate::{LlmErrorKind, ModelEvent};
use pretty_assertions::assert_eq;
use rein_protocol::{ContentBlock, Message, Role, StopReason, ToolSpec, Usage};
use serde_json::{Value, json};

const RECORDED: &str = r#"event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress","output":[]}}

event: response.output_item.added
data: {"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}

event: response.reasoning_summary_part.added
data: {"type":"response.reasoning_summary_part.added","item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":"Plan"}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":1,"delta":"Act"}

event: response.output_item.done
data: {"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"Plan"},{"type":"summary_text","text":"Act"}],"encrypted_content":"gAAAA-enc"}}

event: response.output_item.added
data: {"type":"response.output_item.added","output_index":1,"item":{"id":"msg_1","type":"message","role":"assistant","content":[]}}

event: response.output_text.delta
data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hel"}

event: response.output_text.delta
data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":"lo"}

event: response.output_item.done
data: {"type":"response.output_item.done","output_index":1,"item":{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"output_text","text":"Hello","annotations":[]}]}}

event: response.output_item.added
data: {"type":"response.output_item.added","output_index":2,"item":{"id":"fc_1","type":"function_call","call_id":"call_A","name":"read_file","arguments":""}}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":2,"delta":"{\"path\":"}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":2,"delta":"\"a.txt\"}"}

event: response.function_call_arguments.done
data: {"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":2,"arguments":"{\"path\":\"a.txt\"}"}

event: response.output_item.done
data: {"type":"response.output_item.done","output_index":2,"item":{"id":"fc_1","type":"function_call","call_id":"call_A","name":"read_file","arguments":"{\"path\":\"a.txt\"}","status":"completed"}}

event: response.completed
data: {"type":"response.completed","response":{"id":"resp_1","status":"completed","incomplete_details":null,"usage":{"input_tokens":120,"input_tokens_details":{"cached_tokens":100},"output_tokens":30,"output_tokens_details":{"reasoning_tokens":12},"total_tokens":150}}}

"#;

#[test]
fn recorded_stream_yields_reasoning_text_and_function_calls() {
    let events = parse_recorded(&mut ResponsesParser::default(), RECORDED).unwrap();
    assert_eq!(
        events,
        vec![
            ModelEvent::ThinkingDelta("Plan".into()),
            ModelEvent::ThinkingDelta("\n\n".into()),
            ModelEvent::ThinkingDelta("Act".into()),
            ModelEvent::BlockComplete(ContentBlock::Thinking {
                thinking: "Plan\n\nAct".into(),
                signature: Some("gAAAA-enc".into()),
            }),
            ModelEvent::TextDelta("Hel".into()),
            ModelEvent::TextDelta("lo".into()),
            ModelEvent::BlockComplete(ContentBlock::Text {
                text: "Hello".into()
            }),
            ModelEvent::ToolCallStart {
                id: "call_A".into(),
                name: "read_file".into()
            },
            ModelEvent::ToolCallDelta {
                id: "call_A".into(),
                fragment: "{\"path\":".into()
            },
            ModelEvent::ToolCallDelta {
                id: "call_A".into(),
                fragment: "\"a.txt\"}".into()
            },
            ModelEvent::BlockComplete(ContentBlock::ToolUse {
                id: "call_A".into(),
                name: "read_file".into(),
                input: json!({"path": "a.txt"}),
            }),
            ModelEvent::Completed {
                stop_reason: StopReason::ToolUse,
                usage: Usage {
                    input_tokens: 20,
                    output_tokens: 30,
                    cache_creation_input_tokens: 0,
                    cache_read_input_tokens: 100,
                    web_search_requests: 0,
                },
            },
        ]
    );
}

#[test]
fn a_stream_cut_before_response_completed_is_an_error() {
    let cut = RECORDED.split("event: response.completed").next().unwrap();
    let err = parse_recorded(&mut ResponsesParser::default(), cut).unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::Protocol);
}

#[test]
fn incomplete_for_max_output_tokens_stops_with_max_tokens() {
    let stream = r#"data: {"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":5,"output_tokens":7}}}

"#;
    let events = parse_recorded(&mut ResponsesParser::default(), stream).unwrap();
    assert_eq!(
        events,
        vec![ModelEvent::Completed {
            stop_reason: StopReason::MaxTokens,
            usage: Usage {
                input_tokens: 5,
                output_tokens: 7,
                ..Usage::default()
            },
        }]
    );
}

#[test]
fn failed_incomplete_and_error_events_are_errors() {
    let cases = [
        (
            r#"data: {"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"boom"}}}"#,
            LlmErrorKind::Server,
        ),
        (
            r#"data: {"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"content_filter"}}}"#,
            LlmErrorKind::BadRequest,
        ),
        (
            r#"data: {"type":"error","code":"context_length_exceeded","message":"Your input exceeds the context window of this model.","param":"input"}"#,
            LlmErrorKind::ContextLength,
        ),
        (
            r#"data: {"type":"error","error":{"type":"rate_limit_exceeded","message":"slow"}}"#,
            LlmErrorKind::RateLimited,
        ),
    ];
    for (stream, kind) in cases {
        let err =
            parse_recorded(&mut ResponsesParser::default(), &format!("{stream}\n\n")).unwrap_err();
        assert_eq!(err.kind, kind, "{stream}");
    }
}

#[test]
fn request_body_maps_the_transcript_to_items() {
    let request = ModelRequest {
        model: "gpt-5".into(),
        system: "Be brief.".into(),
        messages: vec![
            Message::user_text("List files"),
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::Thinking {
                        thinking: "Use glob".into(),
                        signature: Some("enc".into()),
                    },
                    ContentBlock::Thinking {
                        thinking: "no signature".into(),
                        signature: None,
                    },
                    ContentBlock::Text {
                        text: "Looking.".into(),
                    },
                    ContentBlock::ToolUse {
                        id: "call_1".into(),
                        name: "glob".into(),
                        input: json!({"pattern": "*"}),
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
                        text: "and?".into(),
                    },
                ],
            },
        ],
        tools: vec![ToolSpec {
            name: "glob".into(),
            description: "Find files".into(),
            input_schema: json!({"type": "object"}).into(),
        }],
        max_tokens: 2048,
        cache: Default::default(),
        effort: None,
        web_search: None,
    };
    assert_eq!(
        serde_json::to_value(request_body(&request)).unwrap(),
        json!({
            "model": "gpt-5",
            "instructions": "Be brief.",
            "stream": true,
            "store": false,
            "include": ["reasoning.encrypted_content"],
            "max_output_tokens": 2048,
            "tools": [{"type": "function", "name": "glob", "description": "Find files", "parameters": {"type": "object"}, "strict": false}],
            "input": [
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "List files"}]},
                {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Use glob"}], "encrypted_content": "enc"},
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Looking."}]},
                {"type": "function_call", "call_id": "call_1", "name": "glob", "arguments": "{\"pattern\":\"*\"}"},
                {"type": "function_call_output", "call_id": "call_1", "output": "a.txt"},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "and?"}]},
            ],
        })
    );
}

#[test]
fn the_body_is_written_from_the_request_as_it_always_was() {
    let body = serde_json::to_value(request_body(&crate::test_request::every_block())).unwrap();
    let expected: Value = serde_json::from_str(WRITTEN_BEFORE).unwrap();
    assert_eq!(body, expected);
}

/// What the Value-building body of `every_block` was, serialised.
const WRITTEN_BEFORE: &str = r#"{"include":["reasoning.encrypted_content"],"input":[{"content":[{"text":"first","type":"input_text"},{"text":"second","type":"input_text"},{"image_url":"data:image/png;base64,iVBO","type":"input_image"}],"role":"user","type":"message"},{"encrypted_content":"enc","summary":[{"text":"signed","type":"summary_text"}],"type":"reasoning"},{"encrypted_content":"enc2","summary":[],"type":"reasoning"},{"content":[{"text":"calling","type":"output_text"}],"phase":"commentary","role":"assistant","type":"message"},{"arguments":"{\"n\":[1,2.5,null],\"path\":\"a \\\"b\\\".txt\"}","call_id":"t1","name":"read_file","type":"function_call"},{"arguments":"{}","call_id":"t2","name":"bash","type":"function_call"},{"call_id":"t1","output":"ok ✓\n","type":"function_call_output"},{"call_id":"t2","output":"boom","type":"function_call_output"},{"content":[{"text":"and then","type":"input_text"}],"role":"user","type":"message"},{"content":[{"text":"done","type":"output_text"},{"text":"really","type":"output_text"}],"role":"assistant","type":"message"},{"content":[{"image_url":"data:image/png;base64,iVBO","type":"input_image"}],"role":"user","type":"message"},{"content":[{"text":"last","type":"input_text"}],"role":"user","type":"message"}],"instructions":"Sys \"quoted\"\n","max_output_tokens":32000,"model":"model-x","prompt_cache_key":"session-1","reasoning":{"effort":"high","summary":"auto"},"store":false,"stream":true,"tools":[{"description":"Reads","name":"read_file","parameters":{"properties":{"path":{"type":"string"}},"type":"object"},"strict":false,"type":"function"},{"description":"Runs","name":"bash","parameters":{"type":"object"},"strict":false,"type":"function"}]}"#;

#[test]
fn a_results_pictures_are_output_parts_and_its_pdfs_their_text() {
    let body =
        serde_json::to_value(request_body(&crate::test_request::result_with_media())).unwrap();
    assert_eq!(
        body["input"][1],
        json!({"type": "function_call_output", "call_id": "t1", "output": [
            {"type": "input_text", "text": "a.png: PNG image"},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBO"},
            {"type": "input_text", "text": "page 1: hello"},
        ]})
    );
}

#[test]
fn the_responses_web_search_tool_is_declared_and_its_calls_counted() {
    let mut request = crate::test_request::result_with_media();
    request.web_search = Some(crate::HostedSearch {
        max_uses: 5,
        allowed_domains: vec!["docs.rs".into()],
        blocked_domains: Vec::new(),
    });
    let body = serde_json::to_value(request_body(&request)).unwrap();
    assert_eq!(
        body["tools"],
        json!([{"type": "web_search", "filters": {"allowed_domains": ["docs.rs"]}}])
    );
    let Some(stream) =
        rein_testkit::conformance_file("real-streams/corpus/openai/pai-web-search-cached.sse")
            .unwrap()
    else {
        return;
    };
    let events = parse_recorded(&mut ResponsesParser::default(), &stream).unwrap();
    let Some(ModelEvent::Completed { usage, .. }) = events.last() else {
        panic!("no Completed")
    };
    assert_eq!(usage.web_search_requests, 1);
    let searched = events.iter().any(|e| {
        matches!(e, ModelEvent::BlockComplete(ContentBlock::Provider { block, .. })
            if block["type"] == "web_search_call" && block["action"]["query"] == "weather: San Francisco, CA")
    });
    assert!(searched, "{events:?}");
}
