//! Compaction from notes: when the task board was written after everything a compaction
//! drops, the summary is built from the notes without a model call; otherwise (or with a
//! focus) the model writes it.

use rein_engine::{AgentConfig, CompactTrigger};
use rein_llm::ProviderKind;
use rein_protocol::{ContentBlock, Event};
use tokio_util::sync::CancellationToken;

use crate::support::*;

fn long_request() -> String {
    format!(
        "Rename the helpers in a.txt. {}",
        "Background detail. ".repeat(400)
    )
}

async fn session(
    scenario: &str,
    window: u64,
) -> (
    rein_engine::Agent,
    rein_testkit::MockServer,
    tempfile::TempDir,
) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "old\n").unwrap();
    let server = mock(scenario).await;
    let mut config = AgentConfig::new("claude-sonnet-4-5", dir.path().to_path_buf());
    config.policy.mode = rein_policy::PermissionMode::Bypass;
    config.context_window = Some(window);
    let agent = rein_engine::Agent::new(
        client(ProviderKind::Anthropic, &server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap();
    (agent, server, dir)
}

const NOTED: &str = r#"{"turns": [
  {"tool_calls": [
    {"name": "task_create", "arguments": {"subject": "Rename the helpers", "description": "in a.txt"}},
    {"name": "write_file", "arguments": {"path": "a.txt", "content": "CONTENT"}}
  ]},
  {"text": "Renamed."},
  {"tool_calls": [{"name": "task_update", "arguments": {"taskId": "1", "status": "completed"}}]},
  {"text": "Next."}
], "summary": {"text": "A summary the model wrote."}}"#;

fn first_text(agent: &rein_engine::Agent) -> String {
    agent.transcript()[0]
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn notes_written_after_what_is_dropped_make_the_summary_without_a_model_call() {
    // A long file written: the turn that wrote it is among what is dropped.
    let noted = NOTED.replace("CONTENT", &"a new line\\n".repeat(800));
    let (mut agent, server, _dir) = session(&noted, 12_000).await;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    agent
        .run(&long_request(), &tx, CancellationToken::new())
        .await;
    agent.run("And now?", &tx, CancellationToken::new()).await;
    let requests = server.requests().len();
    drain(&mut rx);
    agent
        .compact(CompactTrigger::Manual, None, &tx, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(server.requests().len(), requests, "no model call");
    let sources: Vec<Option<String>> = drain(&mut rx)
        .into_iter()
        .filter_map(|e| match e {
            Event::Compaction { source, .. } => Some(source),
            _ => None,
        })
        .collect();
    assert_eq!(sources, [Some("notes".to_string())]);
    let summary = first_text(&agent);
    assert!(summary.contains("compacted from its notes"), "{summary}");
    assert!(
        summary.contains("- Rename the helpers in a.txt."),
        "{summary}"
    );
    assert!(summary.contains("Files changed: a.txt"), "{summary}");
    assert!(
        summary.contains("#1 [completed] Rename the helpers"),
        "{summary}"
    );
    assert_transcript_valid(agent.transcript());
}

#[tokio::test]
async fn without_notes_after_the_dropped_part_or_with_a_focus_the_model_writes_it() {
    // The board was written only before a long stretch of work: the notes miss it.
    let stale = r#"{"turns": [
      {"tool_calls": [{"name": "task_create", "arguments": {"subject": "Rename", "description": "x"}}]},
      {"text": "Planned."},
      {"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "new\n"}}]},
      {"text": "Renamed."},
      {"text": "Next."}
    ], "summary": {"text": "A summary the model wrote."}}"#;
    let (mut agent, server, _dir) = session(stale, 12_000).await;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    agent.run("Plan it.", &tx, CancellationToken::new()).await;
    agent
        .run(&long_request(), &tx, CancellationToken::new())
        .await;
    agent.run("And now?", &tx, CancellationToken::new()).await;
    let requests = server.requests().len();
    agent
        .compact(CompactTrigger::Manual, None, &tx, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(server.requests().len(), requests + 1, "the model was asked");
    assert!(first_text(&agent).contains("A summary the model wrote."));
    drain(&mut rx);

    // Notes that would cover it, but the user asked for a focus.
    let (mut agent, server, _dir) = session(NOTED, 12_000).await;
    agent
        .run(&long_request(), &tx, CancellationToken::new())
        .await;
    agent.run("And now?", &tx, CancellationToken::new()).await;
    let requests = server.requests().len();
    agent
        .compact(
            CompactTrigger::Manual,
            Some("the renames"),
            &tx,
            &CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(server.requests().len(), requests + 1, "the model was asked");
}
