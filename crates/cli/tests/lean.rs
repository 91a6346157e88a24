//! Small context windows end to end: with `--context-window 8192` (Ollama's default) rein
//! offers the lean tools profile, and a scripted multi-step task completes with at most one
//! summary.

use serde_json::Value;

use crate::support::*;

/// A step printing ~2.7 KB (~800 tokens): `seq` over 600 numbers, a different range each
/// time so no two calls repeat.
fn step(n: u32) -> String {
    let from = 1000 * n;
    format!(
        r#"{{"text": "step {n}", "tool_calls": [{{"name": "bash", "arguments": {{"command": "seq {from} {}"}}}}]}}"#,
        from + 600
    )
}

/// The scripted task: `steps` calls, then an answer; a summary request is answered apart.
fn task(steps: u32) -> String {
    let turns: Vec<String> = (1..=steps)
        .map(step)
        .chain([r#"{"text": "all counted"}"#.to_string()])
        .collect();
    format!(
        r#"{{"prompt_cache": true, "summary": {{"text": "SUMMARY: counted {steps} ranges"}}, "turns": [{}]}}"#,
        turns.join(", ")
    )
}

/// Runs the task in a fresh workspace with `config` as the user's configuration; the
/// compaction events and the server's requests.
async fn run(config: &str, window: &str) -> (Vec<Value>, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    write_user_config(dir.path(), config);
    let server = mock(&task(8)).await;
    let mut cmd = rein(dir.path());
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
        "count through eight ranges",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let events: Vec<Value> = text(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert_eq!(events.last().unwrap()["text"], "all counted");
    let compactions = events
        .into_iter()
        .filter(|e| e["type"] == "compaction")
        .collect();
    let requests: Vec<Value> = server.requests().into_iter().map(|r| r.body).collect();
    (compactions, requests)
}

fn tool_names(body: &Value) -> Vec<&str> {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect()
}

/// Summaries, as opposed to clearing old tool outputs (`micro`).
fn summaries(compactions: &[Value]) -> usize {
    compactions
        .iter()
        .filter(|c| c["trigger"] != "micro")
        .count()
}

#[tokio::test]
async fn an_8k_window_gets_the_lean_tools_and_a_task_completes_with_at_most_one_summary() {
    let (compactions, requests) = run("", "8192").await;
    assert_eq!(
        tool_names(&requests[0]),
        [
            "bash",
            "read_file",
            "write_file",
            "edit_file",
            "glob",
            "grep"
        ],
        "the lean profile's tools"
    );
    assert!(
        summaries(&compactions) <= 1,
        "at most one summary: {compactions:#?}"
    );
    let summary_requests = requests
        .iter()
        .filter(|r| r.to_string().contains("Your context window is nearly full"))
        .count();
    assert_eq!(summary_requests, summaries(&compactions));
}

#[tokio::test]
async fn the_configured_profile_beats_the_window() {
    let (_, requests) = run("tools_profile = \"full\"\n", "8192").await;
    assert!(tool_names(&requests[0]).contains(&"task_create"));
    let (_, requests) = run("tools_profile = \"lean\"\n", "200000").await;
    assert!(!tool_names(&requests[0]).contains(&"task_create"));
    let (_, requests) = run("", "200000").await;
    assert!(tool_names(&requests[0]).contains(&"task_create"));
}
