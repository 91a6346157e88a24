//! Retries, errors a user can act on, timeouts and refused connections.

use std::time::{Duration, Instant};

use futures::StreamExt;
use pretty_assertions::assert_eq;
use rein_llm::{LlmErrorKind, ModelEvent, ProviderKind, RetryPolicy, connect};

use crate::support::{KEY_ENV, base_url, client, config, hello, mock, run};

#[tokio::test]
async fn rate_limit_with_retry_after_waits_the_requested_time_then_succeeds() {
    let server = mock(
        r#"{"turns": [{"fault": {"http": {"status": 429, "retry_after": 1}}}, {"text": "ok"}]}"#,
    )
    .await;
    let client = client(&server, ProviderKind::Anthropic);
    let started = Instant::now();
    let outcome = run(client.as_ref(), hello()).await;

    let retries = outcome.retries();
    assert_eq!(retries.len(), 1);
    let (attempt, delay_ms, error) = &retries[0];
    assert_eq!((*attempt, *delay_ms), (1, 1000));
    assert_eq!(error.kind, LlmErrorKind::RateLimited);
    assert_eq!(error.status, Some(429));
    assert!(
        matches!(outcome.events[0], ModelEvent::Retry { .. }),
        "retry is announced first"
    );
    assert_eq!(outcome.result.unwrap().message.text(), "ok");
    assert!(
        started.elapsed() >= Duration::from_millis(1000),
        "it waited"
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn server_errors_are_retried_with_backoff() {
    for kind in [
        ProviderKind::Anthropic,
        ProviderKind::Openai,
        ProviderKind::OpenaiChat,
    ] {
        let server =
            mock(r#"{"turns": [{"fault": {"http": {"status": 503}}}, {"text": "back"}]}"#).await;
        let client = client(&server, kind);
        let outcome = run(client.as_ref(), hello()).await;
        let retries = outcome.retries();
        assert_eq!(retries.len(), 1, "{kind:?}");
        assert_eq!(retries[0].2.kind, LlmErrorKind::Server, "{kind:?}");
        assert!(
            retries[0].1 <= 10,
            "base delay 10 ms with jitter: {}",
            retries[0].1
        );
        assert_eq!(outcome.result.unwrap().message.text(), "back", "{kind:?}");
    }
}

#[tokio::test]
async fn a_server_error_or_overload_with_retry_after_waits_the_requested_time() {
    let cases = [
        (ProviderKind::Anthropic, 529, LlmErrorKind::Overloaded),
        (ProviderKind::Anthropic, 503, LlmErrorKind::Server),
        (ProviderKind::Openai, 503, LlmErrorKind::Server),
        (ProviderKind::OpenaiChat, 503, LlmErrorKind::Server),
        (ProviderKind::OpenaiChat, 500, LlmErrorKind::Server),
    ];
    // All at once: each waits the server's one second, not the ~10 ms backoff.
    let runs = cases.iter().map(|&(kind, status, expected)| async move {
        let scenario = format!(
            r#"{{"turns": [{{"fault": {{"http": {{"status": {status}, "retry_after": 1}}}}}}, {{"text": "ok"}}]}}"#
        );
        let server = mock(&scenario).await;
        let client = client(&server, kind);
        let outcome = run(client.as_ref(), hello()).await;
        let retries = outcome.retries();
        assert_eq!(retries.len(), 1, "{kind:?} {status}");
        assert_eq!(retries[0].1, 1000, "{kind:?} {status}: the delay asked for");
        assert_eq!(retries[0].2.kind, expected, "{kind:?} {status}");
        assert_eq!(retries[0].2.status, Some(status));
        assert_eq!(outcome.result.unwrap().message.text(), "ok", "{kind:?}");
    });
    futures::future::join_all(runs).await;
}

#[tokio::test]
async fn retries_are_bounded_and_the_last_error_is_returned() {
    let server = mock(
        r#"{"turns": [
        {"fault": {"http": {"status": 529}}},
        {"fault": {"http": {"status": 529}}},
        {"fault": {"http": {"status": 529}}},
        {"text": "never"}
    ]}"#,
    )
    .await;
    let client = client(&server, ProviderKind::Anthropic);
    let outcome = run(client.as_ref(), hello()).await;
    let attempts: Vec<u32> = outcome.retries().iter().map(|r| r.0).collect();
    assert_eq!(attempts, vec![1, 2]);
    assert_eq!(outcome.error().kind, LlmErrorKind::Overloaded);
    assert_eq!(server.requests().len(), 3, "max_attempts is 3");
}

#[tokio::test]
async fn a_retry_after_longer_than_max_delay_gives_up_at_once() {
    let server = mock(
        r#"{"turns": [{"fault": {"http": {"status": 429, "retry_after": 600}}}, {"text": "x"}]}"#,
    )
    .await;
    let client = client(&server, ProviderKind::OpenaiChat);
    let outcome = run(client.as_ref(), hello()).await;
    assert!(outcome.retries().is_empty());
    let err = outcome.error();
    assert_eq!(err.kind, LlmErrorKind::RateLimited);
    assert_eq!(err.retry_after_ms, Some(600_000));
    assert!(
        err.to_string()
            .contains("the provider asked to wait 10 min before trying again"),
        "{err}"
    );
    assert_eq!(server.requests().len(), 1);
}

/// The default policy at a thousandth of the scale: a usual cap of 30 ms and a longest wait of
/// 300 ms stand for 30 s and `max_retry_wait_secs = 300`, so a 60 ms hint is LiteLLM's
/// `llm_provider-retry-after: 60` without a minute's sleep.
fn scaled_policy() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 3,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(30),
        max_wait: Duration::from_millis(300),
    }
}

