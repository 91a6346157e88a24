//! A scripted 40-turn coding session (four prompts of ten model turns: reads, searches, shell
//! lines, edits, parallel calls) run through the real agent loop against the mock's simulated
//! prompt caches. Shared by the caching tests and `benches/cache_session.rs`.

use std::path::Path;

use rein_engine::{Agent, AgentConfig};
use rein_llm::{ProviderConfig, ProviderKind};
use rein_protocol::{Event, Usage};
use rein_testkit::{MockServer, Scenario, ScenarioToolCall, ScenarioTurn};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// Prompts in the session; each gets [`TURNS_PER_PROMPT`] model turns.
pub const PROMPTS: usize = 4;
/// Model turns per prompt, the last one answering without tools.
pub const TURNS_PER_PROMPT: usize = 10;

/// What one session reported.
#[derive(Debug, Clone, Default)]
pub struct SessionReport {
    /// The model the session used.
    pub model: String,
    /// Usage of each conversation request, in order.
    pub requests: Vec<Usage>,
    /// Indices into `requests` of the first request after each compaction.
    pub after_compaction: Vec<usize>,
    /// The whole session's usage, summary requests included.
    pub totals: Usage,
    /// The whole session's cost.
    pub cost_usd: Option<f64>,
    /// Summary compactions built from the session's notes, without a model call.
    pub from_notes: usize,
    /// Summary compactions the model wrote.
    pub from_model: usize,
}

impl SessionReport {
    /// Share of all input tokens read from the cache.
    pub fn cache_read_share(&self) -> f64 {
        self.totals.cache_read_input_tokens as f64 / self.totals.total_input().max(1) as f64
    }
}

/// The model each protocol is driven with (all three are priced).
pub fn model(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Anthropic => "claude-sonnet-4-5",
        ProviderKind::Openai => "gpt-5",
        ProviderKind::OpenaiChat => "deepseek-chat",
    }
}

/// Whether the scripted model keeps the task board as it works.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notes {
    /// It does not.
    None,
    /// A task per prompt, made at its first step and updated at each edit.
    Board,
}

/// The scripted turns, the model keeping `notes`.
pub fn scenario_with(notes: Notes) -> Scenario {
    let call = |name: &str, arguments: serde_json::Value| ScenarioToolCall {
        id: None,
        name: name.to_string(),
        arguments,
    };
    let mut turns = Vec::new();
    for prompt in 0..PROMPTS {
        for step in 0..TURNS_PER_PROMPT - 1 {
            let n = (prompt * TURNS_PER_PROMPT + step) % 12;
            let path = format!("src/m{n}.rs");
            let mut tool_calls = match step % 5 {
                0 => vec![call("read_file", json!({"path": path}))],
                1 => vec![call(
                    "grep",
                    json!({"pattern": format!("fn f{n}_"), "path": "src"}),
                )],
                2 => vec![call("bash", json!({"command": format!("wc -l {path}")}))],
                3 => vec![call(
                    "edit_file",
                    json!({"path": path, "old_string": format!("// todo {n}"), "new_string": format!("// done {n} in prompt {prompt}")}),
                )],
                _ => vec![
                    call(
                        "read_file",
                        json!({"path": format!("src/m{}.rs", (n + 1) % 12)}),
                    ),
                    call("glob", json!({"pattern": "src/*.rs"})),
                ],
            };
            let id = (prompt + 1).to_string();
            match (notes, step) {
                (Notes::Board, 0) => tool_calls.push(call(
                    "task_create",
                    json!({"subject": format!("Prompt {prompt}: mark the todos done"),
                        "description": "Mark the todos in src as done and check the files."}),
                )),
                (Notes::Board, 3) => tool_calls.push(call(
                    "task_update",
                    json!({"taskId": id, "status": "in_progress", "metadata": {"edited": path}}),
                )),
                (Notes::Board, 8) => tool_calls.push(call(
                    "task_update",
                    json!({"taskId": id, "status": "completed", "metadata": {"edited": path}}),
                )),
                _ => {}
            }
            turns.push(ScenarioTurn {
                text: Some(format!(
                    "Step {step} of prompt {prompt}: looking at {path}."
                )),
                tool_calls,
                ..ScenarioTurn::default()
            });
        }
        turns.push(ScenarioTurn {
            text: Some(format!("Prompt {prompt} is done: the files are updated.")),
            ..ScenarioTurn::default()
        });
    }
    Scenario {
        turns,
        prompt_cache: true,
        summary: Some(ScenarioTurn {
            text: Some("Goal: tidy the m*.rs files. State: some todos are done.".into()),
            ..ScenarioTurn::default()
        }),
        ..Scenario::default()
    }
}

/// Writes the workspace the session works in: a dozen small source files.
pub fn workspace(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    for n in 0..12 {
        let mut text = format!("// todo {n}\n");
        for f in 0..8 {
            text.push_str(&format!(
                "pub fn f{n}_{f}(x: u32) -> u32 {{\n    x * {f} + {n}\n}}\n\n"
            ));
        }
        std::fs::write(dir.join(format!("src/m{n}.rs")), text).unwrap();
    }
}

/// Runs the session on `kind` in a fresh workspace; `context_window` small enough forces
/// summary compactions; the model keeps `notes`.
pub async fn run_with(
    kind: ProviderKind,
    context_window: Option<u64>,
    notes: Notes,
) -> SessionReport {
    let dir = tempfile::tempdir().unwrap();
    workspace(dir.path());
    let server = MockServer::start(scenario_with(notes)).await.unwrap();
    let base = match kind {
        ProviderKind::Anthropic => server.url(),
        ProviderKind::Openai | ProviderKind::OpenaiChat => server.openai_url(),
    };
    let client = rein_llm::connect(ProviderConfig::new(kind, base, Some("k".into()), "K"));
    let mut config = AgentConfig::new(model(kind), dir.path().to_path_buf());
    config.policy.mode = rein_policy::PermissionMode::Bypass;
    config.context_window = context_window;
    let mut agent = Agent::new(client, rein_tools::ToolRegistry::builtin(), config).unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut report = SessionReport {
        model: model(kind).to_string(),
        ..SessionReport::default()
    };
    for prompt in 0..PROMPTS {
        let text = format!("Prompt {prompt}: mark the todos in src as done and check the files.");
        let summary = agent.run(&text, &tx, CancellationToken::new()).await;
        assert_eq!(
            summary.outcome,
            rein_protocol::RunOutcome::Completed,
            "{kind:?}: {summary:?}"
        );
        while let Ok(event) = rx.try_recv() {
            match event {
                Event::Usage { usage, .. } => report.requests.push(usage),
                Event::Compaction {
                    trigger, source, ..
                } if trigger != "micro" => {
                    report.after_compaction.push(report.requests.len());
                    match source.as_deref() {
                        Some("notes") => report.from_notes += 1,
                        _ => report.from_model += 1,
                    }
                }
                _ => {}
            }
        }
    }
    (report.totals, report.cost_usd) = agent.session_totals();
    report
}
