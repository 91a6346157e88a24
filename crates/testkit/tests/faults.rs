//! Scripted faults: HTTP errors, cut and hanging streams, delays and tiny chunks.

use std::time::{Duration, Instant};

use futures::StreamExt;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::{client, mock, parse_sse, post};

#[tokio::test]
async fn http_fault_sends_status_retry_after_and_scripted_body() {
    let server = mock(
        r#"{"turns": [{"fault": {"http": {"status": 429, "retry_after": 2,
            "body": {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}}}},
            {"text": "ok"}]}"#,
    )
    .await;
    let url = format!("{}/v1/messages", server.url());
    let response = post(&url, &json!({})).await;
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["retry-after"], "2");
    assert_eq!(response.headers()["request-id"], "req_mock_1");
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body,
        json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}})
    );
    // The fault used up turn 1; the retry gets turn 2.
    let retry = post(&url, &json!({})).await;
    assert_eq!(retry.status(), 200);
    assert!(retry.text().await.unwrap().contains("\"text\":\"ok\""));
}

#[tokio::test]
async fn cut_after_sends_the_first_events_then_breaks_the_body() {
    let server = mock(
        r#"{"turns": [{"text": "one two three four", "fault": {"cut_after": {"events": 3}}}]}"#,
    )
    .await;
    let response = post(&format!("{}/v1/messages", server.url()), &json!({})).await;
    assert_eq!(response.status(), 200);
    let mut received = Vec::new();
    let mut stream = response.bytes_stream();
    let error = loop {
        match stream.next().await {
            Some(Ok(bytes)) => received.extend_from_slice(&bytes),
            Some(Err(error)) => break error,
            None => panic!("the body ended cleanly; expected an error"),
        }
    };
    assert!(error.is_body() || error.is_decode(), "{error:?}");
    let frames = parse_sse(std::str::from_utf8(&received).unwrap());
    let events: Vec<_> = frames.iter().map(|(e, _)| e.clone().unwrap()).collect();
    assert_eq!(events, vec!["message_start", "ping", "content_block_start"]);
}

#[tokio::test]
async fn hang_after_sends_the_first_events_then_goes_silent() {
    let server =
        mock(r#"{"turns": [{"text": "never finished", "fault": {"hang_after": {"events": 2}}}]}"#)
            .await;
    let response = post(&format!("{}/responses", server.openai_url()), &json!({})).await;
    let mut stream = response.bytes_stream();
    let mut received = Vec::new();
    while !received.ends_with(b"\n\n") || count_frames(&received) < 2 {
        let chunk = tokio::time::timeout(Duration::from_secs(5), stream.next())
            .await
            .expect("first events arrive")
            .unwrap()
            .unwrap();
        received.extend_from_slice(&chunk);
    }
    let frames = parse_sse(std::str::from_utf8(&received).unwrap());
    assert_eq!(frames.len(), 2);
    assert_eq!(frames[1].0.as_deref(), Some("response.in_progress"));
    let more = tokio::time::timeout(Duration::from_millis(300), stream.next()).await;
    assert!(more.is_err(), "nothing more arrives: {more:?}");
    // Dropping the server releases the hanging connection.
    drop(server);
    let end = tokio::time::timeout(Duration::from_secs(5), stream.next())
        .await
        .expect("the connection ends once the server is dropped");
    assert!(!matches!(end, Some(Ok(_))), "{end:?}");
}

fn count_frames(bytes: &[u8]) -> usize {
    String::from_utf8_lossy(bytes).matches("\n\n").count()
}

#[tokio::test]
async fn chunk_size_one_delivers_the_same_bytes_in_many_pieces() {
    let turn = r#"{"thinking": "Ünïcödé 😀 thoughts", "text": "héllo wörld 😀",
                   "tool_calls": [{"name": "t", "arguments": {"s": "€"}}]}"#;
    let chunked_turn = format!("{}, \"chunk_size\": 1}}", turn.strip_suffix('}').unwrap());
    let server = mock(&format!(r#"{{"turns": [{turn}, {chunked_turn}]}}"#)).await;
    let url = format!("{}/chat/completions", server.openai_url());
    let whole = post(&url, &json!({})).await.bytes().await.unwrap();

    let mut pieces = 0;
    let mut bytes = Vec::new();
    let mut stream = post(&url, &json!({})).await.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.unwrap();
        pieces += 1;
        bytes.extend_from_slice(&chunk);
    }
    let expected = String::from_utf8(whole.to_vec())
        .unwrap()
        .replace("chatcmpl-mock-1", "chatcmpl-mock-2")
        .replace("call_1_1", "call_2_1");
    assert_eq!(String::from_utf8(bytes).unwrap(), expected);
    assert!(pieces > 10, "only {pieces} pieces");
}

#[tokio::test]
async fn delay_ms_holds_back_the_response_headers() {
    let server = mock(r#"{"turns": [{"text": "late", "delay_ms": 200}]}"#).await;
    let started = Instant::now();
    let response = client()
        .post(format!("{}/v1/messages", server.url()))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    let waited = started.elapsed();
    assert_eq!(response.status(), 200);
    assert!(waited >= Duration::from_millis(200), "{waited:?}");
    assert!(waited < Duration::from_secs(5), "{waited:?}");
}
