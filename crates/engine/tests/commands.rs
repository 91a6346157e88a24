//! Custom commands and skills through the loop: `/name args` expands (arguments, `!` lines
//! through the gate, `@path` through the guard) and the model loads a real skill with the
//! `skill` tool, on every protocol.

use rein_engine::{Agent, AgentConfig};
use rein_protocol::RunOutcome;
use tokio_util::sync::CancellationToken;

use crate::support::*;

fn agent_with(
    kind: rein_llm::ProviderKind,
    server: &rein_testkit::MockServer,
    workspace: &std::path::Path,
    catalog: rein_engine::commands::Catalog,
    bypass: bool,
) -> Agent {
    let model = match kind {
        rein_llm::ProviderKind::Anthropic => "claude-sonnet-4-5",
        rein_llm::ProviderKind::Openai => "gpt-5",
        rein_llm::ProviderKind::OpenaiChat => "qwen3-coder",
    };
    let mut config = AgentConfig::new(model, workspace.to_path_buf());
    if bypass {
        config.policy.mode = rein_policy::PermissionMode::Bypass;
    }
    config.commands = catalog;
    Agent::new(
        client(kind, server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap()
}

#[tokio::test]
async fn a_command_expands_its_arguments_shell_lines_and_files() {
    for kind in ALL_KINDS {
        let ws = tempfile::tempdir().unwrap();
        let commands = ws.path().join("commands");
        std::fs::create_dir(&commands).unwrap();
        std::fs::write(
            commands.join("fix.md"),
            "---\ndescription: fix an issue\nallowed-tools: Bash(touch:*)\n---\n\
             Fix issue $1 in $2.\nBranch: !`echo branch-$1`\n!`touch made-$1.txt`\n\
             Notes: @notes.txt\n",
        )
        .unwrap();
        std::fs::write(ws.path().join("notes.txt"), "THE NOTES").unwrap();
        let catalog = rein_engine::commands::load(
            std::slice::from_ref(&commands),
            &[],
            &own_roots(&commands),
        )
        .catalog;
        let server = mock(r#"{"turns": [{"text": "on it"}]}"#).await;
        // Default mode and nobody to ask: only the command's allowed-tools let `touch` run.
        let mut agent = agent_with(kind, &server, ws.path(), catalog, false);
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let summary = agent
            .run("/fix 42 parser", &tx, CancellationToken::new())
            .await;
        assert_eq!(summary.outcome, RunOutcome::Completed, "{kind:?}");
        let body = server.requests()[0].body.to_string();
        for expected in [
            "<command-name>/fix</command-name>",
            "Fix issue 42 in parser.",
            "Branch: branch-42",
            "THE NOTES",
        ] {
            assert!(body.contains(expected), "{kind:?}: {expected} in {body}");
        }
        assert!(!body.contains("!`"), "{kind:?}: {body}");
        assert!(ws.path().join("made-42.txt").exists(), "{kind:?}");
    }
}

#[tokio::test]
async fn a_command_cannot_lift_a_deny_rule_or_reach_outside_the_workspace() {
    let ws = tempfile::tempdir().unwrap();
    let commands = ws.path().join("commands");
    std::fs::create_dir(&commands).unwrap();
    std::fs::write(
        commands.join("wipe.md"),
        "---\nallowed-tools: Bash\n---\n!`touch gone.txt`\nKey: @/etc/passwd\n",
    )
    .unwrap();
    let catalog =
        rein_engine::commands::load(std::slice::from_ref(&commands), &[], &own_roots(&commands))
            .catalog;
    let server = mock(r#"{"turns": [{"text": "ok"}]}"#).await;
    let mut config = AgentConfig::new("claude-sonnet-4-5", ws.path().to_path_buf());
    config.commands = catalog;
    config.policy.rules.deny.push(rein_policy::SourcedRule {
        rule: rein_policy::Rule::parse("Bash(touch *)", ws.path(), None).unwrap(),
        source: "test".into(),
    });
    let mut agent = Agent::new(
        client(rein_llm::ProviderKind::Anthropic, &server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap();
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    agent.run("/wipe", &tx, CancellationToken::new()).await;
    assert!(!ws.path().join("gone.txt").exists());
    let body = server.requests()[0].body.to_string();
    assert!(body.contains("deny rule"), "{body}");
    assert!(!body.contains("root:x:0"), "{body}");
    assert!(body.contains("was not included"), "{body}");
}

#[tokio::test]
async fn the_model_loads_a_real_skill_and_reads_its_files() {
    let Some(skills) = rein_testkit::conformance_dir("agent-files/skills").unwrap() else {
        return;
    };
    let catalog =
        rein_engine::commands::load(&[], std::slice::from_ref(&skills), &own_roots(&skills))
            .catalog;
    let dir = skills.join("obra__superpowers__systematic-debugging");
    let sibling = dir.join("root-cause-tracing.md");
    let first_line = std::fs::read_to_string(&sibling)
        .unwrap()
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap()
        .to_string();
    for kind in ALL_KINDS {
        let ws = tempfile::tempdir().unwrap();
        let scenario = serde_json::json!({"turns": [
            {"tool_calls": [{"name": "skill", "arguments": {"name": "systematic-debugging"}}]},
            {"tool_calls": [{"name": "read_file", "arguments": {"path": sibling.display().to_string()}}]},
            {"text": "found it"}
        ]});
        let server = mock(&scenario.to_string()).await;
        let mut agent = agent_with(kind, &server, ws.path(), catalog.clone(), true);
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let summary = agent
            .run("the test fails", &tx, CancellationToken::new())
            .await;
        assert_eq!(summary.outcome, RunOutcome::Completed, "{kind:?}");
        let requests = server.requests();
        let first = requests[0].body.to_string();
        assert!(first.contains("# Skills"), "{kind:?}");
        assert!(
            first.contains("- systematic-debugging: Use when encountering any bug"),
            "{kind:?}"
        );
        assert!(
            !first.contains("- claude-security:"),
            "{kind:?}: the user's only"
        );
        let results = tool_results(&agent.transcript()[2]);
        assert!(!results[0].1, "{kind:?}: {results:?}");
        assert!(
            results[0].0.contains("# Systematic Debugging"),
            "{kind:?}: {results:?}"
        );
        assert!(
            results[0].0.contains(&sibling.display().to_string()),
            "{kind:?}"
        );
        let read = tool_results(&agent.transcript()[4]);
        assert!(!read[0].1, "{kind:?}: {read:?}");
        assert!(read[0].0.contains(first_line.trim()), "{kind:?}: {read:?}");
    }
}

/// Serves every model with one client.
struct OneClient(std::sync::Arc<dyn rein_llm::ModelClient>);

impl rein_engine::subagents::ModelSource for OneClient {
    fn client_for(
        &self,
        model: &str,
    ) -> Result<(String, std::sync::Arc<dyn rein_llm::ModelClient>), rein_engine::FrontEndError>
    {
        Ok((model.to_string(), std::sync::Arc::clone(&self.0)))
    }
}

#[tokio::test]
async fn a_commands_model_answers_its_run_only() {
    let ws = tempfile::tempdir().unwrap();
    let commands = ws.path().join("commands");
    std::fs::create_dir(&commands).unwrap();
    std::fs::write(
        commands.join("quick.md"),
        "---\nmodel: claude-haiku-4-5\n---\nAnswer briefly.\n",
    )
    .unwrap();
    let catalog =
        rein_engine::commands::load(std::slice::from_ref(&commands), &[], &own_roots(&commands))
            .catalog;
    let server = mock(r#"{"turns": [{"text": "long"}]}"#).await;
    let other = mock(r#"{"turns": [{"text": "short"}]}"#).await;
    let mut config = AgentConfig::new("claude-sonnet-4-5", ws.path().to_path_buf());
    config.commands = catalog;
    let mut subagents = rein_engine::subagents::Subagents::new(Vec::new());
    subagents.models = Some(std::sync::Arc::new(OneClient(client(
        rein_llm::ProviderKind::Anthropic,
        &other,
    ))));
    config.subagents = Some(subagents);
    let mut agent = Agent::new(
        client(rein_llm::ProviderKind::Anthropic, &server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap();
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let summary = agent.run("/quick", &tx, CancellationToken::new()).await;
    assert_eq!(summary.text, "short");
    assert_eq!(other.requests()[0].body["model"], "claude-haiku-4-5");
    assert_eq!(agent.model(), "claude-sonnet-4-5", "back after the run");
    agent.run("and now?", &tx, CancellationToken::new()).await;
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].body["model"], "claude-sonnet-4-5");
}

/// `dir` as the one root prompt files are read from.
fn own_roots(dir: &std::path::Path) -> rein_tools::PromptFiles {
    rein_tools::PromptFiles::new([dir.to_path_buf()], rein_tools::SensitivePaths::default())
}
