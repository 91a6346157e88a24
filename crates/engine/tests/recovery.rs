//! Recovery paths of the loop on every protocol: a tool call cut at the output limit is asked
//! again with the model's larger limit (and never run cut), cut text is continued, and an
//! overloaded or missing model hands the session to the fallback model; and the model frees
//! its own context with the `compact` tool.

use rein_engine::{Agent, AgentConfig, Fallback};
use rein_llm::ProviderKind;
use rein_protocol::{Event, RunOutcome};
use tokio_util::sync::CancellationToken;

use crate::support::*;

fn model_of(kind: ProviderKind) -> (&'static str, u64, &'static str) {
    match kind {
        ProviderKind::Anthropic => ("claude-sonnet-4-5", 64_000, "max_tokens"),
        ProviderKind::Openai => ("gpt-5", 128_000, "max_output_tokens"),
        ProviderKind::OpenaiChat => ("qwen3-coder", 65_536, "max_tokens"),
    }
}

fn agent_for(
    kind: ProviderKind,
    server: &rein_testkit::MockServer,
    dir: &std::path::Path,
    tune: impl FnOnce(&mut AgentConfig),
) -> Agent {
    let mut config = AgentConfig::new(model_of(kind).0, dir.to_path_buf());
    config.policy.mode = rein_policy::PermissionMode::Bypass;
    tune(&mut config);
    Agent::new(
        client(kind, server),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap()
}

const APPEND: &str = r#"{"name": "bash", "arguments": {"command": "echo once >> log.txt"}}"#;

#[tokio::test]
async fn a_call_cut_at_the_limit_is_asked_again_with_the_larger_limit() {
    for kind in ALL_KINDS {
        let dir = tempfile::tempdir().unwrap();
        let server = mock(&format!(
            r#"{{"turns": [
              {{"tool_calls": [{APPEND}], "stop_reason": "max_tokens"}},
              {{"tool_calls": [{APPEND}]}},
              {{"text": "done"}}
            ]}}"#
        ))
        .await;
        let mut agent = agent_for(kind, &server, dir.path(), |_| {});
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let summary = agent.run("log it", &tx, CancellationToken::new()).await;
        assert_eq!(summary.outcome, RunOutcome::Completed, "{kind:?}");
        let (_, larger, field) = model_of(kind);
        let limits: Vec<u64> = server
            .requests()
            .iter()
            .map(|r| r.body[field].as_u64().unwrap())
            .collect();
        assert_eq!(limits, [32_000, larger, larger], "{kind:?}");
        let log = std::fs::read_to_string(dir.path().join("log.txt")).unwrap();
        assert_eq!(log, "once\n", "{kind:?}: the cut call never ran");
        assert!(
            drain(&mut rx).iter().any(|e| matches!(e,
                Event::Retry { reason, .. } if reason.contains("inside a tool call"))),
            "{kind:?}"
        );
        assert_transcript_valid(agent.transcript());
    }
}

#[tokio::test]
async fn a_call_cut_again_is_refused_and_cut_text_is_continued() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(&format!(
        r#"{{"turns": [
          {{"tool_calls": [{APPEND}], "stop_reason": "max_tokens"}},
          {{"tool_calls": [{APPEND}], "stop_reason": "max_tokens"}},
          {{"text": "The first half, ", "stop_reason": "max_tokens"}},
          {{"text": "and the second."}}
        ]}}"#
    ))
    .await;
    let mut agent = agent_for(ProviderKind::Anthropic, &server, dir.path(), |_| {});
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let summary = agent.run("log it", &tx, CancellationToken::new()).await;
    assert_eq!(summary.outcome, RunOutcome::Completed);
    assert!(
        !dir.path().join("log.txt").exists(),
        "a cut call never runs"
    );
    let requests = server.requests();
    let third = requests[2].body.to_string();
    assert!(third.contains("Not run: your reply reached the output limit (64000 tokens)"));
    let fourth = requests[3].body.to_string();
    assert!(fourth.contains("Your reply was cut off at the output limit"));
    assert_eq!(summary.text, "The first half, and the second.");
    assert_transcript_valid(agent.transcript());
}

