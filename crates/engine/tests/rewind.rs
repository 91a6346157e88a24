//! Rewinding through the controller, as the TUI's `/rewind` does: the prompts listed, a
//! preview of the files, the code restored and the conversation forked; a code-only rewind
//! tells the model in its next request.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rein_engine::{
    Agent, AgentConfig, AgentFactory, Applied, ControlError, Controller, Op, Restore, RewindWhat,
};
use rein_llm::ProviderKind;
use rein_protocol::{Event, Message};
use rein_testkit::MockServer;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::support::*;

/// An agent keeping checkpoints under `data`.
fn agent_with_checkpoints(server: &MockServer, workspace: &Path, data: &Path) -> Agent {
    let mut config = AgentConfig::new("claude-sonnet-4-5", workspace.to_path_buf());
    config.policy.mode = rein_policy::PermissionMode::Bypass;
    config.checkpoints_root = Some(data.join("checkpoints"));
    Agent::new(
        client(ProviderKind::Anthropic, server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap()
}

struct Factory {
    server: Arc<MockServer>,
    workspace: PathBuf,
    data: PathBuf,
}

impl AgentFactory for Factory {
    fn new_session(&self) -> Result<Agent, ControlError> {
        Ok(agent_with_checkpoints(
            &self.server,
            &self.workspace,
            &self.data,
        ))
    }

    fn resume(&self, id: &str) -> Result<Agent, ControlError> {
        Err(ControlError::Session(
            format!("no stored session {id}").into(),
        ))
    }

    fn switch_model(&self, _: &mut Agent, model: &str) -> Result<(), ControlError> {
        Err(ControlError::Model(format!("unknown model {model}").into()))
    }

    fn fork(&self, _from: &str, transcript: Vec<Message>) -> Result<Agent, ControlError> {
        let mut agent = self.new_session()?;
        agent.restore(transcript, Default::default(), None);
        Ok(agent)
    }
}

async fn finish(events: &mut UnboundedReceiver<Event>) -> Vec<Event> {
    let mut seen = Vec::new();
    while let Some(event) = events.recv().await {
        let done = matches!(event, Event::Result { .. });
        seen.push(event);
        if done {
            return seen;
        }
    }
    panic!("the run ended without a Result event");
}

const THREE_PROMPTS: &str = r#"{"turns": [
  {"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "one\n"}}]},
  {"text": "ok1"},
  {"tool_calls": [
    {"name": "edit_file", "arguments": {"path": "a.txt", "old_string": "one", "new_string": "two"}},
    {"name": "write_file", "arguments": {"path": "b.txt", "content": "bee\n"}}
  ]},
  {"text": "ok2"},
  {"text": "ok3"},
  {"text": "ok4"},
  {"text": "ok5"}
]}"#;

/// A controller that ran the three prompts of [`THREE_PROMPTS`].
async fn three_prompts(dir: &Path) -> (Controller, UnboundedReceiver<Event>, Arc<MockServer>) {
    let ws = dir.join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let server = Arc::new(mock(THREE_PROMPTS).await);
    let data = dir.join("data");
    let first = agent_with_checkpoints(&server, &ws, &data);
    let factory = Arc::new(Factory {
        server: Arc::clone(&server),
        workspace: ws,
        data,
    });
    let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let mut controller = Controller::new(first, factory, tx, None);
    for prompt in ["first", "second", "third"] {
        controller.apply(Op::Submit(prompt.into())).await.unwrap();
        finish(&mut events).await;
    }
    (controller, events, server)
}

#[tokio::test]
async fn rewinding_code_and_conversation_forks_from_before_the_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let (mut controller, mut events, _server) = three_prompts(dir.path()).await;
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "two\n");
    let points: Vec<(usize, String)> = controller
        .rewind_points()
        .unwrap()
        .into_iter()
        .map(|p| (p.back, p.prompt))
        .collect();
    assert_eq!(
        points,
        vec![
            (1, "third".to_string()),
            (2, "second".to_string()),
            (3, "first".to_string())
        ]
    );
    let preview = controller.rewind_preview(2).unwrap().unwrap();
    assert_eq!(
        preview.lines,
        vec!["restore  a.txt  +1 -1", "delete   b.txt  +0 -1"]
    );
    assert_eq!(preview.changed_since, 0);
    let old_id = controller.status().await.session_id;

    let applied = controller
        .apply(Op::Rewind {
            back: 2,
            what: RewindWhat::Both,
            restore: Restore::KeepChanged,
        })
        .await
        .unwrap();
    let Applied::Rewound {
        status: Some(status),
        prompt,
        files,
    } = applied
    else {
        panic!("{applied:?}");
    };
    assert_eq!(prompt, "second");
    assert_eq!(files, vec!["restored a.txt", "deleted  b.txt"]);
    assert_ne!(
        status.session_id, old_id,
        "the conversation continues as a fork"
    );
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "one\n");
    assert!(!ws.join("b.txt").exists());
    // The forked conversation ends before "second": the first prompt and its turn.
    let transcript = controller.transcript().await;
    assert_eq!(transcript.len(), 4);
    assert_eq!(transcript[0].text(), "first");
    let said: Vec<Event> = std::iter::from_fn(|| events.try_recv().ok()).collect();
    assert!(
        said.iter()
            .any(|e| matches!(e, Event::FilesRestored { turns, files }
            if *turns == vec![2] && *files == vec!["a.txt", "b.txt"])),
        "{said:?}"
    );
}