#[tokio::test]
async fn a_retry_hint_past_the_usual_cap_is_waited_out_up_to_the_longest_wait() {
    let server = mock(
        r#"{"turns": [{"fault": {"http": {"status": 429, "headers": {"llm_provider-retry-after": "0.06"}}}}, {"text": "ok"}]}"#,
    )
    .await;
    let kind = ProviderKind::OpenaiChat;
    let mut config = config(kind, base_url(&server, kind));
    config.retry = scaled_policy();
    let outcome = run(connect(config).as_ref(), hello()).await;
    let retries = outcome.retries();
    assert_eq!(retries.len(), 1);
    assert_eq!(
        (retries[0].0, retries[0].1),
        (1, 60),
        "the hint, not the cap"
    );
    assert_eq!(outcome.result.unwrap().message.text(), "ok");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_retry_hint_past_the_longest_wait_fails_saying_how_long_the_provider_asked() {
    let server = mock(
        r#"{"turns": [{"fault": {"http": {"status": 529, "headers": {"retry-after-ms": "450"}}}}, {"text": "x"}]}"#,
    )
    .await;
    let kind = ProviderKind::Anthropic;
    let mut config = config(kind, base_url(&server, kind));
    config.retry = scaled_policy();
    let outcome = run(connect(config).as_ref(), hello()).await;
    assert!(outcome.retries().is_empty());
    let err = outcome.error();
    assert_eq!(err.kind, LlmErrorKind::Overloaded);
    assert!(
        err.to_string().contains(
            "the provider asked to wait 0.5 s before trying again, longer than rein waits \
             (0.3 s, `max_retry_wait_secs` in config)"
        ),
        "{err}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn dropping_the_stream_during_a_long_wait_sends_nothing_more() {
    let server = mock(
        r#"{"turns": [{"fault": {"http": {"status": 429, "headers": {"llm_provider-retry-after": "60"}}}}, {"text": "never"}]}"#,
    )
    .await;
    let client = client(&server, ProviderKind::OpenaiChat);
    let mut stream = client.stream(hello());
    match stream.next().await {
        Some(Ok(ModelEvent::Retry { delay_ms, .. })) => assert_eq!(delay_ms, 60_000),
        other => panic!("expected a retry notice, got {other:?}"),
    }
    // The wait is the stream's next poll: a turn cancelled now drops it mid-wait.
    let waiting = tokio::time::timeout(Duration::from_millis(50), stream.next()).await;
    assert!(waiting.is_err(), "still waiting: {waiting:?}");
    drop(stream);
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_stream_cut_after_output_is_an_error_and_never_retried() {
    // message_start, ping, content_block_start, first text delta, then the connection drops.
    let server = mock(r#"{"turns": [{"text": "Hello there", "fault": {"cut_after": {"events": 4}}}, {"text": "again"}]}"#).await;
    let client = client(&server, ProviderKind::Anthropic);
    let outcome = run(client.as_ref(), hello()).await;
    assert_eq!(outcome.text(), "Hello ");
    assert!(outcome.retries().is_empty());
    let err = outcome.error();
    assert!(
        matches!(err.kind, LlmErrorKind::Connection | LlmErrorKind::Protocol),
        "{err:?}"
    );
    assert!(
        err.request_id.is_some(),
        "mid-stream errors carry the request id"
    );
    assert_eq!(server.requests().len(), 1, "exactly one request: no retry");
}

#[tokio::test]
async fn authentication_failures_name_the_key_variable_and_carry_the_request_id() {
    let cases = [
        (ProviderKind::Anthropic, "req_mock_"),
        (ProviderKind::Openai, "req_mock_"),
        (ProviderKind::OpenaiChat, "req_mock_"),
    ];
    for (kind, id_prefix) in cases {
        let server = mock(r#"{"turns": [{"fault": {"http": {"status": 401}}}]}"#).await;
        let client = client(&server, kind);
        let err = run(client.as_ref(), hello()).await.error();
        assert_eq!(err.kind, LlmErrorKind::Auth, "{kind:?}");
        assert!(
            err.message
                .starts_with(&format!("authentication failed: check {KEY_ENV} (")),
            "{kind:?}: {}",
            err.message
        );
        let request_id = err.request_id.clone().unwrap_or_default();
        assert!(request_id.starts_with(id_prefix), "{kind:?}: {err:?}");
        assert!(err.to_string().contains(&request_id));
        assert_eq!(server.requests().len(), 1, "auth errors are not retried");
    }
}

#[tokio::test]
async fn context_length_answers_are_classified_for_compaction() {
    let cases = [
        (
            ProviderKind::Anthropic,
            r#"{"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 210000 tokens > 200000 maximum"}}"#,
        ),
        (
            ProviderKind::Openai,
            r#"{"error": {"message": "Your input exceeds the context window of this model.", "type": "invalid_request_error", "param": "input", "code": "context_length_exceeded"}}"#,
        ),
        (
            ProviderKind::OpenaiChat,
            r#"{"object": "error", "message": "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens.", "type": "BadRequestError", "code": 400}"#,
        ),
    ];
    for (kind, body) in cases {
        let scenario =
            format!(r#"{{"turns": [{{"fault": {{"http": {{"status": 400, "body": {body}}}}}}}]}}"#);
        let server = mock(&scenario).await;
        let client = client(&server, kind);
        let err = run(client.as_ref(), hello()).await.error();
        assert_eq!(err.kind, LlmErrorKind::ContextLength, "{kind:?}: {err:?}");
        assert!(err.request_id.is_some(), "{kind:?}");
    }
}

#[tokio::test]
async fn other_client_errors_carry_the_provider_message() {
    let server = mock(r#"{"turns": [{"fault": {"http": {"status": 400, "body": {"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: Field required"}}}}}]}"#).await;
    let client = client(&server, ProviderKind::Anthropic);
    let err = run(client.as_ref(), hello()).await.error();
    assert_eq!(err.kind, LlmErrorKind::BadRequest);
    assert_eq!(err.message, "max_tokens: Field required");
    assert_eq!(err.status, Some(400));
}

#[tokio::test]
async fn a_silent_stream_fails_with_an_idle_timeout() {
    let server = mock(r#"{"turns": [{"text": "Hello there", "fault": {"hang_after": {"events": 4}}}, {"text": "x"}]}"#).await;
    let mut config = config(
        ProviderKind::Anthropic,
        base_url(&server, ProviderKind::Anthropic),
    );
    config.idle_timeout = Duration::from_millis(300);
    let client = connect(config);
    let started = Instant::now();
    let outcome = run(client.as_ref(), hello()).await;
    assert_eq!(outcome.text(), "Hello ");
    let err = outcome.error();
    assert_eq!(err.kind, LlmErrorKind::IdleTimeout);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn connection_refused_fails_at_once_naming_the_url() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let base = format!("http://127.0.0.1:{port}/v1");
    let client = connect(config(ProviderKind::OpenaiChat, base.clone()));
    let outcome = run(client.as_ref(), hello()).await;
    assert_eq!(
        outcome.retries().len(),
        0,
        "nothing listens: retrying cannot help"
    );
    let err = outcome.error();
    assert_eq!(err.kind, LlmErrorKind::Unreachable);
    assert!(
        err.message.contains("connection refused"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains(&format!("{base}/chat/completions")),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn a_connection_dropped_before_the_answer_is_retried() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&accepted);
    tokio::spawn(async move {
        // Accepts each connection and closes it without answering.
        while let Ok((socket, _)) = listener.accept().await {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            drop(socket);
        }
    });
    let base = format!("http://127.0.0.1:{port}");
    let client = connect(config(ProviderKind::Anthropic, base));
    let outcome = run(client.as_ref(), hello()).await;
    assert_eq!(outcome.retries().len(), 2, "a broken connection is retried");
    assert_eq!(outcome.error().kind, LlmErrorKind::Connection);
    assert_eq!(accepted.load(std::sync::atomic::Ordering::SeqCst), 3);
}

#[tokio::test]
async fn https_to_a_plain_http_server_fails_at_once_saying_so() {
    let server = mock(r#"{"turns": [{"text": "never"}]}"#).await;
    let kind = ProviderKind::Anthropic;
    let url = base_url(&server, kind).replacen("http://", "https://", 1);
    let outcome = run(connect(config(kind, url)).as_ref(), hello()).await;
    assert!(outcome.retries().is_empty(), "retried a TLS mismatch");
    let err = outcome.error();
    assert_eq!(err.kind, LlmErrorKind::Unreachable);
    assert!(
        err.message.contains("does not speak TLS") && err.message.contains("http://"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn a_gzip_encoded_stream_is_decoded() {
    for kind in [
        ProviderKind::Anthropic,
        ProviderKind::Openai,
        ProviderKind::OpenaiChat,
    ] {
        let server =
            mock(r#"{"turns": [{"gzip": true, "text": "compressed hello", "chunk_size": 7}]}"#)
                .await;
        let outcome = run(client(&server, kind).as_ref(), hello()).await;
        assert_eq!(outcome.text(), "compressed hello", "{kind:?}");
        assert_eq!(
            outcome.result.unwrap().message.text(),
            "compressed hello",
            "{kind:?}"
        );
        let asked = &server.requests()[0].headers;
        assert!(
            asked
                .iter()
                .any(|(k, v)| k == "accept-encoding" && v.contains("gzip")),
            "{kind:?}"
        );
    }
}

#[tokio::test]
async fn a_stream_of_keep_alives_without_content_fails_at_the_no_progress_deadline() {
    for kind in [
        ProviderKind::Anthropic,
        ProviderKind::Openai,
        ProviderKind::OpenaiChat,
    ] {
        let server =
            mock(r#"{"turns": [{"text": "never", "fault": {"ping_after": {"events": 1}}}]}"#).await;
        let mut config = config(kind, base_url(&server, kind));
        config.no_progress_timeout = Duration::from_millis(300);
        // The config's 10 s idle timeout is the safety net should the deadline not hold.
        let outcome = run(connect(config).as_ref(), hello()).await;
        let err = outcome.error();
        assert_eq!(err.kind, LlmErrorKind::IdleTimeout, "{kind:?}");
        assert!(
            err.message.contains("no content"),
            "{kind:?}: {}",
            err.message
        );
        assert!(
            err.message.contains("no_progress_timeout_secs"),
            "{}",
            err.message
        );
    }
}

#[tokio::test]
async fn a_404_says_what_the_base_urls_v1_may_be() {
    let server = mock(r#"{"turns": [{"text": "never"}]}"#).await;
    // The mock serves /v1/chat/completions; a base without /v1 asks for /chat/completions.
    let kind = ProviderKind::OpenaiChat;
    let err = run(connect(config(kind, server.url())).as_ref(), hello())
        .await
        .error();
    assert_eq!(err.status, Some(404));
    assert!(
        err.message.contains("no /v1 in the path"),
        "{}",
        err.message
    );
    let doubled = format!("{}/v1", server.openai_url());
    let err = run(connect(config(kind, doubled)).as_ref(), hello())
        .await
        .error();
    assert!(err.message.contains("/v1 twice"), "{}", err.message);
}
