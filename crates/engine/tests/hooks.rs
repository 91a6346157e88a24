//! Hooks in the loop: PreToolUse blocks and rewrites, PostToolUse feedback, Stop continues,
//! UserPromptSubmit context and blocks — with real shell commands.

use std::time::Duration;

use pretty_assertions::assert_eq;
use rein_engine::hooks::{HookEvent, HookSpec};
use rein_engine::{Agent, AgentConfig};
use rein_llm::ProviderKind;
use rein_policy::{PermissionMode, Rule, SourcedRule};
use rein_protocol::{ContentBlock, Event, RunOutcome};
use tokio_util::sync::CancellationToken;

use crate::support::*;

fn hook(event: HookEvent, matcher: Option<&str>, command: &str) -> HookSpec {
    HookSpec {
        event,
        matcher: matcher.map(str::to_string),
        command: command.to_string(),
        timeout: Duration::from_secs(10),
        source: "test".into(),
    }
}

fn bash(command: &str) -> String {
    format!(
        r#"{{"tool_calls": [{{"name": "bash", "arguments": {{"command": {}}}}}]}}"#,
        serde_json::to_string(command).unwrap()
    )
}

struct Run {
    outcome: RunOutcome,
    results: Vec<String>,
    requests: Vec<String>,
    events: Vec<Event>,
    dir: tempfile::TempDir,
}

