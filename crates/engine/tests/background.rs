//! Background shells through the loop: the model is told when a job it started ends, once.

use rein_llm::ProviderKind;
use rein_protocol::RunOutcome;
use tokio_util::sync::CancellationToken;

use crate::support::*;

#[tokio::test]
async fn the_model_hears_at_the_next_turn_that_a_background_job_ended() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "bash",
             "arguments": {"command": "echo built > out.txt", "run_in_background": true}}]},
          {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 2"}}]},
          {"tool_calls": [{"name": "bash", "arguments": {"command": "true"}}]},
          {"text": "done"}
        ]}"#,
    )
    .await;
    let mut agent = agent(ProviderKind::Anthropic, &server, dir.path());
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let summary = agent.run("build it", &tx, CancellationToken::new()).await;
    assert_eq!(summary.outcome, RunOutcome::Completed);
    let requests = server.requests();
    let last_message = |n: usize| {
        requests[n].body["messages"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .to_string()
    };
    assert!(last_message(1).contains("started in the background as bg_1"));
    // The job ended while `sleep 2` ran: told with that batch's results, and only then.
    let told = "[background job bg_1 (`echo built > out.txt`) exited with code 0";
    assert!(last_message(2).contains(told), "{}", last_message(2));
    assert!(
        !last_message(3).contains("background job"),
        "{}",
        last_message(3)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.txt")).unwrap(),
        "built\n"
    );
}
