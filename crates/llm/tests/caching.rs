//! What each protocol asks of the provider's prompt cache, and the cache usage it reports.

use pretty_assertions::assert_eq;
use rein_llm::{CacheTtl, PromptCache, ProviderKind};
use rein_protocol::Message;
use serde_json::{Value, json};

use crate::support::{client, hello, mid_conversation, mock, run};

fn cached(key: &str, ttl: CacheTtl) -> PromptCache {
    PromptCache {
        key: Some(key.into()),
        ttl,
    }
}

/// Where a body carries `cache_control`, as JSON paths.
fn breakpoints(body: &Value) -> Vec<String> {
    fn walk(value: &Value, path: String, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if map.contains_key("cache_control") {
                    out.push(path.clone());
                }
                for (key, v) in map {
                    walk(v, format!("{path}.{key}"), out);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    walk(v, format!("{path}[{i}]"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(body, String::new(), &mut out);
    out
}

#[tokio::test]
async fn anthropic_marks_tools_system_and_both_ends_of_the_conversation_at_most_four() {
    let server = mock(r#"{"turns": [{"text": "ok"}]}"#).await;
    let client = client(&server, ProviderKind::Anthropic);
    let mut request = mid_conversation("claude-sonnet-4-5");
    request.messages.push(Message::assistant_text("Read it."));
    request.messages.push(Message::user_text("And now?"));
    request.cache = cached("session-1", CacheTtl::OneHour);
    run(client.as_ref(), request).await.result.unwrap();

    let body = &server.requests()[0].body;
    assert_eq!(
        breakpoints(body),
        vec![
            ".messages[2].content[0]",
            ".messages[4].content[0]",
            ".system[0]",
            ".tools[0]"
        ]
    );
    assert_eq!(
        body["system"][0]["cache_control"],
        json!({"type": "ephemeral", "ttl": "1h"})
    );
    assert!(body.get("prompt_cache_key").is_none());
}

#[tokio::test]
async fn openai_protocols_send_the_session_as_prompt_cache_key() {
    for kind in [ProviderKind::Openai, ProviderKind::OpenaiChat] {
        let server = mock(r#"{"turns": [{"text": "ok"}]}"#).await;
        let client = client(&server, kind);
        let mut request = hello();
        request.cache = cached("session-7", CacheTtl::FiveMinutes);
        run(client.as_ref(), request).await.result.unwrap();
        let body = &server.requests()[0].body;
        assert_eq!(body["prompt_cache_key"], "session-7", "{kind:?}");
        assert_eq!(breakpoints(body), Vec::<String>::new(), "{kind:?}");
    }
}

#[tokio::test]
async fn a_chat_server_refusing_prompt_cache_key_gets_the_request_without_it_from_then_on() {
    let server = mock(
        r#"{"reject_fields": ["prompt_cache_key"], "reject_stream_options": true,
            "turns": [{"text": "one"}, {"text": "two"}]}"#,
    )
    .await;
    let client = client(&server, ProviderKind::OpenaiChat);
    let mut request = hello();
    request.cache = cached("s", CacheTtl::FiveMinutes);
    let first = run(client.as_ref(), request.clone()).await;
    assert_eq!(first.result.unwrap().message.text(), "one");
    run(client.as_ref(), request).await.result.unwrap();

    let sent: Vec<(bool, bool)> = server
        .requests()
        .iter()
        .map(|r| {
            let has = |field: &str| r.body.get(field).is_some();
            (has("stream_options"), has("prompt_cache_key"))
        })
        .collect();
    assert_eq!(
        sent,
        vec![(true, true), (false, true), (false, false), (false, false)]
    );
}

#[tokio::test]
async fn simulated_cache_reads_are_reported_in_usage_by_every_protocol() {
    for kind in [
        ProviderKind::Anthropic,
        ProviderKind::Openai,
        ProviderKind::OpenaiChat,
    ] {
        let server =
            mock(r#"{"prompt_cache": true, "turns": [{"text": "a"}, {"text": "b"}]}"#).await;
        let client = client(&server, kind);
        let mut request = hello();
        request.system = "Be exact. ".repeat(600);
        request.cache = cached("s", CacheTtl::FiveMinutes);
        let first = run(client.as_ref(), request.clone()).await.result.unwrap();
        let second = run(client.as_ref(), request).await.result.unwrap();
        assert_eq!(first.usage.cache_read_input_tokens, 0, "{kind:?}");
        assert!(
            second.usage.cache_read_input_tokens >= 1_024,
            "{kind:?}: {:?}",
            second.usage
        );
        assert_eq!(
            first.usage.total_input(),
            second.usage.total_input(),
            "{kind:?}"
        );
        if kind == ProviderKind::Anthropic {
            assert_eq!(
                first.usage.cache_creation_input_tokens,
                second.usage.cache_read_input_tokens
            );
        }
    }
}
