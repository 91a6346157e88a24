use pretty_assertions::assert_eq;
use rein_protocol::{Event, RunOutcome};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::support::*;

const FOUR_STEPS: &str = r#"{"turns": [
  {"thinking": "Read it first.", "signature": "sig-1", "text": "Reading.",
   "tool_calls": [{"name": "read_file", "arguments": {"path": "hello.py"}}],
   "usage": {"input_tokens": 100, "output_tokens": 20}},
  {"tool_calls": [{"name": "bash", "arguments": {"command": "sed -i 's/world/rein/' hello.py"}}]},
  {"tool_calls": [{"name": "bash", "arguments": {"command": "cat hello.py"}}]},
  {"text": "Changed the greeting to rein."}
]}"#;

#[tokio::test]
async fn four_step_task_completes_on_every_protocol() {
    for kind in ALL_KINDS {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("hello.py"), "print('hello world')\n").unwrap();
        let server = mock(FOUR_STEPS).await;
        let mut agent = agent(kind, &server, dir.path());
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();

        let summary = agent.run("greet rein", &tx, CancellationToken::new()).await;

        assert_eq!(
            summary.outcome,
            RunOutcome::Completed,
            "{kind:?}: {summary:?}"
        );
        assert_eq!(summary.turns, 4);
        assert_eq!(summary.text, "Changed the greeting to rein.");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("hello.py")).unwrap(),
            "print('hello rein')\n"
        );
        let transcript = agent.transcript();
        assert_eq!(transcript.len(), 8);
        assert_transcript_valid(transcript);
        let cat = tool_results(&transcript[6]);
        assert_eq!(cat.len(), 1);
        assert!(cat[0].0.contains("print('hello rein')"), "{cat:?}");

        let requests = server.requests();
        assert_eq!(requests.len(), 4);
        let body = requests[3].body.to_string();
        assert!(
            body.contains("greet rein"),
            "{kind:?}: the prompt is re-sent"
        );
        assert!(
            body.contains("print('hello rein')"),
            "{kind:?}: tool results are sent"
        );
        assert!(
            body.contains("Working directory"),
            "{kind:?}: the system prompt is sent"
        );
        assert!(requests[0].body.to_string().contains("read_file"));

        let events = drain(&mut rx);
        assert!(matches!(events.first(), Some(Event::SessionStart { .. })));
        assert!(matches!(
            events.last(),
            Some(Event::Result {
                outcome: RunOutcome::Completed,
                turns: 4,
                ..
            })
        ));
        let starts = events
            .iter()
            .filter(|e| matches!(e, Event::ToolCallStart { .. }))
            .count();
        let ends = events
            .iter()
            .filter(|e| matches!(e, Event::ToolCallEnd { .. }))
            .count();
        assert_eq!((starts, ends), (3, 3));
    }
}

#[tokio::test]
async fn anthropic_thinking_signature_goes_back_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.py"), "print('hello world')\n").unwrap();
    let server = mock(FOUR_STEPS).await;
    let mut agent = agent(rein_llm::ProviderKind::Anthropic, &server, dir.path());
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    agent.run("go", &tx, CancellationToken::new()).await;
    let second = &server.requests()[1].body;
    let assistant = &second["messages"][1];
    assert_eq!(
        assistant["content"][0],
        json!({"type": "thinking", "thinking": "Read it first.", "signature": "sig-1"})
    );
}

#[tokio::test]
async fn max_turns_stops_a_model_that_keeps_calling_tools() {
    let dir = tempfile::tempdir().unwrap();
    let call = r#"{"tool_calls": [{"name": "bash", "arguments": {"command": "true"}}]}"#;
    let server = mock(&format!(r#"{{"turns": [{call}, {call}, {call}]}}"#)).await;
    let mut config = rein_engine::AgentConfig::new("claude-sonnet-4-5", dir.path().into());
    config.max_turns = 2;
    let client = client(rein_llm::ProviderKind::Anthropic, &server);
    let mut agent =
        rein_engine::Agent::new(client, rein_tools::ToolRegistry::builtin(), config).unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let summary = agent.run("loop", &tx, CancellationToken::new()).await;
    assert_eq!(summary.outcome, RunOutcome::MaxTurns);
    assert_eq!(summary.turns, 2);
    assert_eq!(server.requests().len(), 2);
    assert_transcript_valid(agent.transcript());
    let events = drain(&mut rx);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Error { message } if message.contains("max-turns")))
    );
}

