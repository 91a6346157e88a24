//! Per-model limits in what is sent: each request's output limit is the model's, up to 32,000
//! (the full limit is asked for after a reply is cut inside a tool call), unless the config's
//! table or scalar says otherwise.

use rein_engine::{Agent, AgentConfig};
use rein_llm::ProviderKind;
use tokio_util::sync::CancellationToken;

use crate::support::{client, mock};

/// The output limit field of one request to `model` over `kind`.
async fn sent_limit(kind: ProviderKind, model: &str, tune: impl FnOnce(&mut AgentConfig)) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "ok"}]}"#).await;
    let mut config = AgentConfig::new(model, dir.path().to_path_buf());
    tune(&mut config);
    let mut agent = Agent::new(
        client(kind, &server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap();
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    agent.run("hi", &tx, CancellationToken::new()).await;
    let body = &server.requests()[0].body;
    let field = match kind {
        ProviderKind::Openai => "max_output_tokens",
        ProviderKind::Anthropic | ProviderKind::OpenaiChat => "max_tokens",
    };
    body[field]
        .as_u64()
        .unwrap_or_else(|| panic!("no {field} in {body}"))
}

#[tokio::test]
async fn each_request_asks_for_the_models_own_output_limit_up_to_32k() {
    let cases = [
        (ProviderKind::Anthropic, "claude-sonnet-4-5", 32_000),
        (ProviderKind::Anthropic, "claude-opus-4-1", 32_000),
        (ProviderKind::Anthropic, "claude-3-5-haiku-latest", 8_192),
        (ProviderKind::Openai, "gpt-5", 32_000),
        (ProviderKind::Openai, "gpt-4.1", 32_000),
        (ProviderKind::OpenaiChat, "deepseek-reasoner", 32_000),
        (ProviderKind::OpenaiChat, "kimi-k2", 16_384),
        (ProviderKind::OpenaiChat, "my-local-model", 8_192),
    ];
    for (kind, model, expected) in cases {
        assert_eq!(sent_limit(kind, model, |_| {}).await, expected, "{model}");
    }
}

#[tokio::test]
async fn configured_limits_beat_the_models() {
    let by_prefix = |config: &mut AgentConfig| {
        config.max_output_tokens = vec![("my-local".into(), 2_048), ("claude".into(), 50_000)];
    };
    assert_eq!(
        sent_limit(ProviderKind::OpenaiChat, "my-local-model", by_prefix).await,
        2_048
    );
    assert_eq!(
        sent_limit(ProviderKind::Anthropic, "claude-sonnet-4-5", by_prefix).await,
        50_000
    );
    let scalar = |config: &mut AgentConfig| {
        by_prefix(config);
        config.max_tokens = Some(1_000);
    };
    assert_eq!(
        sent_limit(ProviderKind::Openai, "gpt-5", scalar).await,
        1_000
    );
}
