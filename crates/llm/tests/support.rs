//! Shared fixtures: configs pointed at the mock, a canned transcript, and a stream collector.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use rein_llm::{
    AssembledResponse, LlmError, ModelClient, ModelEvent, ModelRequest, ProviderConfig,
    ProviderKind, ResponseAssembler, RetryPolicy, connect,
};
use rein_protocol::{ContentBlock, Message, Role, ToolSpec};
use rein_testkit::{MockServer, Scenario};
use serde_json::json;

/// The env var name the test key "came from".
pub const KEY_ENV: &str = "REIN_TEST_API_KEY";

pub async fn mock(scenario: &str) -> MockServer {
    MockServer::start(Scenario::from_json(scenario).unwrap())
        .await
        .unwrap()
}

/// The base URL a provider of `kind` uses for `server`.
pub fn base_url(server: &MockServer, kind: ProviderKind) -> String {
    match kind {
        ProviderKind::Anthropic => server.url(),
        ProviderKind::Openai | ProviderKind::OpenaiChat => server.openai_url(),
    }
}

/// A config with a test key, quick retries and a 10 s idle timeout.
pub fn config(kind: ProviderKind, base_url: String) -> ProviderConfig {
    let mut config = ProviderConfig::new(kind, base_url, Some("test-key".into()), KEY_ENV);
    config.retry = RetryPolicy {
        max_attempts: 3,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_secs(5),
        max_wait: Duration::from_secs(300),
    };
    config.idle_timeout = Duration::from_secs(10);
    config
}

pub fn client(server: &MockServer, kind: ProviderKind) -> Arc<dyn ModelClient> {
    connect(config(kind, base_url(server, kind)))
}

/// What a stream produced: every event up to the end or the first error, and the outcome.
pub struct Outcome {
    pub events: Vec<ModelEvent>,
    pub result: Result<AssembledResponse, LlmError>,
}

impl Outcome {
    pub fn text(&self) -> String {
        self.events
            .iter()
            .filter_map(|e| match e {
                ModelEvent::TextDelta(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    pub fn thinking(&self) -> String {
        self.events
            .iter()
            .filter_map(|e| match e {
                ModelEvent::ThinkingDelta(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    pub fn retries(&self) -> Vec<(u32, u64, LlmError)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                ModelEvent::Retry {
                    attempt,
                    delay_ms,
                    error,
                } => Some((*attempt, *delay_ms, error.clone())),
                _ => None,
            })
            .collect()
    }

    pub fn error(self) -> LlmError {
        match self.result {
            Ok(response) => panic!("expected an error, got {response:?}"),
            Err(err) => err,
        }
    }
}

pub async fn run(client: &dyn ModelClient, request: ModelRequest) -> Outcome {
    let mut stream = client.stream(request);
    let mut events = Vec::new();
    let mut assembler = ResponseAssembler::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(event) => {
                assembler.push(&event);
                events.push(event);
            }
            Err(err) => {
                assert!(
                    stream.next().await.is_none(),
                    "the stream ends after an error"
                );
                return Outcome {
                    events,
                    result: Err(err),
                };
            }
        }
    }
    Outcome {
        events,
        result: assembler.finish(),
    }
}

/// A one-message request.
pub fn hello() -> ModelRequest {
    ModelRequest {
        model: "test-model".into(),
        system: String::new(),
        messages: vec![Message::user_text("Hello")],
        tools: vec![],
        max_tokens: 256,
        cache: Default::default(),
        effort: None,
        web_search: None,
    }
}

/// A request in the middle of a tool loop: system prompt, a tool, an earlier assistant turn
/// with signed thinking and a tool call, and the tool's result.
pub fn mid_conversation(model: &str) -> ModelRequest {
    ModelRequest {
        model: model.into(),
        system: "You are terse.".into(),
        messages: vec![
            Message::user_text("What is in a.txt?"),
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::Thinking {
                        thinking: "I should read it.".into(),
                        signature: Some("sig-earlier".into()),
                    },
                    ContentBlock::Text {
                        text: "Reading.".into(),
                    },
                    ContentBlock::ToolUse {
                        id: "call_prev".into(),
                        name: "read_file".into(),
                        input: json!({"path": "a.txt"}),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![ContentBlock::ToolResult {
                    tool_use_id: "call_prev".into(),
                    content: "1\thello".into(),
                    is_error: false,
                    media: Vec::new(),
                }],
            },
        ],
        tools: vec![read_file_spec()],
        max_tokens: 1000,
        cache: Default::default(),
        effort: None,
        web_search: None,
    }
}

pub fn read_file_spec() -> ToolSpec {
    ToolSpec {
        name: "read_file".into(),
        description: "Read a file".into(),
        input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}}).into(),
    }
}

/// A turn with reasoning, text and a tool call, streamed one byte at a time.
pub const RICH_TURN: &str = r#"{"turns": [{
    "thinking": "Let me look again.",
    "signature": "sig-new",
    "text": "Checking b.txt too.",
    "tool_calls": [{"id": "call_new", "name": "read_file", "arguments": {"path": "b€.txt"}}],
    "usage": {"input_tokens": 120, "output_tokens": 30, "cache_read_input_tokens": 40},
    "chunk_size": 1
}]}"#;