#[tokio::test]
async fn tool_errors_go_back_to_the_model_and_the_loop_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [
            {"name": "no_such_tool", "arguments": {}},
            {"name": "bash", "arguments": {}},
            {"name": "read_file", "arguments": {"path": "missing.txt"}},
            {"name": "bash", "arguments": {"command": "exit 3"}}
          ]},
          {"text": "I see the errors."}
        ]}"#,
    )
    .await;
    let mut agent = agent(rein_llm::ProviderKind::OpenaiChat, &server, dir.path());
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let summary = agent.run("try things", &tx, CancellationToken::new()).await;
    assert_eq!(summary.outcome, RunOutcome::Completed);
    let results = tool_results(&agent.transcript()[2]);
    assert_eq!(results.len(), 4);
    assert!(results.iter().all(|(_, is_error)| *is_error), "{results:?}");
    assert!(results[0].0.contains("no_such_tool"));
    assert!(results[1].0.contains("command"));
    assert!(results[2].0.contains("missing.txt"));
    assert!(results[3].0.contains("exit code 3"));
}

#[tokio::test]
async fn provider_failure_ends_the_run_with_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [{"fault": {"http": {"status": 400,
            "body": {"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: too large"}}}}}]}"#,
    )
    .await;
    let mut agent = agent(rein_llm::ProviderKind::Anthropic, &server, dir.path());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let summary = agent.run("hi", &tx, CancellationToken::new()).await;
    assert_eq!(summary.outcome, RunOutcome::Failed);
    let error = summary.error.unwrap();
    assert!(error.message.contains("max_tokens: too large"), "{error}");
    let events = drain(&mut rx);
    assert!(matches!(
        events.last(),
        Some(Event::Result {
            outcome: RunOutcome::Failed,
            ..
        })
    ));
}

#[tokio::test]
async fn memory_files_of_folders_come_with_the_first_read_there() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("api/v2")).unwrap();
    std::fs::write(
        dir.path().join("api/AGENTS.md"),
        "API rule: never break the wire format\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("api/v2/handler.rs"), "fn handle() {}\n").unwrap();
    std::fs::write(dir.path().join("api/v2/other.rs"), "fn other() {}\n").unwrap();
    let server = mock(
        r#"{"turns": [
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "api/v2/handler.rs"}}]},
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "api/v2/other.rs"}}]},
            {"text": "ok"}
        ]}"#,
    )
    .await;
    let mut agent = agent(rein_llm::ProviderKind::Anthropic, &server, dir.path());
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    agent.run("look", &tx, CancellationToken::new()).await;
    let first = tool_results(&agent.transcript()[2]);
    assert!(
        first[0]
            .0
            .contains("[Instructions from api/AGENTS.md, for files in its folder]"),
        "{first:?}"
    );
    assert!(first[0].0.contains("never break the wire format"));
    let second = tool_results(&agent.transcript()[4]);
    assert!(!second[0].0.contains("API rule"), "shown once: {second:?}");
}

/// Every tool that touches a folder brings its memory file, as its call's facts say: a
/// search of the folder (grep, glob), a patch of a file in it, a shell line reading a file
/// in it.
#[tokio::test]
async fn memory_files_come_with_every_tool_that_touches_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let folders = ["searched", "globbed", "patched", "catted"];
    for folder in folders {
        std::fs::create_dir_all(dir.path().join(folder)).unwrap();
        std::fs::write(
            dir.path().join(format!("{folder}/AGENTS.md")),
            format!("{folder} rule: mind the folder\n"),
        )
        .unwrap();
        std::fs::write(dir.path().join(format!("{folder}/x.txt")), "old\n").unwrap();
    }
    let server = mock(
        r#"{"turns": [
            {"tool_calls": [
                {"name": "grep", "arguments": {"pattern": "old", "path": "searched"}},
                {"name": "glob", "arguments": {"pattern": "*.txt", "path": "globbed"}},
                {"name": "apply_patch", "arguments": {"patch": "*** Begin Patch\n*** Update File: patched/x.txt\n@@\n-old\n+new\n*** End Patch"}},
                {"name": "bash", "arguments": {"command": "cat catted/x.txt"}}
            ]},
            {"text": "ok"}
        ]}"#,
    )
    .await;
    let mut agent = agent(rein_llm::ProviderKind::Anthropic, &server, dir.path());
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    agent.run("look", &tx, CancellationToken::new()).await;
    let results = tool_results(&agent.transcript()[2]);
    assert_eq!(results.len(), folders.len(), "{results:?}");
    for (folder, (text, is_error)) in folders.iter().zip(&results) {
        assert!(!is_error, "{folder}: {text}");
        assert!(
            text.contains(&format!(
                "[Instructions from {folder}/AGENTS.md, for files in its folder]"
            )) && text.contains(&format!("{folder} rule: mind the folder")),
            "{folder}: {text}"
        );
    }
}

