//! What each protocol sends for `--effort`: Anthropic thinking with a budget (and the beta
//! header for thinking between tool calls), Responses `reasoning`, Chat `reasoning_effort`
//! (dropped when a server refuses it); nothing without a setting.

use pretty_assertions::assert_eq;
use rein_llm::{Effort, ProviderKind};
use serde_json::{Value, json};

use crate::support::{client, hello, mid_conversation, mock, run};

/// The body and the `anthropic-beta` header of the one request `effort` makes.
async fn sent(kind: ProviderKind, effort: Option<Effort>, tools: bool) -> (Value, Option<String>) {
    let server = mock(r#"{"turns": [{"text": "ok"}]}"#).await;
    let client = client(&server, kind);
    let mut request = if tools {
        mid_conversation("claude-sonnet-4-5")
    } else {
        hello()
    };
    request.max_tokens = 64_000;
    request.effort = effort;
    run(client.as_ref(), request).await.result.unwrap();
    let request = server.requests()[0].clone();
    let beta = request
        .headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("anthropic-beta"))
        .map(|(_, value)| value.clone());
    (request.body, beta)
}

#[tokio::test]
async fn anthropic_thinks_with_a_budget_from_the_effort() {
    let cases = [
        (None, Value::Null),
        (Some(Effort::Minimal), Value::Null),
        (
            Some(Effort::Low),
            json!({"type": "enabled", "budget_tokens": 4000}),
        ),
        (
            Some(Effort::Medium),
            json!({"type": "enabled", "budget_tokens": 10000}),
        ),
        (
            Some(Effort::High),
            json!({"type": "enabled", "budget_tokens": 32000}),
        ),
    ];
    for (effort, thinking) in cases {
        let (body, beta) = sent(ProviderKind::Anthropic, effort, true).await;
        assert_eq!(body["thinking"], thinking, "{effort:?}");
        // Thinking between tool calls needs the beta; no thinking, no header.
        let expected = (!thinking.is_null()).then(|| "interleaved-thinking-2025-05-14".to_string());
        assert_eq!(beta, expected, "{effort:?}");
        assert!(body.get("temperature").is_none());
    }
    // Without tools there is nothing to interleave.
    let (body, beta) = sent(ProviderKind::Anthropic, Some(Effort::High), false).await;
    assert_eq!(body["thinking"]["budget_tokens"], json!(32000));
    assert_eq!(beta, None);
}

#[tokio::test]
async fn responses_ask_for_reasoning_at_the_effort_with_a_summary() {
    let (body, _) = sent(ProviderKind::Openai, None, false).await;
    assert!(body.get("reasoning").is_none(), "{body}");
    for effort in Effort::ALL {
        let (body, _) = sent(ProviderKind::Openai, Some(effort), false).await;
        assert_eq!(
            body["reasoning"],
            json!({"effort": effort.name(), "summary": "auto"})
        );
        // Reasoning travels back encrypted, since nothing is stored.
        assert_eq!(body["store"], json!(false));
        assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
    }
}

#[tokio::test]
async fn chat_sends_reasoning_effort_and_drops_it_for_a_server_that_refuses_it() {
    let (body, _) = sent(ProviderKind::OpenaiChat, None, false).await;
    assert!(body.get("reasoning_effort").is_none(), "{body}");
    let (body, _) = sent(ProviderKind::OpenaiChat, Some(Effort::Low), false).await;
    assert_eq!(body["reasoning_effort"], json!("low"));

    let server = mock(
        r#"{"reject_fields": ["reasoning_effort"], "turns": [{"text": "one"}, {"text": "two"}]}"#,
    )
    .await;
    let client = client(&server, ProviderKind::OpenaiChat);
    let mut request = hello();
    request.effort = Some(Effort::High);
    let first = run(client.as_ref(), request.clone()).await;
    assert_eq!(first.result.unwrap().message.text(), "one");
    let second = run(client.as_ref(), request).await;
    assert_eq!(second.result.unwrap().message.text(), "two");
    let carried: Vec<bool> = server
        .requests()
        .iter()
        .map(|r| r.body.get("reasoning_effort").is_some())
        .collect();
    // Refused once, then left out from then on.
    assert_eq!(carried, vec![true, false, false]);
}
