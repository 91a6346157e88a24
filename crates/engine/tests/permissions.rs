//! Permissions in the loop: refusals reach the model as results, asks go to the approver,
//! "allow for the session" is remembered, every decision is reported.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use pretty_assertions::assert_eq;
use rein_engine::{Agent, AgentConfig, Approval, ApprovalRequest, Approver};
use rein_llm::ProviderKind;
use rein_policy::{PermissionMode, Policy, Rule, Rules, SourcedRule};
use rein_protocol::{ContentBlock, Event, PermissionVerdict};
use tokio_util::sync::CancellationToken;

use crate::support::*;

/// Answers asks from a script and records them.
struct Scripted {
    answers: Mutex<Vec<Approval>>,
    asked: Mutex<Vec<ApprovalRequest>>,
    /// How long the user thinks before each answer.
    thinking: std::time::Duration,
}

#[async_trait]
impl Approver for Scripted {
    async fn approve(&self, request: ApprovalRequest) -> Approval {
        self.asked.lock().unwrap().push(request);
        tokio::time::sleep(self.thinking).await;
        self.answers.lock().unwrap().remove(0)
    }
}

fn scripted(answers: Vec<Approval>) -> Arc<Scripted> {
    Arc::new(Scripted {
        answers: Mutex::new(answers),
        asked: Mutex::new(Vec::new()),
        thinking: std::time::Duration::ZERO,
    })
}

fn bash_turn(command: &str) -> String {
    format!(
        r#"{{"tool_calls": [{{"name": "bash", "arguments": {{"command": {}}}}}]}}"#,
        serde_json::to_string(command).unwrap()
    )
}

async fn run(turns: &[String], policy: Policy, approver: Option<Arc<Scripted>>) -> Run {
    let scenario = format!(r#"{{"turns": [{}, {{"text": "ok"}}]}}"#, turns.join(","));
    let server = mock(&scenario).await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("keep.txt"), "precious").unwrap();
    let mut config = AgentConfig::new("claude-sonnet-4-5", dir.path().to_path_buf());
    config.policy = policy;
    let mut agent = Agent::new(
        client(ProviderKind::Anthropic, &server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap();
    if let Some(approver) = approver {
        agent.set_approver(approver);
    }
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    agent.run("go", &tx, CancellationToken::new()).await;
    assert_transcript_valid(agent.transcript());
    let results = agent
        .transcript()
        .iter()
        .flat_map(|m| m.content.iter())
        .filter_map(|b| match b {
            ContentBlock::ToolResult {
                content, is_error, ..
            } => Some((content.clone(), *is_error)),
            _ => None,
        })
        .collect();
    Run {
        results,
        events: drain(&mut rx),
        kept: std::fs::read_to_string(dir.path().join("keep.txt")).ok(),
        last_request: server.requests().last().unwrap().body.to_string(),
        _dir: dir,
    }
}

struct Run {
    results: Vec<(String, bool)>,
    events: Vec<Event>,
    kept: Option<String>,
    last_request: String,
    _dir: tempfile::TempDir,
}

impl Run {
    fn decisions(&self) -> Vec<(PermissionVerdict, String)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Permission {
                    decision, reason, ..
                } => Some((*decision, reason.clone())),
                _ => None,
            })
            .collect()
    }
}

fn rules(deny: &[&str]) -> Rules {
    let root = std::path::Path::new("/");
    Rules {
        deny: deny
            .iter()
            .map(|t| SourcedRule {
                rule: Rule::parse(t, root, None).unwrap(),
                source: "test config".into(),
            })
            .collect(),
        ..Rules::default()
    }
}

