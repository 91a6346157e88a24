//! Subagents end to end: the `task` tool against the mock server on every protocol, real
//! tools in temp workspaces.

use std::path::Path;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rein_engine::subagents::{Subagents, built_in};
use rein_engine::{Agent, AgentConfig, Approval, ApprovalRequest, Approver};
use rein_llm::ProviderKind;
use rein_policy::PermissionMode;
use rein_protocol::{Event, RunOutcome, Usage};
use rein_testkit::MockServer;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::support::*;

fn model_of(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Anthropic => "claude-sonnet-4-5",
        ProviderKind::Openai => "gpt-5",
        ProviderKind::OpenaiChat => "qwen3-coder",
    }
}

pub(crate) fn parent(
    kind: ProviderKind,
    server: &MockServer,
    workspace: &Path,
    mode: PermissionMode,
) -> Agent {
    let model = model_of(kind);
    let mut config = AgentConfig::new(model, workspace.to_path_buf());
    config.policy.mode = mode;
    config.subagents = Some(Subagents::new(built_in(None)));
    Agent::new(
        client(kind, server),
        rein_tools::ToolRegistry::for_model(model),
        config,
    )
    .unwrap()
}

pub(crate) fn task_turn(calls: &[(&str, &str)]) -> String {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(agent, prompt)| {
            serde_json::json!({"name": "task", "arguments":
                {"description": "look it up", "prompt": prompt, "agent": agent}})
        })
        .collect();
    serde_json::json!({ "tool_calls": calls }).to_string()
}

pub(crate) async fn run_all(
    agent: &mut Agent,
    prompt: &str,
) -> (rein_engine::RunSummary, Vec<Event>) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let summary = agent.run(prompt, &tx, CancellationToken::new()).await;
    drop(tx);
    (summary, drain(&mut rx))
}

fn usage_events(events: &[Event]) -> Usage {
    let mut total = Usage::default();
    for event in events {
        match event {
            Event::Usage { usage, .. } => total.add(usage),
            Event::Subagent { event, .. } => total.add(&usage_events(std::slice::from_ref(event))),
            _ => {}
        }
    }
    total
}

#[tokio::test]
async fn a_subagent_starts_fresh_without_task_and_its_answer_reaches_the_parent() {
    for kind in ALL_KINDS {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "the answer is 42\n").unwrap();
        let server = mock(&format!(
            r#"{{"turns": [
              {},
              {{"tool_calls": [{{"name": "read_file", "arguments": {{"path": "notes.txt"}}}}],
                "usage": {{"input_tokens": 50, "output_tokens": 7}}}},
              {{"text": "notes.txt says 42", "usage": {{"input_tokens": 60, "output_tokens": 5}}}},
              {{"text": "It is 42."}}
            ]}}"#,
            task_turn(&[("general", "Find the answer in notes.txt")])
        ))
        .await;
        let mut agent = parent(kind, &server, dir.path(), PermissionMode::Bypass);
        let (summary, events) = run_all(&mut agent, "PARENT-ONLY question: what is it?").await;
        assert_eq!(summary.outcome, RunOutcome::Completed, "{kind:?}");
        assert_eq!(summary.text, "It is 42.");

        let requests = server.requests();
        assert_eq!(requests.len(), 4, "{kind:?}");
        let (first, sub) = (&requests[0].body, &requests[1].body);
        assert!(offered(first).contains(&"task".to_string()), "{kind:?}");
        assert!(!offered(sub).contains(&"task".to_string()), "{kind:?}");
        assert!(offered(sub).contains(&"bash".to_string()), "{kind:?}");
        let sub_text = sub.to_string();
        assert!(
            sub_text.contains("Find the answer in notes.txt"),
            "{kind:?}"
        );
        assert!(!sub_text.contains("PARENT-ONLY"), "{kind:?}: {sub_text}");
        assert!(sub_text.contains("You are a subagent of rein"), "{kind:?}");
        // The subagent's answer is the parent's tool result.
        assert!(requests[3].body.to_string().contains("notes.txt says 42"));

        let task_id = events
            .iter()
            .find_map(|e| match e {
                Event::ToolCallStart { id, name, .. } if name == "task" => Some(id.clone()),
                _ => None,
            })
            .unwrap();
        let wrapped: Vec<&Event> = events
            .iter()
            .filter_map(|e| match e {
                Event::Subagent {
                    parent_tool_use_id,
                    agent,
                    event,
                } => {
                    assert_eq!(parent_tool_use_id, &task_id);
                    assert_eq!(agent, "general");
                    Some(event.as_ref())
                }
                _ => None,
            })
            .collect();
        assert!(matches!(wrapped.first(), Some(Event::SessionStart { .. })));
        assert!(matches!(wrapped.last(), Some(Event::Result { .. })));
        assert!(wrapped.iter().any(
            |e| matches!(e, Event::ToolCallEnd { output, .. } if output.contains("the answer is 42"))
        ));
        // The subagent's usage counts toward the run.
        assert_eq!(summary.usage, usage_events(&events), "{kind:?}");
        assert!(summary.usage.output_tokens >= 12);
    }
}