#[tokio::test]
async fn a_failed_call_does_not_use_up_a_folders_memory_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("lib")).unwrap();
    std::fs::write(
        dir.path().join("lib/AGENTS.md"),
        "lib rule: keep it small\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("lib/a.rs"), "fn a() {}\n").unwrap();
    let server = mock(
        r#"{"turns": [
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "lib/missing.rs"}}]},
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "lib/a.rs"}}]},
            {"text": "ok"}
        ]}"#,
    )
    .await;
    let mut agent = agent(rein_llm::ProviderKind::Anthropic, &server, dir.path());
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    agent.run("look", &tx, CancellationToken::new()).await;
    let failed = tool_results(&agent.transcript()[2]);
    assert!(
        failed[0].1 && !failed[0].0.contains("lib rule"),
        "{failed:?}"
    );
    let read = tool_results(&agent.transcript()[4]);
    assert!(read[0].0.contains("lib rule: keep it small"), "{read:?}");
}

#[tokio::test]
async fn a_call_with_malformed_arguments_becomes_an_error_result_and_the_run_goes_on() {
    for kind in ALL_KINDS {
        let dir = tempfile::tempdir().unwrap();
        let server = mock(
            r#"{"turns": [
              {"text": "Let me run it.",
               "tool_calls": [{"name": "bash", "arguments": "{\"command\": \"touch made"}]},
              {"tool_calls": [{"name": "bash", "arguments": {"command": "touch made"}}]},
              {"text": "fixed"}
            ]}"#,
        )
        .await;
        let mut agent = agent(kind, &server, dir.path());
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let summary = agent
            .run("go", &tx, tokio_util::sync::CancellationToken::new())
            .await;
        assert_eq!(
            summary.outcome,
            rein_protocol::RunOutcome::Completed,
            "{kind:?}"
        );
        assert_eq!(summary.text, "fixed");
        let transcript = agent.transcript();
        assert_transcript_valid(transcript);
        assert_eq!(transcript[1].text(), "Let me run it.", "{kind:?}");
        let results = tool_results(&transcript[2]);
        assert!(results[0].1, "{kind:?}");
        assert!(
            results[0].0.contains("not valid JSON") && results[0].0.contains("touch made"),
            "{kind:?}: {}",
            results[0].0
        );
        // Nothing ran from the broken call; the corrected one did.
        assert!(dir.path().join("made").exists());
        assert_eq!(server.requests().len(), 3);
    }
}

#[tokio::test]
async fn the_same_failing_call_is_reminded_at_three_and_stopped_at_six() {
    for kind in ALL_KINDS {
        let dir = tempfile::tempdir().unwrap();
        let same = r#"{"tool_calls": [{"name": "bash", "arguments": {"command": "exit 2"}}]}"#;
        let turns = [same; 7].join(",");
        let server = mock(&format!(r#"{{"turns": [{turns}, {{"text": "never"}}]}}"#)).await;
        let mut agent = agent(kind, &server, dir.path());
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let summary = agent.run("go", &tx, CancellationToken::new()).await;
        assert_eq!(summary.outcome, RunOutcome::Failed, "{kind:?}");
        let requests = server.requests();
        assert_eq!(requests.len(), 6, "{kind:?}");
        let reminded: Vec<bool> = (1..6)
            .map(|n| {
                let body = requests[n].body.to_string();
                let last_result = body
                    .rfind("exit code 2")
                    .map(|at| &body[at..])
                    .unwrap_or("");
                last_result.contains("system-reminder")
            })
            .collect();
        // The 3rd call's result (in the 4th request) carries it; none before it.
        assert_eq!(reminded, [false, false, true, false, false], "{kind:?}");
        let errors: Vec<String> = drain(&mut rx)
            .into_iter()
            .filter_map(|e| match e {
                Event::Error { message } => Some(message),
                _ => None,
            })
            .collect();
        assert!(
            errors
                .iter()
                .any(|m| m.contains("same bash call with the same result 6 times")),
            "{kind:?}: {errors:?}"
        );
    }
}