#[tokio::test]
async fn headless_asks_are_refused_with_the_way_to_allow_them() {
    let run = run(&[bash_turn("rm keep.txt")], Policy::default(), None).await;
    assert_eq!(run.kept.as_deref(), Some("precious"));
    let (text, is_error) = &run.results[0];
    assert!(is_error);
    assert!(
        text.contains("needs the user's approval (mode default)"),
        "{text}"
    );
    assert!(text.contains("--allowed-tools 'Bash(rm *)'"), "{text}");
    assert_eq!(
        run.decisions(),
        [(PermissionVerdict::Ask, "mode default".to_string())]
    );
    assert!(
        run.last_request.contains("needs the user's approval"),
        "the model is told"
    );
}

#[tokio::test]
async fn read_only_calls_run_in_default_mode() {
    let run = run(&[bash_turn("cat keep.txt")], Policy::default(), None).await;
    assert_eq!(run.results[0], ("precious".to_string(), false));
    assert_eq!(
        run.decisions(),
        [(PermissionVerdict::Allow, "read-only call".to_string())]
    );
}

#[tokio::test]
async fn deny_rules_hold_even_in_bypass() {
    let policy = Policy {
        mode: PermissionMode::Bypass,
        rules: rules(&["Bash(rm *)"]),
        ..Policy::default()
    };
    let run = run(&[bash_turn("rm -f keep.txt")], policy, None).await;
    assert_eq!(run.kept.as_deref(), Some("precious"));
    assert!(
        run.results[0]
            .0
            .contains("deny rule Bash(rm *) (test config)"),
        "{:?}",
        run.results
    );
}

#[tokio::test]
async fn plan_mode_refuses_edits_and_says_why() {
    let policy = Policy {
        mode: PermissionMode::Plan,
        ..Policy::default()
    };
    let write = r#"{"tool_calls": [{"name": "write_file", "arguments": {"path": "keep.txt", "content": "x"}}]}"#;
    let run = run(&[write.to_string()], policy, None).await;
    assert_eq!(run.kept.as_deref(), Some("precious"));
    assert!(run.results[0].0.contains("plan mode"), "{:?}", run.results);
}

#[tokio::test]
async fn the_approver_decides_and_allow_for_the_session_is_remembered() {
    let approver = scripted(vec![Approval::AllowForSession]);
    let turns = [bash_turn("touch a.txt"), bash_turn("touch a.txt")];
    let run = run(&turns, Policy::default(), Some(Arc::clone(&approver))).await;
    assert_eq!(approver.asked.lock().unwrap().len(), 1, "asked once only");
    assert!(run.results.iter().all(|(_, e)| !e), "{:?}", run.results);
    let reasons: Vec<String> = run.decisions().into_iter().map(|(_, r)| r).collect();
    assert_eq!(
        reasons,
        [
            "mode default",
            "the user (for this session)",
            "allow rule Bash(touch a.txt) (allowed for this session)",
        ]
    );
    assert!(
        run.events
            .iter()
            .any(|e| matches!(e, Event::PermissionRequest { .. }))
    );
}

fn edit_turn(old: &str, new: &str) -> String {
    serde_json::json!({"tool_calls": [{"name": "edit_file", "arguments":
        {"path": "keep.txt", "old_string": old, "new_string": new}}]})
    .to_string()
}

#[tokio::test]
async fn an_edit_is_asked_with_its_diff_and_the_rule_a_session_answer_adds() {
    let approver = scripted(vec![Approval::AllowOnce]);
    let run = run(
        &[edit_turn("precious", "shiny")],
        Policy::default(),
        Some(Arc::clone(&approver)),
    )
    .await;
    let asked = approver.asked.lock().unwrap();
    let diff = "--- a/keep.txt\n+++ b/keep.txt\n@@ -1,1 +1,1 @@\n-precious\n+shiny\n";
    assert_eq!(asked[0].diff.as_deref(), Some(diff));
    assert_eq!(asked[0].session_rule.as_deref(), Some("Edit(./keep.txt)"));
    assert!(asked[0].edit);
    assert_eq!(run.kept.as_deref(), Some("shiny"));
    // The stream says the same: the question with the diff, the end with the change made.
    let requested = run.events.iter().find_map(|e| match e {
        Event::PermissionRequest { diff, .. } => diff.clone(),
        _ => None,
    });
    let ended = run.events.iter().find_map(|e| match e {
        Event::ToolCallEnd { diff, .. } => diff.clone(),
        _ => None,
    });
    assert_eq!(requested.as_deref(), Some(diff));
    assert_eq!(ended.as_deref(), Some(diff));
}

