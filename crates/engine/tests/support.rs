use std::path::Path;
use std::sync::Arc;

use rein_engine::{Agent, AgentConfig};
use rein_llm::{ModelClient, ProviderConfig, ProviderKind};
use rein_protocol::{ContentBlock, Event, Message, Role};
use rein_testkit::{MockServer, Scenario};
use tokio::sync::mpsc::UnboundedReceiver;

pub const ALL_KINDS: [ProviderKind; 3] = [
    ProviderKind::Anthropic,
    ProviderKind::Openai,
    ProviderKind::OpenaiChat,
];

pub async fn mock(scenario: &str) -> MockServer {
    MockServer::start(Scenario::from_json(scenario).unwrap())
        .await
        .unwrap()
}

pub fn client(kind: ProviderKind, server: &MockServer) -> Arc<dyn ModelClient> {
    let base = match kind {
        ProviderKind::Anthropic => server.url(),
        ProviderKind::Openai | ProviderKind::OpenaiChat => server.openai_url(),
    };
    let mut config = ProviderConfig::new(kind, base, Some("test-key".into()), "TEST_KEY");
    config.retry.base_delay = std::time::Duration::from_millis(1);
    rein_llm::connect(config)
}

pub fn agent(kind: ProviderKind, server: &MockServer, workspace: &Path) -> Agent {
    let model = match kind {
        ProviderKind::Anthropic => "claude-sonnet-4-5",
        ProviderKind::Openai => "gpt-5",
        ProviderKind::OpenaiChat => "qwen3-coder",
    };
    let mut config = AgentConfig::new(model, workspace.to_path_buf());
    // These tests are about the loop, not permissions: let every call run.
    config.policy.mode = rein_engine::permissions::PermissionMode::Bypass;
    Agent::new(
        client(kind, server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap()
}

pub fn drain(rx: &mut UnboundedReceiver<Event>) -> Vec<Event> {
    let mut out = Vec::new();
    while let Ok(event) = rx.try_recv() {
        out.push(event);
    }
    out
}

/// Every tool_use is answered by a tool_result in the next message, and roles alternate.
pub fn assert_transcript_valid(transcript: &[Message]) {
    for pair in transcript.windows(2) {
        assert_ne!(pair[0].role, pair[1].role, "roles must alternate");
    }
    for (i, message) in transcript.iter().enumerate() {
        let ids: Vec<&str> = message.tool_uses().map(|(id, _, _)| id).collect();
        if ids.is_empty() {
            continue;
        }
        let next = transcript
            .get(i + 1)
            .unwrap_or_else(|| panic!("tool calls {ids:?} have no results"));
        assert_eq!(next.role, Role::User);
        let answered: Vec<&str> = next
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolResult { tool_use_id, .. } => Some(tool_use_id.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(answered, ids, "results must answer the calls in order");
    }
}

pub fn tool_results(message: &Message) -> Vec<(String, bool)> {
    message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolResult {
                content, is_error, ..
            } => Some((content.clone(), *is_error)),
            _ => None,
        })
        .collect()
}
