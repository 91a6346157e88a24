//! The todo list (a view of the task board) through the loop: reported after each write, a reminder after exactly three
//! turns without an update while items are open, kept through a compaction.

use rein_protocol::{Event, RunOutcome, TodoStatus};
use tokio_util::sync::CancellationToken;

use crate::support::*;

const WRITE: &str = r#"{"tool_calls": [{"name": "todo_write", "arguments": {"todos": [
    {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
    {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
    {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"}]}}]}"#;
const LOOK: &str = r#"{"tool_calls": [{"name": "glob", "arguments": {"pattern": "*"}}]}"#;
const REMINDER: &str = "<system-reminder>The task board has not changed";

#[tokio::test]
async fn the_reminder_comes_after_exactly_three_turns_without_an_update() {
    for kind in ALL_KINDS {
        let dir = tempfile::tempdir().unwrap();
        let server = mock(&format!(
            r#"{{"turns": [{WRITE}, {LOOK}, {LOOK}, {LOOK}, {LOOK}, {{"text": "done"}}]}}"#
        ))
        .await;
        let mut agent = agent(kind, &server, dir.path());
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let summary = agent.run("fix it", &tx, CancellationToken::new()).await;
        assert_eq!(summary.outcome, RunOutcome::Completed, "{kind:?}");
        let reminded: Vec<usize> = server
            .requests()
            .iter()
            .map(|r| r.body.to_string().matches(REMINDER).count())
            .collect();
        // Turns 2-4 make no update; the 4th turn's result carries it into request 5 (and it
        // stays in the transcript after).
        assert_eq!(reminded, [0, 0, 0, 0, 1, 1], "{kind:?}");
        let body = server.requests()[4].body.to_string();
        assert!(body.contains("#2 [in_progress] Fix the bug"), "{kind:?}");
        let todos: Vec<_> = drain(&mut rx)
            .into_iter()
            .filter_map(|e| match e {
                Event::Todos { todos } => Some(todos),
                _ => None,
            })
            .collect();
        assert_eq!(todos.len(), 1, "{kind:?}");
        assert_eq!(todos[0][1].status, TodoStatus::InProgress);
        let tasks: Vec<_> = agent.tasks().into_iter().map(|t| t.subject).collect();
        assert_eq!(tasks, ["Read the code", "Fix the bug", "Run the tests"]);
    }
}

#[tokio::test]
async fn two_items_in_progress_are_refused_and_a_compaction_keeps_the_list() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(&format!(
        r#"{{"turns": [
          {{"tool_calls": [{{"name": "todo_write", "arguments": {{"todos": [
            {{"content": "a", "status": "in_progress", "activeForm": "a-ing"}},
            {{"content": "b", "status": "in_progress", "activeForm": "b-ing"}}]}}}}]}},
          {WRITE},
          {{"text": "noted"}}
        ],
        "summary": {{"text": "We were fixing a bug."}}}}"#
    ))
    .await;
    let mut agent = agent(rein_llm::ProviderKind::Anthropic, &server, dir.path());
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    // A first prompt long enough that a manual compaction is worth a request.
    let prompt = format!("plan it: {}", "the details of the bug. ".repeat(250));
    agent.run(&prompt, &tx, CancellationToken::new()).await;
    let first = tool_results(&agent.transcript()[2]);
    assert!(
        first[0].1 && first[0].0.contains("2 items are in_progress"),
        "{first:?}"
    );
    assert_eq!(agent.tasks().len(), 3);
    agent.run("more", &tx, CancellationToken::new()).await;
    agent
        .compact(
            rein_engine::CompactTrigger::Manual,
            None,
            &tx,
            &CancellationToken::new(),
        )
        .await
        .unwrap();
    let summary = agent.transcript()[0].text();
    // The list was written after everything the compaction drops: the summary is built from
    // the notes (the list and the request), without asking the model.
    assert!(summary.contains("compacted from its notes"), "{summary}");
    assert!(summary.contains("- plan it: the details"), "{summary}");
    assert!(summary.contains("#3 [pending] Run the tests"), "{summary}");
}
