//! OpenAI Chat Completions against the mock.

use pretty_assertions::assert_eq;
use rein_llm::{ModelEvent, ProviderKind, connect};
use rein_protocol::{ContentBlock, Message, Role, StopReason, Usage};
use serde_json::json;

use crate::support::{RICH_TURN, base_url, client, config, hello, mid_conversation, mock, run};

#[tokio::test]
async fn sends_system_tools_tool_messages_and_asks_for_usage() {
    let server = mock(RICH_TURN).await;
    let client = client(&server, ProviderKind::OpenaiChat);
    run(client.as_ref(), mid_conversation("deepseek-chat"))
        .await
        .result
        .unwrap();

    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.header("authorization"), Some("Bearer test-key"));
    assert_eq!(
        sent.body,
        json!({
            "model": "deepseek-chat",
            "stream": true,
            "stream_options": {"include_usage": true},
            "max_tokens": 1000,
            "tools": [{"type": "function", "function": {
                "name": "read_file",
                "description": "Read a file",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
            }}],
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "What is in a.txt?"},
                {"role": "assistant", "content": "Reading.", "tool_calls": [
                    {"id": "call_prev", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"a.txt\"}"}},
                ]},
                {"role": "tool", "tool_call_id": "call_prev", "content": "1\thello"},
            ],
        })
    );
}

#[tokio::test]
async fn keyless_servers_get_no_authorization_header() {
    let server = mock(r#"{"turns": [{"text": "hi"}]}"#).await;
    let mut config = config(
        ProviderKind::OpenaiChat,
        base_url(&server, ProviderKind::OpenaiChat),
    );
    config.api_key = None;
    let client = connect(config);
    run(client.as_ref(), hello()).await.result.unwrap();
    assert_eq!(server.requests()[0].header("authorization"), None);
}

#[tokio::test]
async fn streams_reasoning_content_text_and_tool_calls_byte_by_byte_into_the_message() {
    let server = mock(RICH_TURN).await;
    let client = client(&server, ProviderKind::OpenaiChat);
    let outcome = run(client.as_ref(), mid_conversation("deepseek-reasoner")).await;

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
                    signature: None,
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
async fn a_server_refusing_stream_options_gets_one_resend_without_them_and_the_client_remembers() {
    let server =
        mock(r#"{"reject_stream_options": true, "turns": [{"text": "one"}, {"text": "two"}]}"#)
            .await;
    let client = client(&server, ProviderKind::OpenaiChat);

    let first = run(client.as_ref(), hello()).await;
    assert!(first.retries().is_empty(), "the resend is not a retry");
    assert_eq!(first.result.unwrap().message.text(), "one");
    let second = run(client.as_ref(), hello()).await;
    assert_eq!(second.result.unwrap().message.text(), "two");

    let sent: Vec<bool> = server
        .requests()
        .iter()
        .map(|r| r.body.get("stream_options").is_some())
        .collect();
    assert_eq!(sent, vec![true, false, false]);
}

#[tokio::test]
async fn a_stream_cut_before_finish_is_an_error() {
    let server = mock(
        r#"{"turns": [{"text": "Hello there friend", "fault": {"cut_after": {"events": 3}}}]}"#,
    )
    .await;
    let client = client(&server, ProviderKind::OpenaiChat);
    let outcome = run(client.as_ref(), hello()).await;
    assert_eq!(outcome.text(), "Hello there ");
    outcome.error();
    assert_eq!(server.requests().len(), 1);
}
