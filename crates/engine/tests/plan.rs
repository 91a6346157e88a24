//! Plan mode's way out on every protocol: `exit_plan_mode` is offered only in plan mode, the
//! user approves the plan and picks the mode the work goes on in, or sends the model back to
//! planning with feedback; with nobody to ask, the plan is the run's answer.

use std::sync::{Arc, Mutex};

use rein_engine::{Agent, AgentConfig, Approval, ApprovalRequest, Approver};
use rein_policy::PermissionMode;
use rein_protocol::RunOutcome;
use tokio_util::sync::CancellationToken;

use crate::support::*;

/// Answers every question with `answer`, keeping the questions.
struct Answering {
    answer: Approval,
    asked: Mutex<Vec<ApprovalRequest>>,
}

#[async_trait::async_trait]
impl Approver for Answering {
    async fn approve(&self, request: ApprovalRequest) -> Approval {
        self.asked.lock().unwrap().push(request);
        self.answer.clone()
    }
}

const PLAN: &str = "# Plan\\n1. Write notes.txt";

fn plan_mode_agent(
    kind: rein_llm::ProviderKind,
    server: &rein_testkit::MockServer,
    dir: &std::path::Path,
) -> Agent {
    let model = match kind {
        rein_llm::ProviderKind::Anthropic => "claude-sonnet-4-5",
        rein_llm::ProviderKind::Openai => "gpt-5",
        rein_llm::ProviderKind::OpenaiChat => "qwen3-coder",
    };
    let mut config = AgentConfig::new(model, dir.to_path_buf());
    config.policy.mode = PermissionMode::Plan;
    Agent::new(
        client(kind, server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap()
}

fn write_call() -> String {
    r#"{"tool_calls": [{"name": "write_file", "arguments": {"path": "notes.txt", "content": "hi\n"}}]}"#
        .to_string()
}

#[tokio::test]
async fn an_approved_plan_switches_the_mode_and_the_work_goes_on() {
    for kind in ALL_KINDS {
        let dir = tempfile::tempdir().unwrap();
        let server = mock(&format!(
            r#"{{"turns": [
              {},
              {{"tool_calls": [{{"name": "exit_plan_mode", "arguments": {{"plan": "{PLAN}"}}}}]}},
              {},
              {{"text": "done"}}
            ]}}"#,
            write_call(),
            write_call()
        ))
        .await;
        let mut agent = plan_mode_agent(kind, &server, dir.path());
        let approver = Arc::new(Answering {
            answer: Approval::SwitchMode(PermissionMode::AcceptEdits),
            asked: Mutex::default(),
        });
        agent.set_approver(approver.clone());
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let summary = agent.run("plan it", &tx, CancellationToken::new()).await;
        assert_eq!(summary.outcome, RunOutcome::Completed, "{kind:?}");
        let asked = approver.asked.lock().unwrap();
        assert_eq!(asked.len(), 1, "{kind:?}: only the plan asks");
        assert_eq!(asked[0].tool, "exit_plan_mode");
        assert!(
            asked[0].input["plan"]
                .as_str()
                .unwrap()
                .contains("Write notes.txt")
        );
        assert_eq!(
            agent.policy().lock().unwrap().mode,
            PermissionMode::AcceptEdits,
            "{kind:?}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(),
            "hi\n",
            "{kind:?}: the write after approval ran"
        );
        let requests = server.requests();
        assert!(offered(&requests[0].body).contains(&"exit_plan_mode".to_string()));
        // Out of plan mode, the tool is not offered any more.
        assert!(
            !offered(&requests[3].body).contains(&"exit_plan_mode".to_string()),
            "{kind:?}"
        );
        let approved = requests[2].body.to_string();
        assert!(approved.contains("The user approved your plan"), "{kind:?}");
        assert!(approved.contains("The permission mode is now accept-edits"));
    }
}

#[tokio::test]
async fn feedback_keeps_planning_and_without_a_reviewer_the_plan_is_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(&format!(
        r#"{{"turns": [
          {{"tool_calls": [{{"name": "exit_plan_mode", "arguments": {{"plan": "{PLAN}"}}}}]}},
          {{"text": "revising"}}
        ]}}"#
    ))
    .await;
    let mut agent = plan_mode_agent(rein_llm::ProviderKind::Anthropic, &server, dir.path());
    agent.set_approver(Arc::new(Answering {
        answer: Approval::Deny {
            note: Some("keep the API".into()),
        },
        asked: Mutex::default(),
    }));
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    agent.run("plan it", &tx, CancellationToken::new()).await;
    assert_eq!(agent.policy().lock().unwrap().mode, PermissionMode::Plan);
    let body = server.requests()[1].body.to_string();
    assert!(body.contains("did not approve the plan"), "{body}");
    assert!(body.contains("Their feedback: keep the API"), "{body}");

    for kind in ALL_KINDS {
        let dir = tempfile::tempdir().unwrap();
        let server = mock(&format!(
            r#"{{"turns": [{{"text": "Let me look.", "tool_calls": [{{"name": "exit_plan_mode", "arguments": {{"plan": "{PLAN}"}}}}]}}]}}"#
        ))
        .await;
        let mut agent = plan_mode_agent(kind, &server, dir.path());
        let summary = agent.run("plan it", &tx, CancellationToken::new()).await;
        assert_eq!(summary.outcome, RunOutcome::Completed, "{kind:?}");
        assert_eq!(summary.text, "# Plan\n1. Write notes.txt", "{kind:?}");
        assert_transcript_valid(agent.transcript());
    }
}
