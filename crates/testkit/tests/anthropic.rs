//! The Anthropic Messages protocol on `POST /v1/messages`.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::{Frame, frames, mock, of_type, post};

fn named(event: &str, data: Value) -> Frame {
    (Some(event.to_string()), data)
}

#[tokio::test]
async fn streams_thinking_text_and_tool_use_as_documented_events() {
    let server = mock(
        r#"{"turns": [{"thinking": "Let me see.", "signature": "sig_1", "text": "Reading it.",
            "tool_calls": [{"name": "read_file", "arguments": {"path": "hello.py"}}],
            "usage": {"input_tokens": 100, "output_tokens": 30,
                      "cache_creation_input_tokens": 7, "cache_read_input_tokens": 50}}]}"#,
    )
    .await;
    let response = post(
        &format!("{}/v1/messages", server.url()),
        &json!({"model": "claude-test", "stream": true, "max_tokens": 100, "messages": []}),
    )
    .await;
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    assert_eq!(response.headers()["request-id"], "req_mock_1");

    let delta = |index: usize, delta: Value| {
        named(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": delta}),
        )
    };
    let start = |index: usize, block: Value| {
        named(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": block}),
        )
    };
    let stop = |index: usize| {
        named(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        )
    };
    let expected = vec![
        named(
            "message_start",
            json!({"type": "message_start", "message": {
                "id": "msg_mock_1", "type": "message", "role": "assistant", "content": [],
                "model": "claude-test", "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": 100, "cache_creation_input_tokens": 7,
                          "cache_read_input_tokens": 50, "output_tokens": 1}}}),
        ),
        named("ping", json!({"type": "ping"})),
        start(0, json!({"type": "thinking", "thinking": ""})),
        delta(0, json!({"type": "thinking_delta", "thinking": "Let "})),
        delta(0, json!({"type": "thinking_delta", "thinking": "me "})),
        delta(0, json!({"type": "thinking_delta", "thinking": "see."})),
        delta(0, json!({"type": "signature_delta", "signature": "sig_1"})),
        stop(0),
        start(1, json!({"type": "text", "text": ""})),
        delta(1, json!({"type": "text_delta", "text": "Reading "})),
        delta(1, json!({"type": "text_delta", "text": "it."})),
        stop(1),
        start(
            2,
            json!({"type": "tool_use", "id": "call_1_1", "name": "read_file", "input": {}}),
        ),
        delta(2, json!({"type": "input_json_delta", "partial_json": ""})),
        delta(
            2,
            json!({"type": "input_json_delta", "partial_json": "{\"path"}),
        ),
        delta(
            2,
            json!({"type": "input_json_delta", "partial_json": "\":\"hel"}),
        ),
        delta(
            2,
            json!({"type": "input_json_delta", "partial_json": "lo.py\"}"}),
        ),
        stop(2),
        named(
            "message_delta",
            json!({"type": "message_delta",
                   "delta": {"stop_reason": "tool_use", "stop_sequence": null},
                   "usage": {"output_tokens": 30}}),
        ),
        named("message_stop", json!({"type": "message_stop"})),
    ];
    assert_eq!(frames(response).await, expected);
}

