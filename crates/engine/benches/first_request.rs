//! What every request carries before the conversation: the system prompt and the tool specs,
//! for the Claude tool set (edit_file/write_file) and the GPT one (apply_patch), with
//! the task board's tools, `task` and `skill` offered; budget ≤ 12 KB for the Claude set. And what a
//! catalog of 50 skills adds to it (budget ≤ 6 KB). Then the same in the lean tools profile
//! (small context windows), in bytes and in tokens by the engine's own estimator (budget
//! ≤ 1,200 tokens; 50 skills ≤ 1 KB more). Measured on the first request the mock server
//! receives. Run with `cargo bench -p rein-engine --bench first_request`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use rein_engine::commands::{Catalog, PromptCommand, SkillInfo};
use rein_engine::subagents::{Subagents, built_in};
use rein_engine::{Agent, AgentConfig};
use rein_llm::{ProviderConfig, ProviderKind};
use rein_testkit::{MockServer, Scenario};
use rein_tools::ToolsProfile;
use tokio_util::sync::CancellationToken;

const REQUEST_BUDGET: usize = 12 * 1024;
const CATALOG_BUDGET: usize = 6 * 1024;
const LEAN_TOKEN_BUDGET: u64 = 1_200;
const LEAN_CATALOG_BUDGET: usize = 1024;

fn skills(n: usize) -> Catalog {
    Catalog::new(
        (0..n)
            .map(|i| PromptCommand {
                fetched: false,
                name: format!("skill-{i:02}"),
                // As long as the catalog lets a description be.
                description: format!("Use when working on area {i}: ").repeat(4)[..100].into(),
                argument_hint: None,
                allowed_tools: Vec::new(),
                model: None,
                body: "Steps.".into(),
                source: PathBuf::from(format!("/skills/skill-{i:02}/SKILL.md")),
                skill: Some(SkillInfo {
                    dir: PathBuf::from(format!("/tmp/skills/skill-{i:02}")),
                    model_invocable: true,
                    user_invocable: true,
                }),
            })
            .collect(),
    )
}

/// Bytes of the system prompt and the tool specs of the first request.
async fn first_request(
    kind: ProviderKind,
    model: &str,
    workspace: &Path,
    catalog: Catalog,
    profile: ToolsProfile,
) -> (usize, usize, Vec<String>) {
    let server = MockServer::start(Scenario::from_json(r#"{"turns": [{"text": "ok"}]}"#).unwrap())
        .await
        .unwrap();
    let base = match kind {
        ProviderKind::Anthropic => server.url(),
        _ => server.openai_url(),
    };
    let provider = ProviderConfig::new(kind, base, Some("bench-key".into()), "BENCH_KEY");
    let mut config = AgentConfig::new(model, workspace.to_path_buf());
    config.subagents = Some(Subagents::new(built_in(None)));
    config.commands = catalog;
    config.tools_profile = profile;
    let mut agent = Agent::new(
        rein_llm::connect(provider),
        rein_tools::ToolRegistry::for_model(model),
        config,
    )
    .unwrap();
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    agent.run("hi", &tx, CancellationToken::new()).await;
    let body = &server.requests()[0].body;
    let system = match kind {
        ProviderKind::Anthropic => serde_json::to_string(&body["system"]).unwrap().len(),
        ProviderKind::Openai => serde_json::to_string(&body["instructions"]).unwrap().len(),
        ProviderKind::OpenaiChat => serde_json::to_string(&body["messages"][0]).unwrap().len(),
    };
    let tools = serde_json::to_string(&body["tools"]).unwrap().len();
    let names = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| {
            t["name"]
                .as_str()
                .or_else(|| t["function"]["name"].as_str())
        })
        .map(str::to_string)
        .collect();
    (system, tools, names)
}

/// Prints one model's figures in `profile`; whether one is over its budget.
async fn measure(kind: ProviderKind, model: &str, dir: &Path, profile: ToolsProfile) -> bool {
    let mut failed = false;
    let (system, tools, names) = first_request(kind, model, dir, skills(1), profile).await;
    let total = system + tools;
    let tokens = rein_engine::context::tokens_of(total);
    println!(
        "  {model}: system {system} B + tools {tools} B = {total} B, ~{tokens} tokens ({} tools: {})",
        names.len(),
        names.join(", ")
    );
    let over = match profile {
        ToolsProfile::Full => kind == ProviderKind::Anthropic && total > REQUEST_BUDGET,
        ToolsProfile::Lean => tokens > LEAN_TOKEN_BUDGET,
    };
    if over {
        println!("    OVER BUDGET");
        failed = true;
    }
    let (with_fifty, _, _) = first_request(kind, model, dir, skills(50), profile).await;
    let added = with_fifty - system;
    let budget = match profile {
        ToolsProfile::Full => CATALOG_BUDGET,
        ToolsProfile::Lean => LEAN_CATALOG_BUDGET,
    };
    println!("    50 skills add {added} B to the system prompt (budget {budget} B)");
    if added > budget {
        println!("    OVER BUDGET");
        failed = true;
    }
    failed
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    if std::env::args().any(|a| a == "--list") {
        println!("first_request: bench");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut failed = false;
    for profile in [ToolsProfile::Full, ToolsProfile::Lean] {
        println!("{} profile:", profile.name());
        for (kind, model) in [
            (ProviderKind::Anthropic, "claude-sonnet-4-5"),
            (ProviderKind::Openai, "gpt-5"),
        ] {
            failed |= measure(kind, model, dir.path(), profile).await;
        }
    }
    if failed {
        std::process::exit(1);
    }
}
