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
    config.policy.mode = rein_policy::PermissionMode::Bypass;
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

/// Claude Code's recorded hook input `name` (`PostToolUse-Bash`), from
/// `<repo>/../shared/conformance/claude-hooks/`. `None` when that folder is absent: the caller
/// skips its test, and a `SKIPPED:` line says so on the terminal. With `CI=true` an absent
/// fixture fails instead, so CI never passes without checking.
pub fn claude_hook_fixture(name: &str) -> Option<serde_json::Value> {
    rein_testkit::conformance_file(&format!("claude-hooks/{name}.json"))
        .unwrap()
        .map(|text| serde_json::from_str(&text).unwrap())
}

/// How `actual` differs in shape from `expected`, one line per difference naming its path
/// (`tool_response.file.numLines`): a key missing or extra, a value of another JSON type, or —
/// for the dotted paths in `exact` — another value. Other values are compared by type only
/// (ids, paths, durations differ from machine to machine). Arrays compare each element with the
/// expected array's first. Keys in `optional` may be absent; top-level keys starting with
/// `rein_` are rein's additions and may be present.
pub fn shape_differences(
    actual: &serde_json::Value,
    expected: &serde_json::Value,
    exact: &[&str],
    optional: &[&str],
) -> Vec<String> {
    let mut out = Vec::new();
    compare_shape("", actual, expected, exact, optional, &mut out);
    out
}

fn compare_shape(
    path: &str,
    actual: &serde_json::Value,
    expected: &serde_json::Value,
    exact: &[&str],
    optional: &[&str],
    out: &mut Vec<String>,
) {
    use serde_json::Value;
    let kind = |v: &Value| match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let at = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    if exact.contains(&path) && actual != expected {
        out.push(format!("{path}: {actual} instead of {expected}"));
        return;
    }
    match (actual, expected) {
        (Value::Object(a), Value::Object(e)) => {
            for (key, want) in e {
                match a.get(key) {
                    Some(got) => compare_shape(&at(key), got, want, exact, optional, out),
                    None if optional.contains(&at(key).as_str()) => {}
                    None => out.push(format!("{}: missing", at(key))),
                }
            }
            for key in a.keys().filter(|k| !e.contains_key(*k)) {
                if !(path.is_empty() && key.starts_with("rein_")) {
                    out.push(format!("{}: not in Claude Code's input", at(key)));
                }
            }
        }
        (Value::Array(a), Value::Array(e)) => {
            if let Some(first) = e.first() {
                for (i, got) in a.iter().enumerate() {
                    compare_shape(&format!("{path}[{i}]"), got, first, exact, optional, out);
                }
            }
        }
        (a, e) if kind(a) != kind(e) => {
            out.push(format!(
                "{path}: a {} ({a}) instead of a {}",
                kind(a),
                kind(e)
            ));
        }
        _ => {}
    }
}

/// The tool names a recorded request offers, whatever its protocol.
pub fn offered(body: &serde_json::Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            t["name"]
                .as_str()
                .or_else(|| t["function"]["name"].as_str())
                .map(str::to_string)
        })
        .collect()
}

/// Agents of new sessions on the mock server; no stored sessions; Claude models only.
pub struct Factory {
    pub server: MockServer,
    pub workspace: std::path::PathBuf,
}

impl rein_engine::AgentFactory for Factory {
    fn new_session(&self) -> Result<Agent, rein_engine::ControlError> {
        Ok(agent(
            ProviderKind::Anthropic,
            &self.server,
            &self.workspace,
        ))
    }

    fn resume(&self, id: &str) -> Result<Agent, rein_engine::ControlError> {
        Err(rein_engine::ControlError::Session(
            format!("no stored session {id}").into(),
        ))
    }

    fn fork(
        &self,
        from: &str,
        _: Vec<rein_protocol::Message>,
    ) -> Result<Agent, rein_engine::ControlError> {
        Err(rein_engine::ControlError::Session(
            format!("no stored session {from}").into(),
        ))
    }

    fn switch_model(
        &self,
        agent: &mut Agent,
        model: &str,
    ) -> Result<(), rein_engine::ControlError> {
        if model.starts_with("claude") {
            agent.set_model(model, client(ProviderKind::Anthropic, &self.server));
            Ok(())
        } else {
            Err(rein_engine::ControlError::Model(
                format!("unknown model {model}").into(),
            ))
        }
    }
}
