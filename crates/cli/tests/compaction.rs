//! Context management end to end: a long task in a small window is compacted with a summary
//! request and completes; a "prompt too long" answer triggers one reactive compaction.

use std::path::Path;

use serde_json::Value;

use crate::support::*;

fn session_text(workspace: &Path) -> String {
    let files = session_files(workspace);
    std::fs::read_to_string(&files[0]).unwrap()
}

fn seq_call(n: u32) -> String {
    format!(
        r#"{{"text": "step {n}", "tool_calls": [{{"name": "bash", "arguments": {{"command": "seq {n} {}"}}}}],
            "usage": {{"input_tokens": {}, "output_tokens": 20}}}}"#,
        1199 + n,
        800 + n * 1500
    )
}

#[tokio::test]
async fn a_long_task_in_a_small_window_is_compacted_and_completes() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = format!(
        r#"{{"turns": [{}, {}, {{"text": "SUMMARY: counted to 1200 twice; next: report"}}, {{"text": "all done"}}]}}"#,
        seq_call(1),
        seq_call(2)
    );
    let server = mock(&scenario).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--permission-mode",
        "bypass",
        "--context-window",
        "6000",
        "--output-format",
        "stream-json",
        "count to 1200 three times",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let events: Vec<Value> = text(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let compaction = events
        .iter()
        .find(|e| e["type"] == "compaction")
        .expect("a compaction event");
    assert_eq!(compaction["trigger"], "auto");
    assert!(compaction["tokens_after"].as_u64() < compaction["tokens_before"].as_u64());
    assert_eq!(events.last().unwrap()["text"], "all done");

    // Two turns of ~1,400-token outputs on top of the reported usage cross 85% of 6,000.
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    let summary_request = requests[2].body.to_string();
    assert!(
        summary_request.contains("Your context window is nearly full"),
        "{summary_request}"
    );
    for shared in ["tools", "system"] {
        assert_eq!(
            requests[2].body[shared], requests[1].body[shared],
            "the summary request keeps the cached {shared}"
        );
    }
    let after = requests[3].body.to_string();
    assert!(after.contains("SUMMARY: counted to 1200"), "{after}");
    assert!(
        after.contains("count to 1200 three times"),
        "the request is quoted: {after}"
    );
    let outputs = |body: &str| body.matches("1199").count();
    assert_eq!(
        outputs(&after),
        1,
        "only the latest tool output is kept verbatim"
    );
    assert!(
        !after.contains("step 1"),
        "the first turn is summarised away: {after}"
    );
    assert!(session_text(dir.path()).contains(r#""type":"compaction""#));

    // Resuming rebuilds the compacted transcript.
    let server = mock(r#"{"turns": [{"text": "resumed"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--continue",
        "and now?",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let resumed = server.requests()[0].body.to_string();
    assert!(resumed.contains("SUMMARY: counted to 1200"), "{resumed}");
}

#[tokio::test]
async fn prompt_too_long_triggers_one_reactive_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let too_long = r#"{"fault": {"http": {"status": 400, "body": {"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 210000 tokens > 200000 maximum"}}}}}"#;
    let scenario = format!(
        r#"{{"turns": [{{"text": "looking", "tool_calls": [{{"name": "bash", "arguments": {{"command": "echo hi"}}}}]}},
            {too_long}, {{"text": "SUMMARY: said hi"}}, {{"text": "finished"}}]}}"#
    );
    let server = mock(&scenario).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--permission-mode",
        "bypass",
        "say hi",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "finished\n");
    assert!(
        text(&out.stderr).contains("compacted the transcript (reactive)"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(server.requests().len(), 4);

    // A second refusal after compacting is reported clearly.
    let dir = tempfile::tempdir().unwrap();
    let scenario = format!(
        r#"{{"turns": [{{"text": "looking", "tool_calls": [{{"name": "bash", "arguments": {{"command": "echo hi"}}}}]}},
            {too_long}, {{"text": "SUMMARY"}}, {too_long}]}}"#
    );
    let server = mock(&scenario).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--permission-mode",
        "bypass",
        "say hi",
    ]);
    let out = output(cmd).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("prompt too long"),
        "{}",
        text(&out.stderr)
    );
}

