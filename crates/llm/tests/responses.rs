//! OpenAI Responses against the mock.

use pretty_assertions::assert_eq;
use rein_llm::{LlmErrorKind, ProviderKind};
use rein_protocol::{ContentBlock, Message, Role, StopReason, Usage};
use serde_json::json;

use crate::support::{RICH_TURN, client, hello, mid_conversation, mock, run};

#[tokio::test]
async fn sends_bearer_auth_instructions_tools_and_items_with_encrypted_reasoning() {
    let server = mock(RICH_TURN).await;
    let client = client(&server, ProviderKind::Openai);
    run(client.as_ref(), mid_conversation("gpt-5"))
        .await
        .result
        .unwrap();

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let sent = &requests[0];
    assert_eq!(sent.path, "/v1/responses");
    assert_eq!(sent.header("authorization"), Some("Bearer test-key"));
    assert_eq!(
        sent.body,
        json!({
            "model": "gpt-5",
            "instructions": "You are terse.",
            "stream": true,
            "store": false,
            "include": ["reasoning.encrypted_content"],
            "max_output_tokens": 1000,
            "tools": [{
                "type": "function",
                "name": "read_file",
                "description": "Read a file",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
                "strict": false,
            }],
            "input": [
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "What is in a.txt?"}]},
                {"type": "reasoning", "summary": [{"type": "summary_text", "text": "I should read it."}], "encrypted_content": "sig-earlier"},
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Reading."}]},
                {"type": "function_call", "call_id": "call_prev", "name": "read_file", "arguments": "{\"path\":\"a.txt\"}"},
                {"type": "function_call_output", "call_id": "call_prev", "output": "1\thello"},
            ],
        })
    );
}

#[tokio::test]
async fn streams_reasoning_text_and_function_calls_byte_by_byte_into_the_message() {
    let server = mock(RICH_TURN).await;
    let client = client(&server, ProviderKind::Openai);
    let outcome = run(client.as_ref(), mid_conversation("gpt-5")).await;

    assert_eq!(outcome.thinking(), "Let me look again.");
    assert_eq!(outcome.text(), "Checking b.txt too.");
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
async fn token_limit_ends_with_max_tokens() {
    let server = mock(r#"{"turns": [{"text": "Cut", "stop_reason": "max_output_tokens"}]}"#).await;
    let client = client(&server, ProviderKind::Openai);
    let response = run(client.as_ref(), hello()).await.result.unwrap();
    assert_eq!(response.stop_reason, StopReason::MaxTokens);
}

#[tokio::test]
async fn a_stream_cut_before_response_completed_is_an_error_not_a_success() {
    // created, in_progress, then the message item: cut somewhere after the text started.
    let server = mock(
        r#"{"turns": [{"text": "Hello there friend", "fault": {"cut_after": {"events": 6}}}]}"#,
    )
    .await;
    let client = client(&server, ProviderKind::Openai);
    let outcome = run(client.as_ref(), hello()).await;
    assert!(!outcome.text().is_empty(), "some text streamed first");
    let err = outcome.error();
    assert!(
        matches!(err.kind, LlmErrorKind::Protocol | LlmErrorKind::Connection),
        "{err:?}"
    );
    assert_eq!(server.requests().len(), 1, "no retry after output");
}