#[tokio::test]
async fn all_edits_for_the_session_switches_to_accept_edits_and_no_more() {
    let approver = scripted(vec![
        Approval::SwitchMode(PermissionMode::AcceptEdits),
        Approval::Deny { note: None },
    ]);
    let turns = [
        edit_turn("precious", "one"),
        edit_turn("one", "two"),
        bash_turn("chmod 600 made.txt"),
    ];
    let run = run(&turns, Policy::default(), Some(Arc::clone(&approver))).await;
    assert_eq!(run.kept.as_deref(), Some("two"));
    let reasons: Vec<String> = run.decisions().into_iter().map(|(_, r)| r).collect();
    assert_eq!(
        reasons,
        [
            "mode default",
            "the user (edits allowed for this session)",
            "mode accept-edits",
            "mode accept-edits",
            "the user",
        ]
    );
    // A command still asks: the answer allowed edits, nothing more.
    assert_eq!(approver.asked.lock().unwrap().len(), 2);
    assert_eq!(approver.asked.lock().unwrap()[1].tool, "bash");
}

#[tokio::test]
async fn a_mode_answer_to_a_command_allows_it_once_and_changes_no_mode() {
    let approver = scripted(vec![
        Approval::SwitchMode(PermissionMode::Bypass),
        Approval::Deny { note: None },
    ]);
    let turns = [bash_turn("touch a.txt"), bash_turn("touch b.txt")];
    let run = run(&turns, Policy::default(), Some(Arc::clone(&approver))).await;
    assert_eq!(approver.asked.lock().unwrap().len(), 2, "still asking");
    let reasons: Vec<String> = run.decisions().into_iter().map(|(_, r)| r).collect();
    assert_eq!(reasons[1], "the user (once)");
}

#[tokio::test]
async fn a_calls_time_does_not_count_the_wait_for_the_answer() {
    let approver = Arc::new(Scripted {
        answers: Mutex::new(vec![Approval::AllowOnce]),
        asked: Mutex::new(Vec::new()),
        // Far longer than a `touch` takes, even on a loaded machine.
        thinking: std::time::Duration::from_millis(1500),
    });
    let run = run(
        &[bash_turn("touch a.txt")],
        Policy::default(),
        Some(approver),
    )
    .await;
    let took = run
        .events
        .iter()
        .find_map(|e| match e {
            Event::ToolCallEnd { duration_ms, .. } => Some(*duration_ms),
            _ => None,
        })
        .expect("the call ended");
    assert!(took < 1500, "{took} ms includes the wait");
}

#[tokio::test]
async fn a_denial_with_a_note_reaches_the_model() {
    let approver = scripted(vec![Approval::Deny {
        note: Some("use git rm instead".into()),
    }]);
    let run = run(
        &[bash_turn("rm keep.txt")],
        Policy::default(),
        Some(approver),
    )
    .await;
    assert_eq!(run.kept.as_deref(), Some("precious"));
    assert_eq!(
        run.results[0],
        (
            "The user denied this call; it was not run. They said: use git rm instead".into(),
            true
        )
    );
    assert!(run.last_request.contains("use git rm instead"));
}