/// A stored session of two prompts and answers in `workspace`, to compact.
async fn two_turn_session(workspace: &std::path::Path) {
    let server = mock(r#"{"turns": [{"text": "first answer"}, {"text": "second answer"}]}"#).await;
    // The first long enough that compacting it is worth a request.
    let first = format!("first question: {}", "some context. ".repeat(400));
    for prompt in [first.as_str(), "second question"] {
        let mut cmd = rein(workspace);
        cmd.args(["exec", "--base-url", &server.url()]);
        if prompt.starts_with("second") {
            cmd.arg("--continue");
        }
        cmd.arg(prompt);
        assert!(output(cmd).await.status.success());
    }
}

#[tokio::test]
async fn compact_on_demand_with_a_focus() {
    let dir = tempfile::tempdir().unwrap();
    two_turn_session(dir.path()).await;
    let server = mock(r#"{"turns": [{"text": "FOCUSED SUMMARY"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--continue",
        "--compact",
        "--focus",
        "the API design",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let body = server.requests()[0].body.to_string();
    assert!(
        body.contains("Focus especially on: the API design"),
        "{body}"
    );
    assert!(session_text(dir.path()).contains(r#""trigger":"manual""#));
}

#[tokio::test]
async fn a_summary_request_answered_with_a_tool_call_is_asked_again_without_tools() {
    let dir = tempfile::tempdir().unwrap();
    two_turn_session(dir.path()).await;
    let server = mock(
        r#"{"turns": [
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
            {"text": "THE SUMMARY"}
        ]}"#,
    )
    .await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--continue",
        "--compact",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let offered = |i: usize| requests[i].body["tools"].as_array().map_or(0, Vec::len);
    assert!(offered(0) > 0, "the first request keeps the tools (cache)");
    assert_eq!(offered(1), 0, "the second offers none");
    let session = session_text(dir.path());
    assert!(session.contains("THE SUMMARY"), "{session}");
    // Both requests are paid for.
    assert_eq!(
        session.matches(r#""type":"usage""#).count(),
        2 + 2,
        "{session}"
    );
}

#[tokio::test]
async fn old_tool_results_are_cleared_before_anything_is_summarised() {
    let dir = tempfile::tempdir().unwrap();
    // The small window comes from the project's per-model table this time, not a flag.
    std::fs::create_dir(dir.path().join(".rein")).unwrap();
    std::fs::write(
        dir.path().join(".rein/config.toml"),
        "[context_windows]\n\"claude\" = 20000\n",
    )
    .unwrap();
    let turns: Vec<String> = (1..=9)
        .map(seq_call)
        .chain([r#"{"text": "done"}"#.to_string()])
        .collect();
    let server = mock(&format!(r#"{{"turns": [{}]}}"#, turns.join(","))).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--permission-mode",
        "bypass",
        "--output-format",
        "stream-json",
        "count a lot",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let events: Vec<Value> = text(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let triggers: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "compaction")
        .filter_map(|e| e["trigger"].as_str())
        .collect();
    assert!(triggers.contains(&"micro"), "{triggers:?}");
    assert!(
        !triggers.contains(&"auto"),
        "clearing was enough: {triggers:?}"
    );
    let last = server.requests().last().unwrap().body.to_string();
    assert!(last.contains("[Cleared: the result of bash"), "{last}");
    assert!(last.contains("the full output is saved in"), "{last}");
    assert_eq!(events.last().unwrap()["text"], "done");
}

#[tokio::test]
async fn openai_models_are_measured_with_their_tokenizer_and_compacted_too() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = format!(
        r#"{{"turns": [{}, {}, {{"text": "all done"}}], "summary": {{"text": "SUMMARY: counted twice"}}}}"#,
        seq_call(1),
        seq_call(2)
    );
    let server = mock(&scenario).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &server.openai_url(),
        "--model",
        "gpt-5",
        "--permission-mode",
        "bypass",
        "--context-window",
        "6000",
        "--output-format",
        "stream-json",
        "count to 1200 twice",
    ]);
    cmd.env("OPENAI_API_KEY", "test-key");
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains(r#""type":"compaction""#), "{stdout}");
    let last = server.requests().last().unwrap().body.to_string();
    assert!(last.contains("SUMMARY: counted twice"), "{last}");
}
