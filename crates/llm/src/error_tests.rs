use super::*;
use pretty_assertions::assert_eq;

const KEY: KeySource<'static> = KeySource {
    env: "ANTHROPIC_API_KEY",
    present: true,
};

fn http(status: u16, body: &str) -> LlmError {
    LlmError::from_http(
        "anthropic",
        KEY,
        HttpFailure {
            status,
            body,
            request_id: Some("req_1".into()),
            retry_after_ms: None,
        },
    )
}

#[test]
fn statuses_map_to_kinds() {
    let cases = [
        (
            401,
            r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
            LlmErrorKind::Auth,
        ),
        (403, "forbidden", LlmErrorKind::Auth),
        (
            429,
            r#"{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}"#,
            LlmErrorKind::RateLimited,
        ),
        (
            429,
            r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
            LlmErrorKind::BadRequest,
        ),
        (
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            LlmErrorKind::Overloaded,
        ),
        (500, "", LlmErrorKind::Server),
        (503, "upstream down", LlmErrorKind::Server),
        (
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
            LlmErrorKind::ContextLength,
        ),
        (
            400,
            r#"{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
            LlmErrorKind::ContextLength,
        ),
        (
            400,
            r#"{"object":"error","message":"Input exceeds the context window","type":"BadRequestError","code":400}"#,
            LlmErrorKind::ContextLength,
        ),
        (
            400,
            r#"{"error":{"message":"max_tokens: must be positive","type":"invalid_request_error"}}"#,
            LlmErrorKind::BadRequest,
        ),
        (
            404,
            r#"{"error":"model 'nope' not found"}"#,
            LlmErrorKind::BadRequest,
        ),
    ];
    for (status, body, kind) in cases {
        assert_eq!(http(status, body).kind, kind, "HTTP {status} {body}");
    }
}

#[test]
fn auth_errors_name_the_key_variable_and_keep_the_provider_message() {
    let err = http(
        401,
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
    );
    assert_eq!(
        err.message,
        "authentication failed: check ANTHROPIC_API_KEY (invalid x-api-key)"
    );
    assert_eq!(err.status, Some(401));
    assert_eq!(err.request_id.as_deref(), Some("req_1"));
    let missing = LlmError::from_http(
        "openai",
        KeySource {
            env: "OPENAI_API_KEY",
            present: false,
        },
        HttpFailure {
            status: 401,
            body: "",
            request_id: None,
            retry_after_ms: None,
        },
    );
    assert_eq!(
        missing.message,
        "authentication failed: OPENAI_API_KEY is not set (Unauthorized)"
    );
}

#[test]
fn bad_request_carries_the_provider_message_or_the_truncated_body() {
    assert_eq!(
        http(
            400,
            r#"{"error":{"message":"tools.0.name: bad","type":"invalid_request_error"}}"#
        )
        .message,
        "tools.0.name: bad"
    );
    assert_eq!(
        http(422, r#"{"detail":"field required"}"#).message,
        "field required"
    );
    let long = "x".repeat(600);
    let err = http(400, &long);
    assert_eq!(err.message, format!("{}…", "x".repeat(500)));
}

#[test]
fn stream_errors_are_classified_by_type() {
    let overloaded = LlmError::from_stream("anthropic", "overloaded_error", "Overloaded");
    assert_eq!(overloaded.kind, LlmErrorKind::Overloaded);
    assert_eq!(overloaded.message, "Overloaded (overloaded_error)");
    assert_eq!(
        LlmError::from_stream("openai", "context_length_exceeded", "too big").kind,
        LlmErrorKind::ContextLength
    );
    assert_eq!(
        LlmError::from_stream("openai", "invalid_prompt", "bad").kind,
        LlmErrorKind::BadRequest
    );
}

#[test]
fn display_names_provider_status_and_request_id() {
    let err = http(
        400,
        r#"{"error":{"message":"nope","type":"invalid_request_error"}}"#,
    );
    assert_eq!(
        err.to_string(),
        "anthropic: nope (HTTP 400, request id req_1)"
    );
}
