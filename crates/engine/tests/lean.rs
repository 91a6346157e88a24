//! The lean tools profile (small context windows): what the first request carries before the
//! conversation, measured on the request the mock server receives and counted with the
//! engine's own estimator.
#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment

use std::path::{Path, PathBuf};

use rein_engine::commands::{Catalog, PromptCommand, SkillInfo};
use rein_engine::subagents::{Subagents, built_in};
use rein_engine::{Agent, AgentConfig};
use rein_llm::ProviderKind;
use rein_tools::ToolsProfile;
use tokio_util::sync::CancellationToken;

use crate::support::*;

/// The issue's budget for the lean profile's fixed part.
const LEAN_FIXED_TOKENS: u64 = 1_200;

fn skills(n: usize) -> Catalog {
    Catalog::new(
        (0..n)
            .map(|i| PromptCommand {
                fetched: false,
                name: format!("skill-{i:02}"),
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

/// The system prompt and tool definitions of the first request, as sent (JSON), and the
/// names of the tools offered.
async fn fixed_part(
    kind: ProviderKind,
    workspace: &Path,
    profile: ToolsProfile,
    catalog: Catalog,
) -> (String, Vec<String>) {
    let server = mock(r#"{"turns": [{"text": "ok"}]}"#).await;
    let model = match kind {
        ProviderKind::Anthropic => "claude-sonnet-4-5",
        ProviderKind::Openai => "gpt-5",
        ProviderKind::OpenaiChat => "qwen3-coder",
    };
    let mut config = AgentConfig::new(model, workspace.to_path_buf());
    config.subagents = Some(Subagents::new(built_in(None)));
    config.commands = catalog;
    config.tools_profile = profile;
    let mut agent = Agent::new(
        client(kind, &server),
        rein_tools::ToolRegistry::for_model(model),
        config,
    )
    .unwrap();
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    agent.run("hi", &tx, CancellationToken::new()).await;
    let body = &server.requests()[0].body;
    let system = match kind {
        ProviderKind::Anthropic => &body["system"],
        ProviderKind::Openai => &body["instructions"],
        ProviderKind::OpenaiChat => &body["messages"][0],
    };
    let names = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str().or(t["function"]["name"].as_str()))
        .map(str::to_string)
        .collect();
    (format!("{system}{}", body["tools"]), names)
}

fn tokens(fixed: &str) -> u64 {
    rein_engine::context::estimate_next(&[], rein_engine::context::tokens_of(fixed.len()), None)
}

#[tokio::test]
async fn the_lean_fixed_part_is_within_1200_tokens_for_every_protocol() {
    let dir = tempfile::tempdir().unwrap();
    for kind in ALL_KINDS {
        let (lean, names) = fixed_part(kind, dir.path(), ToolsProfile::Lean, skills(1)).await;
        let (full, _) = fixed_part(kind, dir.path(), ToolsProfile::Full, skills(1)).await;
        println!(
            "{kind:?}: lean {} B (~{} tokens), full {} B (~{} tokens)",
            lean.len(),
            tokens(&lean),
            full.len(),
            tokens(&full)
        );
        if std::env::var_os("LEAN_DUMP").is_some() {
            println!("{lean}");
        }
        assert!(
            tokens(&lean) <= LEAN_FIXED_TOKENS,
            "{kind:?}: the lean fixed part is ~{} tokens ({} bytes): {lean}",
            tokens(&lean),
            lean.len()
        );
        assert!(tokens(&full) > 2 * tokens(&lean), "{kind:?}");
        let edits: &[&str] = match kind {
            ProviderKind::Openai => &["apply_patch"],
            _ => &["write_file", "edit_file"],
        };
        let expected: Vec<String> = ["bash", "read_file"]
            .iter()
            .chain(edits)
            .chain(&["glob", "grep", "skill"])
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            names, expected,
            "{kind:?}: the tools the lean profile offers"
        );
    }
}

#[tokio::test]
async fn the_lean_skill_list_is_capped() {
    let dir = tempfile::tempdir().unwrap();
    let kind = ProviderKind::Anthropic;
    let (one, _) = fixed_part(kind, dir.path(), ToolsProfile::Lean, skills(1)).await;
    let (fifty, _) = fixed_part(kind, dir.path(), ToolsProfile::Lean, skills(50)).await;
    let added = fifty.len() - one.len();
    // The list's own cap, and JSON escaping of its line breaks.
    assert!(
        added <= rein_engine::commands::LEAN_CATALOG_CAP + 100,
        "50 skills add {added} bytes"
    );
    assert!(fifty.contains("more, by name"), "{fifty}");
}