#[tokio::test]
async fn read_deny_rules_reach_the_guard() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("secrets")).unwrap();
    std::fs::write(dir.path().join("secrets/key.pem"), "KEY").unwrap();
    let server = mock(
        r#"{"turns": [{"tool_calls": [{"name": "read_file", "arguments": {"path": "secrets/key.pem"}},
                                      {"name": "bash", "arguments": {"command": "cat secrets/key.pem"}}]},
                      {"text": "ok"}]}"#,
    )
    .await;
    let mut config = AgentConfig::new("claude-sonnet-4-5", dir.path().to_path_buf());
    config.policy.rules = {
        let root = std::fs::canonicalize(dir.path()).unwrap();
        Rules {
            deny: vec![SourcedRule {
                rule: Rule::parse("Read(./secrets/**)", &root, None).unwrap(),
                source: "test".into(),
            }],
            ..Rules::default()
        }
    };
    let mut agent = Agent::new(
        client(ProviderKind::Anthropic, &server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap();
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    agent.run("go", &tx, CancellationToken::new()).await;
    let body = server.requests()[1].body.to_string();
    assert!(!body.contains("KEY\""), "{body}");
    assert!(body.contains("deny rule Read(./secrets/**)"), "{body}");
}

#[tokio::test]
async fn headless_refusals_suggest_only_rules_that_would_allow_the_call() {
    let cases = [
        (
            "cargo build --release",
            Some("--allowed-tools 'Bash(cargo build *)'"),
        ),
        (
            "mkdir -p out && touch out/x",
            Some("--allowed-tools 'Bash(mkdir *), Bash(touch *)'"),
        ),
        ("for f in a b; do touch $f; done", None),
        ("echo $(touch x)", None),
        ("X=1 make", None),
    ];
    for (command, expected) in cases {
        let run = run(&[bash_turn(command)], Policy::default(), None).await;
        let (text, is_error) = &run.results[0];
        assert!(is_error, "{command}: {text}");
        match expected {
            Some(rule) => assert!(text.contains(rule), "{command}: {text}"),
            None => {
                assert!(!text.contains("--allowed-tools"), "{command}: {text}");
                assert!(
                    text.contains("No narrow rule would allow it"),
                    "{command}: {text}"
                );
            }
        }
    }
}

#[tokio::test]
async fn no_and_stop_ends_the_run_without_asking_the_model_again() {
    let approver = scripted(vec![Approval::Stop]);
    let turns = [bash_turn("touch made.txt")];
    let run = run(&turns, Policy::default(), Some(Arc::clone(&approver))).await;
    let reasons: Vec<String> = run.decisions().into_iter().map(|(_, r)| r).collect();
    assert_eq!(reasons, ["mode default", "the user (turn stopped)"]);
    let outcome = run.events.iter().find_map(|e| match e {
        Event::Result { outcome, .. } => Some(*outcome),
        _ => None,
    });
    assert_eq!(outcome, Some(rein_protocol::RunOutcome::Cancelled));
    // The request that asked for the call was the last one: "ok" was never asked for.
    assert!(
        !run.last_request.contains("The user denied this call"),
        "{}",
        run.last_request
    );
    assert_eq!(run.results.len(), 1);
    assert!(
        run.results[0].0.contains("stopped the turn"),
        "{:?}",
        run.results
    );
}

/// A call whose arguments could never run is refused with what to fix, and nobody is asked
/// to approve it first.
#[tokio::test]
async fn a_call_with_invalid_arguments_is_not_put_to_the_user() {
    let approver = scripted(vec![Approval::AllowOnce]);
    let turns = [
        r#"{"tool_calls": [{"name": "write_stdin", "arguments": {"id": {"no": 1}, "chars": "x"}}]}"#
            .to_string(),
        r#"{"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt"}}]}"#.to_string(),
    ];
    let run = run(&turns, Policy::default(), Some(Arc::clone(&approver))).await;
    assert_eq!(
        approver.asked.lock().unwrap().len(),
        0,
        "asked about a call that cannot run"
    );
    assert!(
        run.results[0]
            .0
            .contains("invalid arguments for write_stdin"),
        "{:?}",
        run.results
    );
    assert!(
        run.results[1]
            .0
            .contains("invalid arguments for write_file"),
        "{:?}",
        run.results
    );
}