async fn run(
    turns: &[String],
    hooks: Vec<HookSpec>,
    configure: impl FnOnce(&mut AgentConfig),
) -> Run {
    let scenario = format!(r#"{{"turns": [{}]}}"#, turns.join(","));
    let server = mock(&scenario).await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("keep.txt"), "precious").unwrap();
    let mut config = AgentConfig::new("claude-sonnet-4-5", dir.path().to_path_buf());
    config.policy.mode = PermissionMode::Bypass;
    config.hooks = hooks;
    configure(&mut config);
    let mut agent = Agent::new(
        client(ProviderKind::Anthropic, &server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let summary = agent.run("go", &tx, CancellationToken::new()).await;
    assert_transcript_valid(agent.transcript());
    let results = agent
        .transcript()
        .iter()
        .flat_map(|m| m.content.iter())
        .filter_map(|b| match b {
            ContentBlock::ToolResult { content, .. } => Some(content.clone()),
            _ => None,
        })
        .collect();
    Run {
        outcome: summary.outcome,
        results,
        requests: server
            .requests()
            .iter()
            .map(|r| r.body.to_string())
            .collect(),
        events: drain(&mut rx),
        dir,
    }
}

#[tokio::test]
async fn a_pre_tool_use_hook_exiting_2_blocks_the_call_with_its_reason() {
    let hooks = vec![hook(
        HookEvent::PreToolUse,
        Some("Bash"),
        "grep -q '\"command\":\"rm' && { echo 'use trash instead of rm' >&2; exit 2; }; exit 0",
    )];
    let run = run(
        &[bash("rm keep.txt"), r#"{"text": "ok"}"#.into()],
        hooks,
        |_| {},
    )
    .await;
    assert!(run.dir.path().join("keep.txt").exists());
    assert_eq!(
        run.results,
        ["Blocked by a PreToolUse hook; the call was not run: use trash instead of rm"]
    );
    assert!(run.requests[1].contains("use trash instead of rm"));
}

#[tokio::test]
async fn updated_input_changes_what_runs_and_still_passes_the_rules() {
    let rewrite = r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "echo rewritten"}}}'"#;
    let run1 = run(
        &[bash("echo original"), r#"{"text": "ok"}"#.into()],
        vec![hook(HookEvent::PreToolUse, None, rewrite)],
        |_| {},
    )
    .await;
    assert_eq!(run1.results, ["rewritten\n"]);

    let to_rm = r#"echo '{"hookSpecificOutput": {"updatedInput": {"command": "rm keep.txt"}}}'"#;
    let run2 = run(
        &[bash("echo harmless"), r#"{"text": "ok"}"#.into()],
        vec![hook(HookEvent::PreToolUse, None, to_rm)],
        |config| {
            config.policy.rules.deny.push(SourcedRule {
                rule: Rule::parse("Bash(rm *)", std::path::Path::new("/"), None).unwrap(),
                source: "test".into(),
            });
        },
    )
    .await;
    assert!(
        run2.dir.path().join("keep.txt").exists(),
        "a rewrite cannot escape a deny rule"
    );
    assert!(
        run2.results[0].contains("deny rule Bash(rm *)"),
        "{:?}",
        run2.results
    );
}

#[tokio::test]
async fn a_hook_allow_answers_an_ask_but_never_a_deny() {
    let allow = r#"echo '{"hookSpecificOutput": {"permissionDecision": "allow", "permissionDecisionReason": "CI sandbox"}}'"#;
    let default_mode = |config: &mut AgentConfig| config.policy.mode = PermissionMode::Default;
    let allowed = run(
        &[bash("touch made.txt"), r#"{"text": "ok"}"#.into()],
        vec![hook(HookEvent::PreToolUse, None, allow)],
        default_mode,
    )
    .await;
    assert!(
        allowed.dir.path().join("made.txt").exists(),
        "{:?}",
        allowed.results
    );
    let reasons: Vec<String> = allowed
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Permission { reason, .. } => Some(reason.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(reasons, ["a PreToolUse hook: CI sandbox"]);

    let denied = run(
        &[bash("touch made.txt"), r#"{"text": "ok"}"#.into()],
        vec![hook(HookEvent::PreToolUse, None, allow)],
        |config| {
            config.policy.rules.deny.push(SourcedRule {
                rule: Rule::parse("Bash(touch *)", std::path::Path::new("/"), None).unwrap(),
                source: "test".into(),
            });
        },
    )
    .await;
    assert!(!denied.dir.path().join("made.txt").exists());
}

#[tokio::test]
async fn post_tool_use_feedback_reaches_the_model() {
    let hooks = vec![hook(
        HookEvent::PostToolUse,
        Some("Bash"),
        r#"echo '{"decision": "block", "reason": "lint failed: fix the warnings"}'"#,
    )];
    let run = run(
        &[bash("echo built"), r#"{"text": "ok"}"#.into()],
        hooks,
        |_| {},
    )
    .await;
    assert_eq!(
        run.results,
        ["built\n\n\n[PostToolUse hook: lint failed: fix the warnings]"]
    );
}

#[tokio::test]
async fn a_stop_hook_exiting_2_makes_the_agent_continue_once_more() {
    let hooks = vec![hook(
        HookEvent::Stop,
        None,
        "grep -q '\"stop_hook_active\":false' && { echo 'run the tests first' >&2; exit 2; }; exit 0",
    )];
    let turns = [
        r#"{"text": "done"}"#.to_string(),
        r#"{"text": "tests pass, done"}"#.to_string(),
    ];
    let run = run(&turns, hooks, |_| {}).await;
    assert_eq!(run.outcome, RunOutcome::Completed);
    assert_eq!(run.requests.len(), 2);
    assert!(run.requests[1].contains("run the tests first"));
}

#[tokio::test]
async fn a_stop_hook_that_always_blocks_cannot_loop_forever() {
    let hooks = vec![hook(HookEvent::Stop, None, "echo again >&2; exit 2")];
    let turns: Vec<String> = (0..6)
        .map(|n| format!(r#"{{"text": "try {n}"}}"#))
        .collect();
    let run = run(&turns, hooks, |_| {}).await;
    assert_eq!(run.outcome, RunOutcome::Completed);
    assert_eq!(
        run.requests.len(),
        4,
        "the first answer and three continuations"
    );
}

#[tokio::test]
async fn user_prompt_submit_hooks_add_context_or_block() {
    let context = vec![hook(
        HookEvent::UserPromptSubmit,
        None,
        "echo 'branch policy: never push'",
    )];
    let run1 = run(&[r#"{"text": "ok"}"#.into()], context, |_| {}).await;
    assert!(run1.requests[0].contains("branch policy: never push"));

    let block = vec![hook(
        HookEvent::UserPromptSubmit,
        None,
        "echo 'no secrets in prompts' >&2; exit 2",
    )];
    let run2 = run(&[r#"{"text": "ok"}"#.into()], block, |_| {}).await;
    assert_eq!(run2.outcome, RunOutcome::Failed);
    assert!(run2.requests.is_empty(), "the model never saw the prompt");
    assert!(run2.events.iter().any(
        |e| matches!(e, Event::Error { message } if message.contains("no secrets in prompts"))
    ));
}

#[tokio::test]
async fn session_start_runs_once_and_its_output_is_context() {
    let hooks = vec![hook(
        HookEvent::SessionStart,
        None,
        "echo 'open issues: #12'",
    )];
    let run = run(&[r#"{"text": "ok"}"#.into()], hooks, |_| {}).await;
    assert!(run.requests[0].contains("open issues: #12"));
    let ran = run
        .events
        .iter()
        .filter(|e| matches!(e, Event::HookRun { .. }))
        .count();
    assert_eq!(ran, 1);
}

#[tokio::test]
async fn continue_false_from_a_tool_hook_ends_the_run() {
    let hooks = vec![hook(
        HookEvent::PostToolUse,
        None,
        r#"echo '{"continue": false, "stopReason": "budget exhausted"}'"#,
    )];
    let turns = [bash("echo one"), r#"{"text": "never asked"}"#.to_string()];
    let run = run(&turns, hooks, |_| {}).await;
    assert_eq!(run.outcome, RunOutcome::Failed);
    assert_eq!(
        run.requests.len(),
        1,
        "no request after the hook stopped the session"
    );
    assert!(
        run.events
            .iter()
            .any(|e| matches!(e, Event::Error { message } if message.contains("budget exhausted")))
    );
}

#[tokio::test]
async fn pre_tool_use_hooks_see_calls_a_deny_rule_refuses() {
    let audit = "cat >> audit.jsonl; echo >> audit.jsonl";
    let run = run(
        &[bash("rm keep.txt"), r#"{"text": "ok"}"#.into()],
        vec![hook(HookEvent::PreToolUse, Some("Bash"), audit)],
        |config| {
            config.policy.rules.deny.push(SourcedRule {
                rule: Rule::parse("Bash(rm *)", std::path::Path::new("/"), None).unwrap(),
                source: "test".into(),
            });
        },
    )
    .await;
    assert!(run.dir.path().join("keep.txt").exists());
    assert!(
        run.results[0].contains("deny rule Bash(rm *)"),
        "{:?}",
        run.results
    );
    let logged = std::fs::read_to_string(run.dir.path().join("audit.jsonl")).unwrap();
    let input: serde_json::Value = serde_json::from_str(logged.trim()).unwrap();
    assert_eq!(input["tool_name"], "Bash");
    assert_eq!(input["tool_input"]["command"], "rm keep.txt");
}
