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

/// A step of ~1,500 tokens of the model's own text (which no clearing shrinks) and a short
/// command.
fn talk_call(n: u32) -> String {
    talk(n, 170)
}

/// A step of `repeats` times ~9 tokens of the model's text and a short command.
fn talk(n: u32, repeats: usize) -> String {
    let thoughts = format!(
        "step {n}: {}",
        "weighing what the count means. ".repeat(repeats)
    );
    format!(
        r#"{{"text": "{thoughts}", "tool_calls": [{{"name": "bash", "arguments": {{"command": "echo counted {n}"}}}}]}}"#
    )
}

#[tokio::test]
async fn a_long_task_in_a_small_window_is_compacted_once_and_completes() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = format!(
        r#"{{"turns": [{}, {}, {}, {}, {{"text": "all done"}}],
            "summary": {{"text": "SUMMARY: counted to 4; next: report"}}}}"#,
        talk_call(1),
        talk_call(2),
        talk_call(3),
        talk_call(4)
    );
    let server = mock(&scenario).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--permission-mode",
        "bypass",
        // Ollama's default; a summary is due once ~3 steps (plus the fixed part) are in.
        "--context-window",
        "8192",
        "--output-format",
        "stream-json",
        "count to four",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let events: Vec<Value> = text(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let compactions: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "compaction")
        .collect();
    assert_eq!(compactions.len(), 1, "{compactions:?}");
    assert_eq!(compactions[0]["trigger"], "auto");
    assert!(compactions[0]["tokens_after"].as_u64() < compactions[0]["tokens_before"].as_u64());
    assert_eq!(events.last().unwrap()["text"], "all done");

    let requests = server.requests();
    assert_eq!(requests.len(), 6, "five steps and one summary");
    let asks = |i: usize| {
        requests[i]
            .body
            .to_string()
            .contains("Your context window is nearly full")
    };
    let at = (0..requests.len()).find(|&i| asks(i)).unwrap();
    for shared in ["tools", "system"] {
        assert_eq!(
            requests[at].body[shared],
            requests[at - 1].body[shared],
            "the summary request keeps the cached {shared}"
        );
    }
    let after = requests[at + 1].body.to_string();
    assert!(after.contains("SUMMARY: counted to 4"), "{after}");
    assert!(
        after.contains("count to four"),
        "the request is quoted: {after}"
    );
    assert!(
        !after.contains("step 1:"),
        "the first step is summarised away: {after}"
    );
    assert!(
        after.contains(&format!("step {at}:")),
        "the latest step is kept verbatim: {after}"
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
    assert!(resumed.contains("SUMMARY: counted to 4"), "{resumed}");
}

#[tokio::test]
async fn prompt_too_long_triggers_one_reactive_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let too_long = r#"{"fault": {"http": {"status": 400, "body": {"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 210000 tokens > 200000 maximum"}}}}}"#;
    // A first step long enough to be worth summarising.
    let first = talk_call(1);
    let scenario = format!(
        r#"{{"turns": [{first}, {{"text": "looking", "tool_calls": [{{"name": "bash", "arguments": {{"command": "echo hi"}}}}]}},
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
    assert_eq!(server.requests().len(), 5);

    // A second refusal after compacting is reported clearly.
    let dir = tempfile::tempdir().unwrap();
    let scenario = format!(
        r#"{{"turns": [{first}, {{"text": "looking", "tool_calls": [{{"name": "bash", "arguments": {{"command": "echo hi"}}}}]}},
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
        r#"{{"turns": [{}, {}, {{"text": "all done"}}]}}"#,
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
    // The reported usage and the counted output pass 85%: the older output, on disk, goes.
    let last = server.requests().last().unwrap().body.to_string();
    assert!(last.contains("[Cleared: the result of bash"), "{last}");
}

/// A run of `rein exec` in stream-json with `--context-window window` against `scenario`.
struct WindowRun {
    events: Vec<Value>,
    server: rein_testkit::MockServer,
    stderr: String,
    status: std::process::ExitStatus,
}

impl WindowRun {
    async fn start(workspace: &Path, window: u64, scenario: &Value) -> Self {
        let server = mock(&scenario.to_string()).await;
        let mut cmd = rein(workspace);
        cmd.args([
            "exec",
            "--base-url",
            &server.url(),
            "--permission-mode",
            "bypass",
            "--context-window",
            &window.to_string(),
            "--output-format",
            "stream-json",
            "count three times, then check",
        ]);
        let out = output(cmd).await;
        Self {
            events: text(&out.stdout)
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect(),
            server,
            stderr: text(&out.stderr),
            status: out.status,
        }
    }

    /// The compaction events' triggers, in order.
    fn compactions(&self) -> Vec<String> {
        self.events
            .iter()
            .filter(|e| e["type"] == "compaction")
            .filter_map(|e| e["trigger"].as_str().map(str::to_string))
            .collect()
    }

    /// Summary compactions (a request for a summary that was used).
    fn summaries(&self) -> usize {
        self.compactions().iter().filter(|t| *t != "micro").count()
    }

    /// Requests that asked for a summary, used or not.
    fn summary_requests(&self) -> usize {
        self.server
            .requests()
            .iter()
            .filter(|r| {
                r.body
                    .to_string()
                    .contains("Your context window is nearly full")
            })
            .count()
    }
}

/// The six-step task of issue 38: three 3,000-line `seq` outputs, two small checks, the answer.
fn three_counts() -> Value {
    let call = |command: &str| serde_json::json!({"text": "next", "tool_calls": [{"name": "bash", "arguments": {"command": command}}]});
    serde_json::json!({
        "turns": [
            call("seq 1 3000"),
            call("seq 2 3001"),
            call("seq 3 3002"),
            call("echo checked"),
            call("echo twice"),
            {"text": "all done"}
        ],
        "summary": {"text": "SUMMARY: counted three times"}
    })
}

#[tokio::test]
async fn small_windows_do_not_thrash_outputs_that_alone_overflow_are_cleared_not_summarised() {
    // The fixed part (system prompt and tools) is ~3k tokens on this branch; each output
    // ~4k. Nothing is old enough to summarise: the prompt is all that precedes the latest
    // output. Issue 38 saw 4 summaries at 6,000 and 2 at 12,000.
    for window in [6_000, 8_192, 12_000] {
        let dir = tempfile::tempdir().unwrap();
        let run = WindowRun::start(dir.path(), window, &three_counts()).await;
        assert!(run.status.success(), "{window}: {}", run.stderr);
        assert_eq!(run.events.last().unwrap()["text"], "all done", "{window}");
        assert_eq!(
            run.summary_requests(),
            0,
            "{window}: {:?}",
            run.compactions()
        );
        assert_eq!(run.summaries(), 0, "{window}");
        for e in run.events.iter().filter(|e| e["type"] == "compaction") {
            assert!(
                e["tokens_after"].as_u64() < e["tokens_before"].as_u64(),
                "{window}: a compaction never grows the transcript: {e}"
            );
        }
        let requests = run.server.requests();
        assert_eq!(requests.len(), 6, "{window}");
        // What the model last saw of the three outputs: where each is saved, in full.
        let last = requests[5].body.to_string();
        let saved: Vec<&str> = last
            .split("saved in ")
            .skip(1)
            .map(|s| s.split([';', ':', ' ']).next().unwrap())
            .collect();
        assert!(!saved.is_empty(), "{window}: {last}");
        for path in &saved {
            let full = std::fs::read_to_string(path).unwrap();
            assert_eq!(full.lines().count(), 3000, "{window}: {path}");
        }
        for request in &requests {
            let sent = request.body.to_string().len() as u64;
            assert!(
                sent * 10 / 35 <= window,
                "{window}: a request of {sent} bytes overflows the window"
            );
        }
    }
}

#[tokio::test]
async fn a_window_too_small_for_the_fixed_part_ends_the_run_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "never"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--context-window",
        "500",
        "hello",
    ]);
    let out = output(cmd).await;
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "the context window (500 tokens) is too small for the next request: the system \
             prompt and tool definitions alone take ~"
        ),
        "{stderr}"
    );
    assert!(server.requests().is_empty(), "nothing sent that cannot fit");
}