#[tokio::test]
async fn an_overloaded_model_hands_the_session_to_the_fallback() {
    for kind in ALL_KINDS {
        let dir = tempfile::tempdir().unwrap();
        let status = if kind == ProviderKind::Anthropic {
            529
        } else {
            503
        };
        let fault = format!(r#"{{"fault": {{"http": {{"status": {status}}}}}}}"#);
        let faults = vec![fault; 5].join(",");
        let server = mock(&format!(
            r#"{{"turns": [{faults}, {{"text": "from the fallback"}}, {{"text": "still it"}}]}}"#
        ))
        .await;
        let fallback_model = match kind {
            ProviderKind::Anthropic => "claude-haiku-4-5",
            ProviderKind::Openai => "gpt-5-mini",
            ProviderKind::OpenaiChat => "qwen3-small",
        };
        let fallback = Fallback {
            model: fallback_model.into(),
            client: client(kind, &server),
        };
        let mut agent = agent_for(kind, &server, dir.path(), |c| c.fallback = Some(fallback));
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let summary = agent.run("hi", &tx, CancellationToken::new()).await;
        assert_eq!(summary.outcome, RunOutcome::Completed, "{kind:?}");
        assert_eq!(summary.text, "from the fallback");
        let announced: Vec<(String, String)> = drain(&mut rx)
            .into_iter()
            .filter_map(|e| match e {
                Event::ModelFallback { from, to, reason } => {
                    assert!(reason.starts_with("overloaded"), "{reason}");
                    Some((from, to))
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            announced,
            [(model_of(kind).0.to_string(), fallback_model.to_string())],
            "{kind:?}"
        );
        assert_eq!(agent.model(), fallback_model);
        agent.run("again", &tx, CancellationToken::new()).await;
        let requests = server.requests();
        assert_eq!(requests.len(), 7, "{kind:?}");
        assert_eq!(requests[5].body["model"], fallback_model, "{kind:?}");
        assert_eq!(requests[6].body["model"], fallback_model, "{kind:?}");
    }
}

#[tokio::test]
async fn a_missing_model_falls_back_and_without_a_fallback_the_run_fails() {
    let not_found = r#"{"fault": {"http": {"status": 404, "body": {"type": "error", "error": {"type": "not_found_error", "message": "model: claude-nope"}}}}}"#;
    let dir = tempfile::tempdir().unwrap();
    let server = mock(&format!(
        r#"{{"turns": [{not_found}, {{"text": "ok"}}, {not_found}]}}"#
    ))
    .await;
    let fallback = Fallback {
        model: "claude-haiku-4-5".into(),
        client: client(ProviderKind::Anthropic, &server),
    };
    let mut agent = agent_for(ProviderKind::Anthropic, &server, dir.path(), |c| {
        c.fallback = Some(fallback)
    });
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let summary = agent.run("hi", &tx, CancellationToken::new()).await;
    assert_eq!(summary.outcome, RunOutcome::Completed);
    assert_eq!(agent.model(), "claude-haiku-4-5");
    // The fallback is used once: failing too, the run fails.
    let summary = agent.run("again", &tx, CancellationToken::new()).await;
    assert_eq!(summary.outcome, RunOutcome::Failed);
}

#[tokio::test]
async fn the_model_compacts_with_the_compact_tool_only_when_it_is_offered() {
    for kind in ALL_KINDS {
        let dir = tempfile::tempdir().unwrap();
        // A first step longer than what a compaction keeps (~30% of the window, less the
        // system prompt and tools), so there is something to summarise.
        let thoughts = "reading the parser. ".repeat(1_000);
        let server = mock(&format!(
            r#"{{"turns": [
              {{"text": "{thoughts}", "tool_calls": [{{"name": "bash", "arguments": {{"command": "echo read"}}}}]}},
              {{"tool_calls": [{{"name": "compact", "arguments": {{"focus": "the parser bug"}}}}]}},
              {{"text": "carrying on"}}
            ],
            "summary": {{"text": "SUMMARY: fixing the parser bug"}}}}"#
        ))
        .await;
        let mut agent = agent_for(kind, &server, dir.path(), |c| {
            c.compact_tool = true;
            c.context_window = Some(20_000);
        });
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let summary = agent.run("fix it", &tx, CancellationToken::new()).await;
        assert_eq!(summary.outcome, RunOutcome::Completed, "{kind:?}");
        let triggers: Vec<String> = drain(&mut rx)
            .into_iter()
            .filter_map(|e| match e {
                Event::Compaction { trigger, .. } => Some(trigger),
                _ => None,
            })
            .collect();
        assert_eq!(triggers, ["model"], "{kind:?}");
        let requests = server.requests();
        assert!(
            requests[0].body.to_string().contains("\"compact\""),
            "{kind:?}"
        );
        // The summary request carries the focus; the next turn starts from the summary.
        assert!(
            requests[2].body.to_string().contains("the parser bug"),
            "{kind:?}"
        );
        assert!(
            requests[3]
                .body
                .to_string()
                .contains("SUMMARY: fixing the parser bug"),
            "{kind:?}"
        );
        assert_transcript_valid(agent.transcript());
    }
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "hi"}]}"#).await;
    let mut agent = agent_for(ProviderKind::Anthropic, &server, dir.path(), |_| {});
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    agent.run("hi", &tx, CancellationToken::new()).await;
    let names: Vec<String> = server.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert!(
        !names.contains(&"compact".to_string()),
        "off by default: {names:?}"
    );
}

