//! Subagents under the parent's control: permission rules name agents as Claude Code does,
//! and hooks see a subagent's calls and its end.

use rein_engine::subagents::{Subagents, built_in};
use rein_engine::{Agent, AgentConfig};
use rein_llm::ProviderKind;
use rein_policy::PermissionMode;
use rein_protocol::{Event, RunOutcome};
use serde_json::Value;

use crate::subagents::{parent, run_all, task_turn};
use crate::support::*;

#[tokio::test]
async fn rules_name_agents_as_claude_code_does() {
    use rein_policy::{Rule, SourcedRule};
    let dir = tempfile::tempdir().unwrap();
    let server = mock(&format!(
        r#"{{"turns": [{}, {{"text": "general ran"}}, {{"text": "ok"}}]}}"#,
        task_turn(&[("explore", "look"), ("general", "work")])
    ))
    .await;
    let mut agent = parent(
        ProviderKind::Anthropic,
        &server,
        dir.path(),
        PermissionMode::Default,
    );
    let deny = |text: &str| SourcedRule {
        rule: Rule::parse(text, dir.path(), None).unwrap(),
        source: "test".into(),
    };
    agent
        .policy()
        .lock()
        .unwrap()
        .rules
        .deny
        .extend([deny("Agent(explore)"), deny("Task(nobody)")]);
    let (summary, events) = run_all(&mut agent, "go").await;
    assert_eq!(summary.outcome, RunOutcome::Completed);
    let ends: Vec<(String, bool)> = events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallEnd {
                name,
                output,
                is_error,
                ..
            } if name == "task" => Some((output.clone(), *is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(ends.len(), 2);
    assert!(
        ends[0].1 && ends[0].0.contains("Agent(explore)"),
        "{ends:?}"
    );
    assert_eq!(ends[1], ("general ran".to_string(), false));
    // Only the general agent asked the model anything.
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn hooks_see_the_subagents_calls_and_its_stop() {
    use rein_engine::hooks::{HookEvent, HookSpec};
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hooks.jsonl");
    let server = mock(&format!(
        r#"{{"turns": [
          {},
          {{"tool_calls": [{{"name": "bash", "arguments": {{"command": "echo inner"}}}}]}},
          {{"text": "inner done"}},
          {{"text": "ok"}}
        ]}}"#,
        task_turn(&[("general", "run echo")])
    ))
    .await;
    let mut config = AgentConfig::new("claude-sonnet-4-5", dir.path().to_path_buf());
    config.policy.mode = PermissionMode::Bypass;
    config.subagents = Some(Subagents::new(built_in(None)));
    let append = format!("cat >> {}; echo >> {}", log.display(), log.display());
    config.hooks = [
        HookEvent::PreToolUse,
        HookEvent::SubagentStop,
        HookEvent::Stop,
    ]
    .into_iter()
    .map(|event| HookSpec {
        event,
        matcher: None,
        command: append.clone(),
        timeout: std::time::Duration::from_secs(10),
        source: "test".into(),
    })
    .collect();
    let mut agent = Agent::new(
        client(ProviderKind::Anthropic, &server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap();
    let (summary, _) = run_all(&mut agent, "go").await;
    assert_eq!(summary.outcome, RunOutcome::Completed);
    let seen: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let summary: Vec<(String, String)> = seen
        .iter()
        .map(|v| {
            (
                v["hook_event_name"].as_str().unwrap().to_string(),
                v["tool_name"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("PreToolUse".to_string(), "Agent".to_string()),
            ("PreToolUse".to_string(), "Bash".to_string()),
            ("SubagentStop".to_string(), String::new()),
            ("Stop".to_string(), String::new()),
        ]
    );
    assert_eq!(seen[0]["tool_input"]["prompt"], "run echo");
    assert_eq!(seen[2]["agent_type"], "general");
    assert_eq!(seen[2]["last_assistant_message"], "inner done");
}