#[tokio::test]
async fn two_subagents_in_one_reply_run_at_the_same_time() {
    for kind in ALL_KINDS {
        two_subagents_in_one_reply_run_at_the_same_time_on(kind).await;
    }
}

async fn two_subagents_in_one_reply_run_at_the_same_time_on(kind: ProviderKind) {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(&format!(
        r#"{{"turns": [
          {},
          {{"text": "one done", "delay_ms": 150}},
          {{"text": "two done", "delay_ms": 150}},
          {{"text": "both done"}}
        ]}}"#,
        task_turn(&[("general", "first job"), ("explore", "second job")])
    ))
    .await;
    let mut agent = parent(kind, &server, dir.path(), PermissionMode::Default);
    let (summary, events) = run_all(&mut agent, "do both").await;
    assert_eq!(summary.outcome, RunOutcome::Completed);
    // Both started before either finished.
    let mut started = 0;
    let mut finished_before_both_started = false;
    for event in &events {
        if let Event::Subagent { event, .. } = event {
            match event.as_ref() {
                Event::SessionStart { .. } => started += 1,
                Event::Result { .. } if started < 2 => finished_before_both_started = true,
                _ => {}
            }
        }
    }
    assert_eq!(started, 2);
    assert!(
        !finished_before_both_started,
        "the subagents ran one after the other"
    );
    // Results in call order, whichever finished first.
    let ends: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallEnd { name, output, .. } if name == "task" => Some(output.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(ends.len(), 2);
    let mut sorted = ends.clone();
    sorted.sort();
    assert_eq!(sorted, ["one done", "two done"]);
}

#[tokio::test]
async fn a_definitions_tools_are_all_its_subagent_is_offered() {
    for kind in ALL_KINDS {
        a_definitions_tools_are_all_its_subagent_is_offered_on(kind).await;
    }
}