#[tokio::test]
async fn frames_are_event_line_data_line_blank_line() {
    let server = mock(r#"{"turns": [{"text": "Hi"}]}"#).await;
    let response = post(&format!("{}/v1/messages", server.url()), &json!({})).await;
    let text = response.text().await.unwrap();
    assert!(text.starts_with("event: message_start\ndata: {"), "{text}");
    assert!(
        text.ends_with("\n\n") && !text.ends_with("\n\n\n"),
        "{text}"
    );
    // Each frame: an event line, a data line (its JSON; key order is serde_json's), a blank
    // line.
    let frames: Vec<(&str, Value)> = text
        .trim_end_matches('\n')
        .split("\n\n")
        .map(|frame| {
            let (event, data) = frame.split_once('\n').unwrap();
            let event = event.strip_prefix("event: ").unwrap();
            let data = data.strip_prefix("data: ").unwrap();
            (event, serde_json::from_str(data).unwrap())
        })
        .collect();
    let tail = [
        (
            "content_block_start",
            json!({"content_block": {"text": "", "type": "text"}, "index": 0, "type": "content_block_start"}),
        ),
        (
            "content_block_delta",
            json!({"delta": {"text": "Hi", "type": "text_delta"}, "index": 0, "type": "content_block_delta"}),
        ),
        (
            "content_block_stop",
            json!({"index": 0, "type": "content_block_stop"}),
        ),
        (
            "message_delta",
            json!({"delta": {"stop_reason": "end_turn", "stop_sequence": null}, "type": "message_delta", "usage": {"output_tokens": 5}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ];
    assert_eq!(frames[frames.len() - tail.len()..], tail, "{text}");
}

#[tokio::test]
async fn default_usage_and_model_are_filled_in() {
    let server = mock(r#"{"turns": [{"text": "Hi"}]}"#).await;
    let response = post(&format!("{}/v1/messages", server.url()), &json!({})).await;
    let frames = frames(response).await;
    let start = &of_type(&frames, "message_start")[0]["message"];
    assert_eq!(start["model"], "mock-model");
    assert_eq!(start["usage"]["input_tokens"], 10);
    assert_eq!(
        of_type(&frames, "message_delta")[0]["usage"]["output_tokens"],
        5
    );
}

#[tokio::test]
async fn stop_reason_is_translated_or_passed_through() {
    let server = mock(
        r#"{"turns": [{"text": "cut", "stop_reason": "length"},
                      {"text": "no", "stop_reason": "refusal"}]}"#,
    )
    .await;
    let url = format!("{}/v1/messages", server.url());
    for expected in ["max_tokens", "refusal"] {
        let frames = frames(post(&url, &json!({})).await).await;
        let delta = &of_type(&frames, "message_delta")[0]["delta"];
        assert_eq!(delta["stop_reason"], expected);
    }
}

#[tokio::test]
async fn several_tool_calls_get_their_own_blocks_and_generated_ids() {
    let server = mock(
        r#"{"turns": [{"tool_calls": [
            {"name": "a", "arguments": {"x": "é€😀"}},
            {"id": "toolu_given", "name": "b", "arguments": {}}]}]}"#,
    )
    .await;
    let frames = frames(post(&format!("{}/v1/messages", server.url()), &json!({})).await).await;
    let starts: Vec<_> = of_type(&frames, "content_block_start")
        .into_iter()
        .map(|s| (s["index"].clone(), s["content_block"]["id"].clone()))
        .collect();
    assert_eq!(
        starts,
        vec![
            (json!(0), json!("call_1_1")),
            (json!(1), json!("toolu_given"))
        ]
    );
    for (index, expected) in [(0, json!({"x": "é€😀"})), (1, json!({}))] {
        let json: String = of_type(&frames, "content_block_delta")
            .into_iter()
            .filter(|d| d["index"] == index)
            .map(|d| d["delta"]["partial_json"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(serde_json::from_str::<Value>(&json).unwrap(), expected);
    }
    let delta = &of_type(&frames, "message_delta")[0]["delta"];
    assert_eq!(delta["stop_reason"], "tool_use");
}

#[tokio::test]
async fn http_fault_without_body_gets_the_documented_error_shape() {
    let server = mock(
        r#"{"turns": [{"fault": {"http": {"status": 529}}},
                      {"fault": {"http": {"status": 401}}}]}"#,
    )
    .await;
    let url = format!("{}/v1/messages", server.url());
    for (status, kind) in [(529, "overloaded_error"), (401, "authentication_error")] {
        let response = post(&url, &json!({})).await;
        assert_eq!(response.status().as_u16(), status);
        assert_eq!(response.headers()["content-type"], "application/json");
        let request_id = response.headers()["request-id"]
            .to_str()
            .unwrap()
            .to_string();
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["type"], "error");
        assert_eq!(body["error"]["type"], kind);
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains(&status.to_string())
        );
        assert_eq!(body["request_id"], request_id);
    }
}
