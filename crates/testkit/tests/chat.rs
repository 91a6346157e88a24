//! The OpenAI Chat Completions protocol on `POST /v1/chat/completions`.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::{frames, mock, post};

fn chunk(delta: Value, finish: Value) -> (Option<String>, Value) {
    (
        None,
        json!({"id": "chatcmpl-mock-1", "object": "chat.completion.chunk",
               "created": 1_700_000_000, "model": "deepseek-test", "usage": null,
               "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]}),
    )
}

#[tokio::test]
async fn streams_reasoning_content_and_tool_call_chunks_then_usage_and_done() {
    let server = mock(
        r#"{"turns": [{"thinking": "Hmm.", "text": "Running it.",
            "tool_calls": [{"name": "bash", "arguments": {"command": "ls"}}],
            "usage": {"input_tokens": 100, "output_tokens": 30, "cache_read_input_tokens": 50}}]}"#,
    )
    .await;
    let response = post(
        &format!("{}/chat/completions", server.openai_url()),
        &json!({"model": "deepseek-test", "stream": true,
                "stream_options": {"include_usage": true}, "messages": []}),
    )
    .await;
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    assert_eq!(response.headers()["x-request-id"], "req_mock_1");
    let null = Value::Null;
    let expected = vec![
        chunk(json!({"role": "assistant", "content": ""}), null.clone()),
        chunk(json!({"reasoning_content": "Hmm."}), null.clone()),
        chunk(json!({"content": "Running "}), null.clone()),
        chunk(json!({"content": "it."}), null.clone()),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_1_1", "type": "function",
                                   "function": {"name": "bash", "arguments": ""}}]}),
            null.clone(),
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"com"}}]}),
            null.clone(),
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "mand\""}}]}),
            null.clone(),
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": ":\"ls\"}"}}]}),
            null.clone(),
        ),
        chunk(json!({}), json!("tool_calls")),
        (
            None,
            json!({"id": "chatcmpl-mock-1", "object": "chat.completion.chunk",
                   "created": 1_700_000_000, "model": "deepseek-test", "choices": [],
                   "usage": {"prompt_tokens": 150, "completion_tokens": 30, "total_tokens": 180,
                             "prompt_tokens_details": {"cached_tokens": 50},
                             "completion_tokens_details": {"reasoning_tokens": 0}}}),
        ),
        (None, json!("[DONE]")),
    ];
    assert_eq!(frames(response).await, expected);
}

#[tokio::test]
async fn without_include_usage_there_is_no_usage_chunk() {
    let server = mock(r#"{"turns": [{"text": "Hi"}]}"#).await;
    let response = post(
        &format!("{}/chat/completions", server.openai_url()),
        &json!({}),
    )
    .await;
    let text = response.text().await.unwrap();
    assert!(!text.contains("usage"), "{text}");
    let frames: Vec<&str> = text.trim_end_matches('\n').split("\n\n").collect();
    assert_eq!(frames.last(), Some(&"data: [DONE]"), "{text}");
    let last: Value =
        serde_json::from_str(frames[frames.len() - 2].strip_prefix("data: ").unwrap()).unwrap();
    assert_eq!(
        last,
        json!({"choices": [{"delta": {}, "finish_reason": "stop", "index": 0, "logprobs": null}],
            "created": 1700000000, "id": "chatcmpl-mock-1", "model": "mock-model",
            "object": "chat.completion.chunk"}),
        "{text}"
    );
}

#[tokio::test]
async fn parallel_tool_call_fragments_reassemble_per_index() {
    let server = mock(
        r#"{"turns": [{"tool_calls": [
            {"name": "read_file", "arguments": {"path": "src/lib.rs"}},
            {"id": "given", "name": "grep", "arguments": {"pattern": "fn main", "path": "ünï"}}]}]}"#,
    )
    .await;
    let frames = frames(
        post(
            &format!("{}/chat/completions", server.openai_url()),
            &json!({}),
        )
        .await,
    )
    .await;
    let mut calls: Vec<(String, String, String)> = Vec::new();
    for (_, data) in &frames {
        let Some(deltas) = data["choices"][0]["delta"]["tool_calls"].as_array() else {
            continue;
        };
        for delta in deltas {
            let index = delta["index"].as_u64().unwrap() as usize;
            if let Some(id) = delta["id"].as_str() {
                assert_eq!(index, calls.len());
                let name = delta["function"]["name"].as_str().unwrap();
                calls.push((id.into(), name.into(), String::new()));
            } else {
                assert!(delta.get("type").is_none() && delta["function"].get("name").is_none());
            }
            calls[index].2 += delta["function"]["arguments"].as_str().unwrap();
        }
    }
    let parsed: Vec<(String, String, Value)> = calls
        .into_iter()
        .map(|(id, name, args)| (id, name, serde_json::from_str(&args).unwrap()))
        .collect();
    assert_eq!(
        parsed,
        vec![
            (
                "call_1_1".into(),
                "read_file".into(),
                json!({"path": "src/lib.rs"})
            ),
            (
                "given".into(),
                "grep".into(),
                json!({"pattern": "fn main", "path": "ünï"})
            ),
        ]
    );
}

#[tokio::test]
async fn finish_reason_length_for_max_tokens() {
    let server = mock(r#"{"turns": [{"text": "Hi", "stop_reason": "max_tokens"}]}"#).await;
    let frames = frames(
        post(
            &format!("{}/chat/completions", server.openai_url()),
            &json!({}),
        )
        .await,
    )
    .await;
    let finish = &frames[frames.len() - 2].1["choices"][0]["finish_reason"];
    assert_eq!(finish, "length");
}

#[tokio::test]
async fn reject_stream_options_answers_400_without_consuming_a_turn() {
    let server = mock(r#"{"reject_stream_options": true, "turns": [{"text": "Hi"}]}"#).await;
    let url = format!("{}/chat/completions", server.openai_url());
    let rejected = post(
        &url,
        &json!({"model": "m", "stream": true, "stream_options": {"include_usage": true}}),
    )
    .await;
    assert_eq!(rejected.status(), 400);
    let body: Value = rejected.json().await.unwrap();
    assert_eq!(
        body,
        json!({"error": {"message": "Unrecognized request argument supplied: stream_options",
                         "type": "invalid_request_error", "param": null, "code": null}})
    );
    let retried = frames(post(&url, &json!({"model": "m", "stream": true})).await).await;
    assert_eq!(retried[1].1["choices"][0]["delta"]["content"], "Hi");
    assert_eq!(
        retried[1].1["id"], "chatcmpl-mock-1",
        "still the first turn"
    );
    assert_eq!(server.requests().len(), 2);
}
