//! The OpenAI Responses protocol on `POST /v1/responses`.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::{frames, mock, of_type, post};

const TURN: &str = r#"{"turns": [{"thinking": "Plan it.", "signature": "enc_1", "text": "On it.",
    "tool_calls": [{"name": "bash", "arguments": {"command": "ls -la"}}],
    "usage": {"input_tokens": 100, "output_tokens": 30, "cache_read_input_tokens": 50,
              "reasoning_tokens": 12}}]}"#;

#[tokio::test]
async fn streams_reasoning_message_and_function_call_items_in_order() {
    let server = mock(TURN).await;
    let response = post(
        &format!("{}/responses", server.openai_url()),
        &json!({"model": "gpt-test", "stream": true, "input": []}),
    )
    .await;
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    assert_eq!(response.headers()["x-request-id"], "req_mock_1");
    let frames = frames(response).await;

    for (n, (event, data)) in frames.iter().enumerate() {
        assert_eq!(
            event.as_deref(),
            data["type"].as_str(),
            "event name is the type"
        );
        assert_eq!(data["sequence_number"], n, "{data}");
    }
    let kinds: Vec<&str> = frames.iter().map(|(e, _)| e.as_deref().unwrap()).collect();
    assert_eq!(
        kinds,
        vec![
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.reasoning_summary_part.added",
            "response.reasoning_summary_text.delta",
            "response.reasoning_summary_text.delta",
            "response.reasoning_summary_text.done",
            "response.reasoning_summary_part.done",
            "response.output_item.done",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
            "response.output_text.delta",
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.completed",
        ]
    );

    let created = &frames[0].1["response"];
    assert_eq!(created["id"], "resp_mock_1");
    assert_eq!(created["status"], "in_progress");
    assert_eq!(created["model"], "gpt-test");

    let done: Vec<&Value> = of_type(&frames, "response.output_item.done")
        .into_iter()
        .map(|d| &d["item"])
        .collect();
    let expected_items = vec![
        json!({"id": "rs_mock_1", "type": "reasoning", "encrypted_content": "enc_1",
               "summary": [{"type": "summary_text", "text": "Plan it."}]}),
        json!({"id": "msg_mock_1", "type": "message", "status": "completed", "role": "assistant",
               "content": [{"type": "output_text", "text": "On it.", "annotations": []}]}),
        json!({"id": "fc_mock_1_1", "type": "function_call", "status": "completed",
               "call_id": "call_1_1", "name": "bash", "arguments": "{\"command\":\"ls -la\"}"}),
    ];
    assert_eq!(done, expected_items.iter().collect::<Vec<_>>());

    let text_deltas: String = of_type(&frames, "response.output_text.delta")
        .iter()
        .map(|d| d["delta"].as_str().unwrap())
        .collect();
    assert_eq!(text_deltas, "On it.");
    let args: String = of_type(&frames, "response.function_call_arguments.delta")
        .iter()
        .map(|d| d["delta"].as_str().unwrap())
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&args).unwrap(),
        json!({"command": "ls -la"})
    );
    let args_done = of_type(&frames, "response.function_call_arguments.done")[0];
    assert_eq!(
        args_done,
        &json!({"type": "response.function_call_arguments.done", "sequence_number": 20,
                "item_id": "fc_mock_1_1", "output_index": 2, "name": "bash",
                "arguments": "{\"command\":\"ls -la\"}"})
    );

    let completed = &frames.last().unwrap().1["response"];
    assert_eq!(completed["status"], "completed");
    assert_eq!(completed["output"], json!(expected_items));
    assert_eq!(
        completed["usage"],
        json!({"input_tokens": 150, "input_tokens_details": {"cached_tokens": 50},
               "output_tokens": 30, "output_tokens_details": {"reasoning_tokens": 12},
               "total_tokens": 180})
    );
}

#[tokio::test]
async fn max_tokens_ends_with_response_incomplete() {
    let server = mock(r#"{"turns": [{"text": "cut off", "stop_reason": "max_tokens"}]}"#).await;
    let frames =
        frames(post(&format!("{}/responses", server.openai_url()), &json!({})).await).await;
    let (event, last) = frames.last().unwrap();
    assert_eq!(event.as_deref(), Some("response.incomplete"));
    assert_eq!(last["response"]["status"], "incomplete");
    assert_eq!(
        last["response"]["incomplete_details"],
        json!({"reason": "max_output_tokens"})
    );
}

#[tokio::test]
async fn text_only_turn_has_no_reasoning_or_function_items() {
    let server = mock(r#"{"turns": [{"text": "Hello"}]}"#).await;
    let frames =
        frames(post(&format!("{}/responses", server.openai_url()), &json!({})).await).await;
    let added: Vec<&Value> = of_type(&frames, "response.output_item.added")
        .into_iter()
        .map(|d| &d["item"]["type"])
        .collect();
    assert_eq!(added, vec![&json!("message")]);
    let usage = &frames.last().unwrap().1["response"]["usage"];
    assert_eq!(usage["input_tokens"], 10);
    assert_eq!(usage["output_tokens"], 5);
}

#[tokio::test]
async fn http_fault_without_body_gets_the_openai_error_shape() {
    let server =
        mock(r#"{"turns": [{"fault": {"http": {"status": 429, "retry_after": 3}}}]}"#).await;
    let response = post(&format!("{}/responses", server.openai_url()), &json!({})).await;
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["retry-after"], "3");
    assert_eq!(response.headers()["x-request-id"], "req_mock_1");
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body,
        json!({"error": {"message": "mock fault: HTTP 429 Too Many Requests",
                         "type": "requests", "param": null, "code": "rate_limit_exceeded"}})
    );
}