async fn a_definitions_tools_are_all_its_subagent_is_offered_on(kind: ProviderKind) {
    let dir = tempfile::tempdir().unwrap();
    let agents = tempfile::tempdir().unwrap();
    std::fs::write(
        agents.path().join("reader.md"),
        "---\nname: reader\ndescription: reads\ntools: Read, Grep, WebFetch\n---\nYou read.\n",
    )
    .unwrap();
    let dirs = [agents.path().to_path_buf()];
    let files = rein_tools::PromptFiles::new(dirs.clone(), rein_tools::SensitivePaths::default());
    let loaded = rein_engine::subagents::load(built_in(None), &dirs, &files);
    let server = mock(&format!(
        r#"{{"turns": [{}, {{"text": "read"}}, {{"text": "explored"}}, {{"text": "ok"}}]}}"#,
        task_turn(&[("reader", "read something")])
    ))
    .await;
    let mut config = AgentConfig::new(model_of(kind), dir.path().to_path_buf());
    config.policy.mode = PermissionMode::Bypass;
    config.subagents = Some(Subagents::new(loaded.definitions));
    let mut agent = Agent::new(
        client(kind, &server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap();
    let (summary, _) = run_all(&mut agent, "go").await;
    assert_eq!(summary.outcome, RunOutcome::Completed);
    let requests = server.requests();
    assert_eq!(offered(&requests[1].body), ["read_file", "grep"]);
    assert!(requests[1].body.to_string().contains("You read."));
    // The catalog is in the task tool's description.
    let first = requests[0].body.to_string();
    assert!(
        first.contains("- reader: reads") && first.contains("- explore:"),
        "{first}"
    );
}

/// Allows every ask and records it.
#[derive(Default)]
struct Recording(Mutex<Vec<ApprovalRequest>>);

#[async_trait]
impl Approver for Recording {
    async fn approve(&self, request: ApprovalRequest) -> Approval {
        self.0.lock().unwrap().push(request);
        Approval::AllowOnce
    }
}

#[tokio::test]
async fn a_subagents_permission_question_reaches_the_parents_approver_with_its_name() {
    for kind in ALL_KINDS {
        a_subagents_permission_question_reaches_the_parents_approver_with_its_name_on(kind).await;
    }
}

async fn a_subagents_permission_question_reaches_the_parents_approver_with_its_name_on(
    kind: ProviderKind,
) {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(&format!(
        r#"{{"turns": [
          {},
          {{"tool_calls": [{{"name": "bash", "arguments": {{"command": "touch made-by-sub"}}}}]}},
          {{"text": "made it"}},
          {{"text": "ok"}}
        ]}}"#,
        task_turn(&[("general", "make a file")])
    ))
    .await;
    let mut agent = parent(kind, &server, dir.path(), PermissionMode::Default);
    let approver = Arc::new(Recording::default());
    agent.set_approver(approver.clone());
    let (summary, _) = run_all(&mut agent, "go").await;
    assert_eq!(summary.outcome, RunOutcome::Completed);
    assert!(dir.path().join("made-by-sub").exists());
    let asked = approver.0.lock().unwrap();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].tool, "bash");
    assert_eq!(asked[0].agent.as_deref(), Some("general"));
}

#[tokio::test]
async fn cancelling_the_parent_kills_a_subagents_running_shell() {
    for kind in ALL_KINDS {
        cancelling_the_parent_kills_a_subagents_running_shell_on(kind).await;
    }
}

async fn cancelling_the_parent_kills_a_subagents_running_shell_on(kind: ProviderKind) {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(&format!(
        r#"{{"turns": [
          {},
          {{"tool_calls": [{{"name": "bash",
             "arguments": {{"command": "echo started; sleep 30; touch never-made"}}}}]}},
          {{"text": "unreachable"}}
        ]}}"#,
        task_turn(&[("general", "wait")])
    ))
    .await;
    let mut agent = parent(kind, &server, dir.path(), PermissionMode::Bypass);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let watcher = tokio::spawn(async move {
        let mut seen = Vec::new();
        while let Some(event) = rx.recv().await {
            if let Event::Subagent { event: inner, .. } = &event
                && matches!(inner.as_ref(), Event::ToolOutputDelta { .. })
            {
                trigger.cancel();
            }
            seen.push(event);
        }
        seen
    });
    let summary = tokio::time::timeout(rein_testkit::HANG_LIMIT, agent.run("go", &tx, cancel))
        .await
        .expect("a cancelled subagent ends the run");
    drop(tx);
    assert_eq!(summary.outcome, RunOutcome::Cancelled);
    let events = watcher.await.unwrap();
    assert!(events.iter().any(|e| matches!(
        e,
        Event::ToolCallEnd { name, is_error: true, .. } if name == "task"
    )));
    assert_eq!(server.requests().len(), 2);
    // Nothing the subagent's shell started is left to make the file later.
    assert_eq!(processes_in(dir.path()), Vec::<String>::new());
    assert!(!dir.path().join("never-made").exists());
}

