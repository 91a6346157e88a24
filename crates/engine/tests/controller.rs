//! The session controller driven as a front end drives it: ops in, events and job ends out.

use std::sync::Arc;

use rein_engine::{
    Agent, Applied, Approval, ControlError, Controller, EndReason, Op, SessionStatus,
};
use rein_llm::ProviderKind;
use rein_policy::PermissionMode;
use rein_protocol::{Event, RunOutcome};
use tokio::sync::mpsc::UnboundedReceiver;

use crate::support::*;

async fn result_of(events: &mut UnboundedReceiver<Event>) -> (RunOutcome, String) {
    while let Some(event) = events.recv().await {
        if let Event::Result { outcome, text, .. } = event {
            return (outcome, text);
        }
    }
    panic!("the run ended without a Result event");
}

#[tokio::test]
async fn ops_run_prompts_switch_settings_and_replace_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi > made.txt"}}]},
          {"text": "made it"},
          {"text": "second session"}
        ]}"#,
    )
    .await;
    let first = agent(ProviderKind::Anthropic, &server, dir.path());
    let first_id = first.session_id().to_string();
    let factory = Arc::new(Factory {
        server,
        workspace: dir.path().to_path_buf(),
    });
    let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let mut controller = Controller::new(first, factory.clone(), tx, None);

    // A prompt is a background job that ends with its Result.
    controller
        .apply(Op::Submit("make a file".into()))
        .await
        .unwrap();
    assert_eq!(
        result_of(&mut events).await,
        (RunOutcome::Completed, "made it".to_string())
    );
    assert!(dir.path().join("made.txt").exists());
    assert_eq!(controller.transcript().await.len(), 4);

    // Settings: a mode, a refused model, a usable one, auto without a sandbox.
    controller
        .apply(Op::SetMode(PermissionMode::Plan))
        .await
        .unwrap();
    let refused = controller.apply(Op::SetModel("gpt-9".into())).await;
    assert_eq!(
        refused.unwrap_err(),
        ControlError::Model("unknown model gpt-9".into())
    );
    let Applied::Status(status) = controller
        .apply(Op::SetModel("claude-opus-4-1".into()))
        .await
        .unwrap()
    else {
        panic!("a model switch reports the new status");
    };
    assert_eq!(status.model, "claude-opus-4-1");
    assert!(!controller.sandboxed());
    assert_eq!(
        controller
            .apply(Op::SetMode(PermissionMode::Auto))
            .await
            .unwrap_err(),
        ControlError::NoSandbox
    );
    assert_eq!(controller.status().await.mode, PermissionMode::Plan);

    // A stored session the factory cannot give leaves the current one in place.
    let missing = controller.apply(Op::Resume("nope".into())).await;
    assert!(
        matches!(missing, Err(ControlError::Session(_))),
        "{missing:?}"
    );
    assert_eq!(controller.status().await.session_id, first_id);

    // A new session: another id, an empty transcript, the mode and model carried over.
    let Applied::Status(SessionStatus {
        session_id,
        model,
        mode,
        ..
    }) = controller.apply(Op::NewSession).await.unwrap()
    else {
        panic!("a new session reports its status");
    };
    assert_ne!(session_id, first_id);
    assert_eq!(model, "claude-opus-4-1");
    assert_eq!(mode, PermissionMode::Plan);
    assert!(controller.transcript().await.is_empty());

    // Compacting an empty transcript fails, and says so in the event that ends the job.
    controller.apply(Op::Compact { focus: None }).await.unwrap();
    let ended = loop {
        if let Some(Event::CompactionEnd { error }) = events.recv().await {
            break error;
        }
    };
    assert!(
        ended.is_some_and(|e| e.starts_with("nothing to compact")),
        "the compaction failed"
    );

    controller.apply(Op::Submit("again".into())).await.unwrap();
    assert_eq!(
        result_of(&mut events).await,
        (RunOutcome::Completed, "second session".to_string())
    );
    controller
        .apply(Op::Shutdown(EndReason::Other))
        .await
        .unwrap();
}

#[tokio::test]
async fn cancel_ends_the_running_prompt_and_the_next_one_runs() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "bash", "arguments": {"command": "echo started; sleep 30"}}]},
          {"text": "after the cancel"}
        ]}"#,
    )
    .await;
    let first = agent(ProviderKind::Anthropic, &server, dir.path());
    let factory = Arc::new(Factory {
        server,
        workspace: dir.path().to_path_buf(),
    });
    let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let mut controller = Controller::new(first, factory, tx, None);
    controller.apply(Op::Submit("sleep".into())).await.unwrap();
    while let Some(event) = events.recv().await {
        if matches!(event, Event::ToolOutputDelta { .. }) {
            break;
        }
    }
    controller.apply(Op::Cancel).await.unwrap();
    assert_eq!(result_of(&mut events).await.0, RunOutcome::Cancelled);
    controller.apply(Op::Submit("go on".into())).await.unwrap();
    assert_eq!(
        result_of(&mut events).await,
        (RunOutcome::Completed, "after the cancel".to_string())
    );
}