/// A 20,000-token window (above the small-window profile) and steps of ~4,000 tokens of
/// text: the fifth request passes 85% of the window.
fn four_long_steps_then(last: &str, summary: &str) -> String {
    let steps: Vec<String> = (1..=4).map(|n| talk(n, 450)).collect();
    format!(
        r#"{{"turns": [{}, {last}], "summary": {{"text": "{summary}"}}}}"#,
        steps.join(", ")
    )
}

fn exec_in_window(
    workspace: &Path,
    server: &rein_testkit::MockServer,
    window: &str,
) -> std::process::Command {
    let mut cmd = rein(workspace);
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--permission-mode",
        "bypass",
        "--context-window",
        window,
        "--output-format",
        "stream-json",
        "think it through",
    ]);
    cmd
}

fn summary_requests(server: &rein_testkit::MockServer) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| {
            r.body
                .to_string()
                .contains("Your context window is nearly full")
        })
        .count()
}

#[tokio::test]
async fn an_automatic_summary_that_would_grow_the_transcript_is_not_used() {
    let dir = tempfile::tempdir().unwrap();
    // Longer than the three steps it summarises.
    let verbose = "All of it again, at length. ".repeat(2_000);
    // 21,100: the four steps and the tool definitions (task board, team tools and
    // `repo_map` included) fit, so only the summary that would grow them is in question.
    let server = mock(&four_long_steps_then(r#"{"text": "all done"}"#, &verbose)).await;
    let out = output(exec_in_window(dir.path(), &server, "21100")).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(!stdout.contains(r#""type":"compaction""#), "{stdout}");
    assert!(
        stdout.contains("compaction failed, continuing without it: the summary was not used"),
        "{stdout}"
    );
    assert_eq!(summary_requests(&server), 1);
    let last = server.requests().last().unwrap().body.to_string();
    assert!(!last.contains("All of it again"), "not used");
    assert!(last.contains("step 1:"), "the transcript as it was");
}

#[tokio::test]
async fn one_summary_per_request_a_refusal_after_it_ends_the_run_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let too_long = r#"{"fault": {"http": {"status": 400, "body": {"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 21000 tokens > 20000 maximum"}}}}}"#;
    let server = mock(&four_long_steps_then(
        too_long,
        "SUMMARY: thought it through",
    ))
    .await;
    // 20,100: 20,000 before `repo_map`'s definition (about 70 tokens) joined the tools.
    let out = output(exec_in_window(dir.path(), &server, "20100")).await;
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.contains(r#""trigger":"auto""#), "{stdout}");
    assert!(!stdout.contains(r#""trigger":"reactive""#), "{stdout}");
    assert_eq!(summary_requests(&server), 1, "no second summary");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("prompt too long")
            && stderr.contains("the transcript is as small as compacting and clearing"),
        "{stderr}"
    );
}