#[tokio::test]
async fn a_code_only_rewind_keeps_the_conversation_and_tells_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let (mut controller, mut events, server) = three_prompts(dir.path()).await;
    let id = controller.status().await.session_id;
    // A user's later edit of a file rein wrote is kept unless forced.
    std::fs::write(ws.join("b.txt"), "the user's bee\n").unwrap();
    assert_eq!(
        controller.rewind_preview(2).unwrap().unwrap().changed_since,
        1
    );
    let Applied::Rewound { status, files, .. } = controller
        .apply(Op::Rewind {
            back: 2,
            what: RewindWhat::Code,
            restore: Restore::KeepChanged,
        })
        .await
        .unwrap()
    else {
        panic!()
    };
    assert!(status.is_none());
    assert_eq!(
        files,
        vec![
            "restored a.txt",
            "kept     b.txt: changed since rein wrote it"
        ]
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("b.txt")).unwrap(),
        "the user's bee\n"
    );
    assert_eq!(controller.status().await.session_id, id);
    assert_eq!(controller.transcript().await.len(), 10);

    controller.apply(Op::Submit("go on".into())).await.unwrap();
    finish(&mut events).await;
    let request = server.requests().last().unwrap().body.to_string();
    assert!(request.contains("The user took back changes"), "{request}");
    assert!(request.contains("a.txt"), "{request}");
    // Told once.
    controller.apply(Op::Submit("more".into())).await.unwrap();
    finish(&mut events).await;
    let next = server.requests().last().unwrap().body.to_string();
    assert_eq!(next.matches("The user took back changes").count(), 1);
}

#[tokio::test]
async fn files_are_not_rewound_while_background_work_may_still_write() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let server = Arc::new(
        mock(
            r#"{"turns": [
              {"tool_calls": [
                {"name": "write_file", "arguments": {"path": "a.txt", "content": "one\n"}},
                {"name": "bash", "arguments": {"command": "sleep 30", "run_in_background": true}}
              ]},
              {"text": "started"}
            ]}"#,
        )
        .await,
    );
    let data = dir.path().join("data");
    let first = agent_with_checkpoints(&server, &ws, &data);
    let factory = Arc::new(Factory {
        server: Arc::clone(&server),
        workspace: ws.clone(),
        data,
    });
    let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let mut controller = Controller::new(first, factory, tx, None);
    controller.apply(Op::Submit("start".into())).await.unwrap();
    finish(&mut events).await;
    let rewind = Op::Rewind {
        back: 1,
        what: RewindWhat::Code,
        restore: Restore::KeepChanged,
    };
    let refused = controller.apply(rewind.clone()).await.unwrap_err();
    assert!(
        refused.to_string().contains("bg_1 (sleep 30)")
            && refused.to_string().contains("/tasks stop"),
        "{refused}"
    );
    assert!(ws.join("a.txt").exists(), "a refused rewind changed a file");
    controller.apply(Op::StopTask("bg_1".into())).await.unwrap();
    controller.apply(rewind).await.unwrap();
    assert!(!ws.join("a.txt").exists());
}

/// The newcomer's sequence: two edits, a prompt cancelled before any reply, then a chat.
#[tokio::test]
async fn a_prompt_cancelled_before_any_reply_keeps_every_prompt_mapped_to_its_own_turn() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let scenario = r#"{"turns": [
      {"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "a\n"}}]},
      {"text": "wrote a"},
      {"tool_calls": [{"name": "write_file", "arguments": {"path": "b.txt", "content": "b\n"}}]},
      {"text": "wrote b"},
      {"text": "too late", "delay_ms": 30000},
      {"text": "hello"}
    ]}"#;
    let server = Arc::new(mock(scenario).await);
    let data = dir.path().join("data");
    let first = agent_with_checkpoints(&server, &ws, &data);
    let factory = Arc::new(Factory {
        server: Arc::clone(&server),
        workspace: ws.clone(),
        data,
    });
    let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let mut controller = Controller::new(first, factory, tx, None);
    for prompt in ["edit a", "edit b"] {
        controller.apply(Op::Submit(prompt.into())).await.unwrap();
        finish(&mut events).await;
    }
    controller
        .apply(Op::Submit("slow one".into()))
        .await
        .unwrap();
    // Cancelled once the request is out, before any reply.
    while server.requests().len() < 5 {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    controller.apply(Op::Cancel).await.unwrap();
    finish(&mut events).await;
    controller.apply(Op::Submit("chat".into())).await.unwrap();
    finish(&mut events).await;

    let points: Vec<(usize, String)> = controller
        .rewind_points()
        .unwrap()
        .into_iter()
        .map(|p| (p.back, p.prompt))
        .collect();
    let expected = ["chat", "slow one", "edit b", "edit a"];
    assert_eq!(
        points,
        expected
            .iter()
            .enumerate()
            .map(|(n, p)| (n + 1, p.to_string()))
            .collect::<Vec<_>>()
    );
    // The model was told the cancelled prompt went unanswered.
    let last = server.requests().last().unwrap().body.to_string();
    assert!(
        last.contains("No reply: this turn was interrupted"),
        "{last}"
    );
    let preview = controller.rewind_preview(3).unwrap().unwrap();
    assert_eq!(preview.lines, vec!["delete   b.txt  +0 -1"]);
    controller
        .apply(Op::Rewind {
            back: 3,
            what: RewindWhat::Code,
            restore: Restore::KeepChanged,
        })
        .await
        .unwrap();
    assert!(!ws.join("b.txt").exists());
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "a\n");
}
