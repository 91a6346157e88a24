use std::time::Duration;

use rein_protocol::{Event, RunOutcome};
use tokio_util::sync::CancellationToken;

use crate::support::*;

#[tokio::test]
async fn cancel_during_a_tool_call_interrupts_it_and_answers_every_call() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [
            {"name": "bash", "arguments": {"command": "echo started; sleep 30"}},
            {"name": "bash", "arguments": {"command": "touch never-created"}}
          ]},
          {"text": "unreachable"}
        ]}"#,
    )
    .await;
    let mut agent = agent(rein_llm::ProviderKind::Anthropic, &server, dir.path());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let watcher = tokio::spawn(async move {
        let mut seen = Vec::new();
        while let Some(event) = rx.recv().await {
            // Cancelled once the command is running: its first output has arrived.
            if matches!(event, Event::ToolOutputDelta { .. }) {
                trigger.cancel();
            }
            seen.push(event);
        }
        seen
    });

    let summary = tokio::time::timeout(Duration::from_secs(10), agent.run("sleep", &tx, cancel))
        .await
        .expect("cancellation must end the run promptly");
    drop(tx);

    assert_eq!(summary.outcome, RunOutcome::Cancelled);
    assert_eq!(server.requests().len(), 1);
    assert!(!dir.path().join("never-created").exists());
    let transcript = agent.transcript();
    assert_eq!(transcript.len(), 3);
    assert_transcript_valid(transcript);
    let results = tool_results(&transcript[2]);
    assert!(results.iter().all(|(_, is_error)| *is_error));
    assert!(
        results[0].0.to_lowercase().contains("interrupt"),
        "{results:?}"
    );
    assert!(
        results[1]
            .0
            .contains("cancelled the turn before this tool call ran")
    );
    let events = watcher.await.unwrap();
    assert!(matches!(
        events.last(),
        Some(Event::Result {
            outcome: RunOutcome::Cancelled,
            ..
        })
    ));
}

#[tokio::test]
async fn cancel_while_the_model_streams_keeps_the_transcript_valid() {
    let dir = tempfile::tempdir().unwrap();
    let server =
        mock(r#"{"turns": [{"text": "partial answer", "fault": {"hang_after": {"events": 4}}}]}"#)
            .await;
    let mut agent = agent(rein_llm::ProviderKind::Anthropic, &server, dir.path());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    // Cancelled once the stream has really started: the first text has arrived.
    let watcher = tokio::spawn(async move {
        let mut streamed = false;
        while let Some(event) = rx.recv().await {
            if matches!(event, Event::TextDelta { .. }) && !streamed {
                streamed = true;
                trigger.cancel();
            }
        }
        streamed
    });
    let summary = tokio::time::timeout(Duration::from_secs(10), agent.run("talk", &tx, cancel))
        .await
        .expect("cancellation must end the run promptly");
    drop(tx);
    assert!(watcher.await.unwrap(), "the stream never started");
    assert_eq!(summary.outcome, RunOutcome::Cancelled);
    assert_transcript_valid(agent.transcript());
}