#[tokio::test]
async fn a_summary_that_would_grow_the_transcript_is_refused_and_the_transcript_kept() {
    let dir = tempfile::tempdir().unwrap();
    // The model writes a summary longer than what it summarises.
    let long_summary = "Everything, at length. ".repeat(1_000);
    let server = mock(&format!(
        r#"{{"turns": [{{"text": "first answer"}}, {{"text": "second answer"}}],
            "summary": {{"text": "{long_summary}"}}}}"#
    ))
    .await;
    let mut agent = agent_for(ProviderKind::Anthropic, &server, dir.path(), |_| {});
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let first = format!("first question: {}", "some context. ".repeat(400));
    agent.run(&first, &tx, CancellationToken::new()).await;
    agent
        .run("second question", &tx, CancellationToken::new())
        .await;
    let before = agent.transcript().to_vec();
    let error = agent
        .compact(
            rein_engine::CompactTrigger::Manual,
            None,
            &tx,
            &CancellationToken::new(),
        )
        .await
        .unwrap_err();
    let rein_engine::CompactionError::NoGain {
        before: b,
        after: a,
    } = error
    else {
        panic!("{error}");
    };
    assert!(a >= b, "{a} < {b}");
    assert!(
        error
            .to_string()
            .starts_with("the summary was not used: it would have taken"),
        "{error}"
    );
    assert_eq!(server.requests().len(), 3, "the summary was asked for");
    assert_eq!(agent.transcript(), before.as_slice(), "kept as it was");
    assert!(
        !drain(&mut rx)
            .iter()
            .any(|e| matches!(e, Event::Compaction { .. })),
        "no compaction said"
    );
}

#[tokio::test]
async fn compacting_a_short_session_says_there_is_nothing_to_compact_and_asks_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [{"text": "hello"}, {"text": "again"}], "summary": {"text": "SUMMARY"}}"#,
    )
    .await;
    let mut agent = agent_for(ProviderKind::Anthropic, &server, dir.path(), |_| {});
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    agent.run("hi", &tx, CancellationToken::new()).await;
    agent.run("and again", &tx, CancellationToken::new()).await;
    let before = agent.transcript().to_vec();
    let error = agent
        .compact(
            rein_engine::CompactTrigger::Manual,
            None,
            &tx,
            &CancellationToken::new(),
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(error.starts_with("nothing to compact:"), "{error}");
    assert_eq!(server.requests().len(), 2, "no summary request");
    assert_eq!(agent.transcript(), before.as_slice());
    assert!(
        !drain(&mut rx)
            .iter()
            .any(|e| matches!(e, Event::Compaction { .. }))
    );
}