#[tokio::test]
async fn background_work_is_listed_and_stopped_while_the_agent_is_busy() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "bash",
             "arguments": {"command": "sleep 60", "run_in_background": true}}]},
          {"tool_calls": [{"name": "bash", "arguments": {"command": "echo waiting; sleep 30"}}]},
          {"text": "stopped"}
        ]}"#,
    )
    .await;
    let first = agent(ProviderKind::Anthropic, &server, dir.path());
    let factory = Arc::new(Factory {
        server,
        workspace: dir.path().to_path_buf(),
    });
    let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let mut controller = Controller::new(first, factory, tx, None);
    assert!(controller.tasks().is_empty());
    controller
        .apply(Op::Submit("start it".into()))
        .await
        .unwrap();
    // The second command is running: the agent is busy.
    while let Some(event) = events.recv().await {
        if matches!(event, Event::ToolOutputDelta { .. }) {
            break;
        }
    }
    let tasks = controller.tasks();
    assert_eq!(tasks.len(), 1, "{tasks:?}");
    assert_eq!((tasks[0].id.as_str(), tasks[0].running), ("bg_1", true));
    assert_eq!(tasks[0].label, "sleep 60");
    let stopped = controller.apply(Op::StopTask("bg_1".into())).await.unwrap();
    assert!(
        matches!(&stopped, Applied::Said(said) if said == "bg_1 killed"),
        "{stopped:?}"
    );
    assert_eq!(controller.tasks()[0].status, "killed");
    let unknown = controller.apply(Op::StopTask("agent_7".into())).await;
    assert_eq!(
        unknown.unwrap_err(),
        ControlError::Task("there is no background agent agent_7".into())
    );
    controller.apply(Op::Cancel).await.unwrap();
    assert_eq!(result_of(&mut events).await.0, RunOutcome::Cancelled);
}

#[tokio::test]
async fn permission_questions_are_answered_with_ops_also_from_a_subagent() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "bash", "arguments": {"command": "touch by-parent"}}]},
          {"tool_calls": [{"name": "task", "arguments": {"description": "d", "prompt": "p"}}]},
          {"when": "You are a subagent of rein",
           "tool_calls": [{"name": "bash", "arguments": {"command": "touch by-sub"}}]},
          {"when": "You are a subagent of rein", "text": "sub refused"},
          {"text": "finished"}
        ]}"#,
    )
    .await;
    let mut config = rein_engine::AgentConfig::new("claude-sonnet-4-5", dir.path().to_path_buf());
    config.subagents = Some(rein_engine::subagents::Subagents::new(
        rein_engine::subagents::built_in(None),
    ));
    let first = Agent::new(
        client(ProviderKind::Anthropic, &server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap();
    let factory = Arc::new(Factory {
        server,
        workspace: dir.path().to_path_buf(),
    });
    let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let mut controller = Controller::answering(first, factory, tx);
    assert_eq!(
        controller
            .apply(Op::Answer {
                id: "nothing".into(),
                approval: Approval::AllowOnce
            })
            .await
            .unwrap_err(),
        ControlError::NoQuestion("nothing".into())
    );
    controller.apply(Op::Submit("go".into())).await.unwrap();
    let mut asked = Vec::new();
    let outcome = loop {
        let event = events.recv().await.unwrap();
        let (request, from) = match event {
            Event::PermissionRequest { id, .. } => (Some(id), "parent"),
            Event::Subagent { event, .. } => match *event {
                Event::PermissionRequest { id, .. } => (Some(id), "sub"),
                _ => (None, ""),
            },
            Event::Result { outcome, .. } => break outcome,
            _ => (None, ""),
        };
        if let Some(id) = request {
            let approval = if from == "parent" {
                Approval::AllowOnce
            } else {
                Approval::Deny { note: None }
            };
            asked.push(from);
            controller.apply(Op::Answer { id, approval }).await.unwrap();
        }
    };
    assert_eq!(outcome, RunOutcome::Completed);
    assert_eq!(asked, ["parent", "sub"]);
    assert!(dir.path().join("by-parent").exists());
    assert!(!dir.path().join("by-sub").exists());
}

#[tokio::test]
async fn status_and_policy_are_answered_while_a_run_holds_the_agent() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "bash", "arguments": {"command": "echo started; sleep 30"}}]},
          {"text": "after the cancel"}
        ]}"#,
    )
    .await;
    let first = agent(ProviderKind::Anthropic, &server, dir.path());
    let factory = Arc::new(Factory {
        server,
        workspace: dir.path().to_path_buf(),
    });
    let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let mut controller = Controller::new(first, factory, tx, None);
    let mut published = controller.watch_status();
    assert!(!controller.status().await.running);
    controller.apply(Op::Submit("sleep".into())).await.unwrap();
    while let Some(event) = events.recv().await {
        if matches!(event, Event::ToolOutputDelta { .. }) {
            break;
        }
    }
    // The run holds the agent: the answers come from what was published.
    assert!(controller.status().await.running);
    controller
        .apply(Op::SetMode(PermissionMode::Plan))
        .await
        .unwrap();
    assert_eq!(controller.status().await.mode, PermissionMode::Plan);
    assert_eq!(
        controller.policy().await.unwrap().mode,
        PermissionMode::Plan
    );
    controller.apply(Op::Cancel).await.unwrap();
    assert_eq!(result_of(&mut events).await.0, RunOutcome::Cancelled);
    let idle = published.wait_for(|status| !status.running).await.unwrap();
    assert!(idle.usage.output_tokens > 0, "{:?}", idle.usage);
    assert_eq!(idle.mode, PermissionMode::Plan);
}
