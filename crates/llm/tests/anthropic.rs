//! Anthropic Messages against the mock.

use pretty_assertions::assert_eq;
use rein_llm::{ModelEvent, ProviderKind};
use rein_protocol::{ContentBlock, Message, Role, StopReason, Usage};
use serde_json::json;

use crate::support::{RICH_TURN, client, mid_conversation, mock, run};

#[tokio::test]
async fn sends_headers_system_tools_tool_results_and_signed_thinking() {
    let server = mock(RICH_TURN).await;
    let client = client(&server, ProviderKind::Anthropic);
    run(client.as_ref(), mid_conversation("claude-sonnet-4-5"))
        .await
        .result
        .unwrap();

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let sent = &requests[0];
    assert_eq!(
        (sent.method.as_str(), sent.path.as_str()),
        ("POST", "/v1/messages")
    );
    assert_eq!(sent.header("x-api-key"), Some("test-key"));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(sent.header("content-type"), Some("application/json"));
    assert_eq!(sent.header("authorization"), None);
    assert_eq!(
        sent.body,
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 1000,
            "stream": true,
            "system": [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}],
            "tools": [{
                "name": "read_file",
                "description": "Read a file",
                "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
                "cache_control": {"type": "ephemeral"},
            }],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "What is in a.txt?", "cache_control": {"type": "ephemeral"}}]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "I should read it.", "signature": "sig-earlier"},
                    {"type": "text", "text": "Reading."},
                    {"type": "tool_use", "id": "call_prev", "name": "read_file", "input": {"path": "a.txt"}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "call_prev", "content": "1\thello", "cache_control": {"type": "ephemeral"}},
                ]},
            ],
        })
    );
}

#[tokio::test]
async fn streams_thinking_text_and_tool_calls_byte_by_byte_into_the_message() {
    let server = mock(RICH_TURN).await;
    let client = client(&server, ProviderKind::Anthropic);
    let outcome = run(client.as_ref(), mid_conversation("claude-sonnet-4-5")).await;

    assert_eq!(outcome.thinking(), "Let me look again.");
    assert_eq!(outcome.text(), "Checking b.txt too.");
    assert!(outcome.events.contains(&ModelEvent::ToolCallStart {
        id: "call_new".into(),
        name: "read_file".into()
    }));
    let response = outcome.result.unwrap();
    assert_eq!(
        response.message,
        Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Thinking {
                    thinking: "Let me look again.".into(),
                    signature: Some("sig-new".into()),
                },
                ContentBlock::Text {
                    text: "Checking b.txt too.".into()
                },
                ContentBlock::ToolUse {
                    id: "call_new".into(),
                    name: "read_file".into(),
                    input: json!({"path": "b€.txt"}),
                },
            ],
        }
    );
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert_eq!(
        response.usage,
        Usage {
            input_tokens: 120,
            output_tokens: 30,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 40,
            web_search_requests: 0,
        }
    );
}

#[tokio::test]
async fn max_tokens_stop_reason_is_reported() {
    let server = mock(r#"{"turns": [{"text": "Cut", "stop_reason": "max_tokens"}]}"#).await;
    let client = client(&server, ProviderKind::Anthropic);
    let response = run(client.as_ref(), crate::support::hello())
        .await
        .result
        .unwrap();
    assert_eq!(response.stop_reason, StopReason::MaxTokens);
    assert_eq!(response.message.text(), "Cut");
}