#[tokio::test]
async fn a_subagent_at_its_turn_limit_returns_its_last_text_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(&format!(
        r#"{{"turns": [
          {},
          {{"text": "still looking", "tool_calls": [{{"name": "glob", "arguments": {{"pattern": "*"}}}}]}},
          {{"text": "ok"}}
        ]}}"#,
        task_turn(&[("explore", "look forever")])
    ))
    .await;
    let mut config = AgentConfig::new("claude-sonnet-4-5", dir.path().to_path_buf());
    config.policy.mode = PermissionMode::Bypass;
    let mut subagents = Subagents::new(built_in(None));
    subagents.max_turns = 1;
    config.subagents = Some(subagents);
    let mut agent = Agent::new(
        client(ProviderKind::Anthropic, &server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap();
    let (summary, events) = run_all(&mut agent, "go").await;
    assert_eq!(summary.outcome, RunOutcome::Completed);
    let output = events
        .iter()
        .find_map(|e| match e {
            Event::ToolCallEnd { name, output, .. } if name == "task" => Some(output.clone()),
            _ => None,
        })
        .unwrap();
    assert!(output.starts_with("still looking"), "{output}");
    assert!(output.contains("limit of 1 turns"), "{output}");
}

/// The command lines of processes whose working folder is `dir`.
fn processes_in(dir: &Path) -> Vec<String> {
    let dir = dir.canonicalize().unwrap();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter(|e| std::fs::read_link(e.path().join("cwd")).is_ok_and(|cwd| cwd == dir))
        .map(|e| std::fs::read_to_string(e.path().join("cmdline")).unwrap_or_default())
        .collect()
}

#[tokio::test]
async fn a_background_subagents_answer_reaches_the_parent_which_waits_for_it() {
    for kind in ALL_KINDS {
        a_background_subagents_answer_reaches_the_parent_which_waits_for_it_on(kind).await;
    }
}

async fn a_background_subagents_answer_reaches_the_parent_which_waits_for_it_on(
    kind: ProviderKind,
) {
    let dir = tempfile::tempdir().unwrap();
    let start = serde_json::json!({"tool_calls": [{"name": "task", "arguments": {
        "description": "slow job", "prompt": "do the slow job", "run_in_background": true}}]});
    let server = mock(&format!(
        r#"{{"turns": [
          {start},
          {{"when": "You are a subagent of rein", "text": "the slow job is done",
            "delay_ms": 300}},
          {{"text": "It runs in the background; I will wait."}},
          {{"text": "Done: the slow job finished."}}
        ]}}"#
    ))
    .await;
    let mut agent = parent(kind, &server, dir.path(), PermissionMode::Default);
    let (summary, events) = run_all(&mut agent, "go").await;
    assert_eq!(summary.outcome, RunOutcome::Completed);
    assert_eq!(summary.text, "Done: the slow job finished.");
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    let started = events
        .iter()
        .find_map(|e| match e {
            Event::ToolCallEnd { name, output, .. } if name == "task" => Some(output.clone()),
            _ => None,
        })
        .unwrap();
    assert!(
        started.starts_with("started in the background as agent_1"),
        "{started}"
    );
    // The parent's last request carries the answer as a message of its own.
    let last = requests
        .iter()
        .map(|r| r.body.to_string())
        .find(|body| body.contains("I will wait"))
        .unwrap();
    assert!(
        last.contains("[background agent agent_1 (general: slow job) finished; its answer:]")
            && last.contains("the slow job is done"),
        "{last}"
    );
    // Its usage counts too.
    assert_eq!(summary.usage, usage_events(&events));
}
