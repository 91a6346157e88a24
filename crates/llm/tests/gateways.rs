//! Servers and gateways that bend the protocol (LiteLLM, OpenRouter, compatible servers): a
//! whole JSON answer to a streamed request, errors framed as SSE, a 5xx for a missing key,
//! and retry hints under other names.

use pretty_assertions::assert_eq;
use rein_llm::{LlmErrorKind, ProviderKind, connect};
use rein_protocol::{ContentBlock, StopReason};
use serde_json::json;

use crate::support::{KEY_ENV, base_url, client, config, hello, mock, run};

const ALL: [ProviderKind; 3] = [
    ProviderKind::Anthropic,
    ProviderKind::Openai,
    ProviderKind::OpenaiChat,
];

#[tokio::test]
async fn a_whole_json_reply_to_a_streamed_request_is_read_as_the_stream_would_be() {
    for kind in ALL {
        let server = mock(
            r#"{"turns": [{"whole": true, "text": "Reading it.",
                "tool_calls": [{"id": "call_1", "name": "read_file", "arguments": {"path": "a.txt", "n": [1, 2]}}],
                "usage": {"input_tokens": 120, "output_tokens": 30}}]}"#,
        )
        .await;
        let outcome = run(client(&server, kind).as_ref(), hello()).await;
        assert_eq!(outcome.text(), "Reading it.", "{kind:?}");
        let response = outcome.result.unwrap();
        assert_eq!(response.message.text(), "Reading it.", "{kind:?}");
        assert_eq!(response.stop_reason, StopReason::ToolUse, "{kind:?}");
        assert_eq!(response.usage.output_tokens, 30, "{kind:?}");
        assert_eq!(response.usage.total_input(), 120, "{kind:?}");
        let calls: Vec<_> = response
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
        assert_eq!(
            calls,
            [(
                "call_1".to_string(),
                "read_file".to_string(),
                json!({"path": "a.txt", "n": [1, 2]})
            )],
            "{kind:?}"
        );
    }
}

#[tokio::test]
async fn a_whole_reply_with_thinking_keeps_it_for_anthropic() {
    let server = mock(
        r#"{"turns": [{"whole": true, "thinking": "Let me see.", "signature": "sig-1", "text": "Done."}]}"#,
    )
    .await;
    let outcome = run(client(&server, ProviderKind::Anthropic).as_ref(), hello()).await;
    assert_eq!(outcome.thinking(), "Let me see.");
    let message = outcome.result.unwrap().message;
    assert!(
        message.content.iter().any(|b| matches!(b,
            ContentBlock::Thinking { signature, .. } if signature.as_deref() == Some("sig-1"))),
        "{message:?}"
    );
}

#[tokio::test]
async fn an_error_framed_as_sse_shows_the_providers_message() {
    for kind in ALL {
        let server = mock(
            r#"{"turns": [{"fault": {"http": {"status": 400,
                "raw_body": "data: {\"error\": {\"message\": \"model gpt-9 is not on this proxy\", \"type\": \"invalid_request_error\"}}\n\n"}}}]}"#,
        )
        .await;
        let err = run(client(&server, kind).as_ref(), hello()).await.error();
        assert_eq!(err.message, "model gpt-9 is not on this proxy", "{kind:?}");
        assert!(!err.message.contains("data:"), "{kind:?}");
    }
}

#[tokio::test]
async fn a_server_error_after_a_keyless_request_names_the_variable_and_is_not_retried() {
    let server =
        mock(r#"{"turns": [{"fault": {"http": {"status": 500}}}, {"text": "never"}]}"#).await;
    let kind = ProviderKind::OpenaiChat;
    let mut keyless = config(kind, base_url(&server, kind));
    keyless.api_key = None;
    let outcome = run(connect(keyless).as_ref(), hello()).await;
    assert!(outcome.retries().is_empty(), "retried a keyless 500");
    let err = outcome.error();
    assert_eq!(err.kind, LlmErrorKind::Auth);
    assert!(err.message.contains(KEY_ENV), "{}", err.message);
    assert!(err.message.contains("HTTP 500"), "{}", err.message);
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn retry_hints_under_gateway_and_openai_names_are_honoured() {
    let cases = [
        (json!({"llm_provider-retry-after": "0.2"}), 200),
        (json!({"llm_provider-retry-after-ms": "150"}), 150),
        (
            json!({"x-ratelimit-reset-requests": "120ms", "x-ratelimit-reset-tokens": "0.3s"}),
            300,
        ),
    ];
    for (headers, wanted_ms) in cases {
        let scenario = json!({"turns": [
            {"fault": {"http": {"status": 429, "headers": headers}}},
            {"text": "ok"}
        ]});
        let server = mock(&scenario.to_string()).await;
        let outcome = run(client(&server, ProviderKind::OpenaiChat).as_ref(), hello()).await;
        let retries = outcome.retries();
        assert_eq!(retries.len(), 1, "{headers}");
        assert_eq!(retries[0].1, wanted_ms, "{headers}");
        assert_eq!(outcome.result.unwrap().message.text(), "ok");
    }
}
