//! Sessions end to end: every run is recorded; `--continue`/`--resume` send the earlier turns;
//! a run killed with SIGKILL mid-tool resumes with every completed message.

use std::path::Path;
use std::time::Duration;

use crate::support::*;

async fn exec(
    dir: &Path,
    scenario: &str,
    extra: &[&str],
    prompt: &str,
) -> (std::process::Output, Vec<String>) {
    let server = mock(scenario).await;
    let mut cmd = rein(dir);
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--permission-mode",
        "bypass",
    ])
    .args(extra)
    .arg(prompt);
    let out = output(cmd).await;
    let bodies = server
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    (out, bodies)
}

const ANSWER: &str = r#"{"turns": [{"text": "noted"}]}"#;

#[tokio::test]
async fn runs_are_recorded_listed_and_continued() {
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = exec(dir.path(), ANSWER, &[], "remember the number 4217").await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let files = session_files(dir.path());
    assert_eq!(files.len(), 1);

    let mut cmd = rein(dir.path());
    cmd.arg("sessions");
    let listing = text(&output(cmd).await.stdout);
    assert!(listing.contains("remember the number 4217"), "{listing}");

    let (out, bodies) = exec(dir.path(), ANSWER, &["--continue"], "what was the number?").await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        bodies[0].contains("remember the number 4217"),
        "earlier turns are sent: {}",
        bodies[0]
    );
    assert!(bodies[0].contains("noted"));
    assert_eq!(
        session_files(dir.path()).len(),
        1,
        "--continue appends to the same session"
    );

    let id = files[0].file_stem().unwrap().to_string_lossy().into_owned();
    let (out, bodies) = exec(
        dir.path(),
        ANSWER,
        &["--resume", &id, "--fork-session"],
        "fork it",
    )
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(bodies[0].contains("what was the number?"));
    let files = session_files(dir.path());
    assert_eq!(files.len(), 2, "a fork is a new session");
    let forked = files
        .iter()
        .find(|f| !f.ends_with(format!("{id}.jsonl")))
        .unwrap();
    let first_line = std::fs::read_to_string(forked).unwrap();
    assert!(
        first_line
            .lines()
            .next()
            .unwrap()
            .contains(&format!("\"forked_from\":\"{id}\""))
    );
}

#[tokio::test]
async fn unknown_sessions_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    for extra in [
        vec!["--resume", "nope"],
        vec!["--continue"],
        vec!["--resume", "../x"],
        vec!["--fork-session"],
    ] {
        let (out, _) = exec(dir.path(), ANSWER, &extra, "hi").await;
        assert_eq!(
            out.status.code(),
            Some(2),
            "{extra:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(
            text(&out.stderr).lines().count(),
            1,
            "{}",
            text(&out.stderr)
        );
    }
}

#[tokio::test]
async fn a_run_killed_mid_tool_resumes_with_every_completed_message() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [{"text": "Running it.", "tool_calls": [{"name": "bash", "arguments": {"command": "sleep 5"}}]}]}"#,
    )
    .await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--permission-mode",
        "bypass",
        "start the long job",
    ]);
    let mut child = tokio::task::spawn_blocking(move || cmd.spawn().unwrap())
        .await
        .unwrap();
    // Wait until the assistant's tool call is on disk, then kill without warning.
    let mut recorded = false;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if session_files(dir.path()).first().is_some_and(|f| {
            std::fs::read_to_string(f)
                .unwrap_or_default()
                .contains("sleep 5")
        }) {
            recorded = true;
            break;
        }
    }
    assert!(recorded, "the tool call was never recorded");
    child.kill().unwrap();
    let _ = child.wait();

    let (out, bodies) = exec(dir.path(), ANSWER, &["--continue"], "did it finish?").await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let body = &bodies[0];
    assert!(body.contains("start the long job"), "{body}");
    assert!(body.contains("Running it."), "{body}");
    // Killed while the call ran: it may have run, and the model is told exactly that.
    assert!(
        body.contains("may have run, but its result was lost"),
        "the cut tool call is answered: {body}"
    );
    assert!(body.contains("did it finish?"));
}

#[tokio::test]
async fn the_result_carries_totals_for_the_whole_session() {
    let dir = tempfile::tempdir().unwrap();
    let priced =
        r#"{"turns": [{"text": "ok", "usage": {"input_tokens": 1000, "output_tokens": 100}}]}"#;
    let (out, _) = exec(dir.path(), priced, &[], "first").await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (out, _) = exec(
        dir.path(),
        priced,
        &["--continue", "--output-format", "json"],
        "second",
    )
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let result: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(result["usage"]["input_tokens"], 1000, "{result}");
    assert_eq!(result["session_usage"]["input_tokens"], 2000, "{result}");
    assert_eq!(result["session_usage"]["output_tokens"], 200, "{result}");
    // claude-sonnet-4-5: $3/M input, $15/M output → 2 × (0.003 + 0.0015).
    assert_eq!(result["session_cost_usd"], 0.009, "{result}");
    let mut cmd = rein(dir.path());
    cmd.arg("sessions");
    let listing = text(&output(cmd).await.stdout);
    assert!(listing.contains("$0.0090"), "{listing}");
}

#[tokio::test]
async fn a_fork_reports_its_own_run_not_the_parents_totals() {
    let dir = tempfile::tempdir().unwrap();
    let priced =
        r#"{"turns": [{"text": "ok", "usage": {"input_tokens": 1000, "output_tokens": 100}}]}"#;
    let json = ["--output-format", "json"];
    let (out, _) = exec(dir.path(), priced, &json, "first").await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let fresh: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    let id = fresh["session_id"].as_str().unwrap().to_string();

    let fork = ["--resume", &id, "--fork-session", "--output-format", "json"];
    let (out, _) = exec(dir.path(), priced, &fork, "second").await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let forked: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_ne!(forked["session_id"], fresh["session_id"], "{forked}");
    // One request's worth, as the fresh run of one prompt: claude-sonnet-4-5 at $3/M input
    // and $15/M output → 0.003 + 0.0015.
    for key in ["usage", "cost_usd", "session_usage", "session_cost_usd"] {
        assert_eq!(forked[key], fresh[key], "{key}: {forked}");
    }
    assert_eq!(forked["session_usage"]["input_tokens"], 1000, "{forked}");
    assert_eq!(forked["session_cost_usd"], 0.0045, "{forked}");
}

#[tokio::test]
async fn a_run_killed_mid_stream_resumes_with_every_completed_message() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
            {"text": "First a look.", "tool_calls": [{"name": "bash", "arguments": {"command": "echo looked"}}]},
            {"text": "This answer never finishes streaming", "fault": {"hang_after": {"events": 3}}}
        ]}"#,
    )
    .await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--permission-mode",
        "bypass",
        "look around",
    ]);
    let mut child = tokio::task::spawn_blocking(move || cmd.spawn().unwrap())
        .await
        .unwrap();
    // Wait for the second request (the hanging stream) to arrive, then kill.
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if server.requests().len() >= 2 {
            break;
        }
    }
    assert_eq!(server.requests().len(), 2, "the stream never started");
    tokio::time::sleep(Duration::from_millis(100)).await;
    child.kill().unwrap();
    let _ = child.wait();

    let (out, bodies) = exec(dir.path(), ANSWER, &["--continue"], "go on").await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let body = &bodies[0];
    assert!(
        body.contains("look around") && body.contains("First a look."),
        "{body}"
    );
    assert!(
        body.contains("looked\\n"),
        "the tool result survived: {body}"
    );
    assert!(
        !body.contains("never finishes"),
        "the cut reply is not kept: {body}"
    );
}

#[tokio::test]
async fn the_session_list_shows_the_share_of_input_read_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let cached = r#"{"turns": [{"text": "ok", "usage": {"input_tokens": 50, "cache_creation_input_tokens": 50, "cache_read_input_tokens": 900, "output_tokens": 10}}]}"#;
    let (out, _) = exec(dir.path(), cached, &[], "first").await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut cmd = rein(dir.path());
    cmd.arg("sessions");
    let listing = text(&output(cmd).await.stdout);
    let header = listing.lines().next().unwrap_or_default();
    assert!(header.contains("cache"), "{listing}");
    assert!(listing.contains(" 90%  first"), "{listing}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_continue_while_the_first_runs_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = exec(dir.path(), r#"{"turns": [{"text": "one"}]}"#, &[], "start").await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The first continuation waits on a slow model while holding the session.
    let slow = mock(r#"{"turns": [{"text": "two", "delay_ms": 3000}]}"#).await;
    let mut first = rein(dir.path());
    first
        .args(["exec", "--base-url", &slow.url(), "--continue", "first"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut first = first.spawn().unwrap();
    let sent = async {
        while slow.requests().is_empty() {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(rein_testkit::HANG_LIMIT, sent)
        .await
        .expect("the first continuation never sent its request");
    let (second, bodies) = exec(
        dir.path(),
        r#"{"turns": [{"text": "x"}]}"#,
        &["--continue"],
        "second",
    )
    .await;
    assert_eq!(second.status.code(), Some(1), "{}", text(&second.stderr));
    assert!(
        text(&second.stderr).contains("being continued by another rein process"),
        "{}",
        text(&second.stderr)
    );
    assert!(bodies.is_empty(), "the second run sent a request");
    assert!(first.wait().unwrap().success());
    let (out, bodies) = exec(
        dir.path(),
        r#"{"turns": [{"text": "three"}]}"#,
        &["--continue"],
        "third",
    )
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let sent: serde_json::Value = serde_json::from_str(&bodies[0]).unwrap();
    let messages = sent["messages"].to_string();
    assert!(
        messages.contains("\"first\"") && !messages.contains("\"second\""),
        "{messages}"
    );
}

#[tokio::test]
async fn a_store_that_cannot_be_written_warns_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    // A data folder that cannot be created (its parent is a file), then no data folder at all.
    let unwritable = |cmd: &mut std::process::Command| {
        cmd.env("XDG_DATA_HOME", "/dev/null/rein-data");
    };
    let homeless = |cmd: &mut std::process::Command| {
        cmd.env_remove("XDG_DATA_HOME").env_remove("HOME");
    };
    for (what, setup) in [
        (
            "unwritable",
            &unwritable as &dyn Fn(&mut std::process::Command),
        ),
        ("homeless", &homeless),
    ] {
        let server = mock(r#"{"turns": [{"text": "answered"}]}"#).await;
        let mut cmd = rein(dir.path());
        setup(&mut cmd);
        cmd.args(["exec", "--base-url", &server.url(), "hello"]);
        let out = output(cmd).await;
        assert!(out.status.success(), "{what}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout).trim(), "answered", "{what}");
        assert!(
            text(&out.stderr).contains("this session will not be saved"),
            "{what}: {}",
            text(&out.stderr)
        );
    }
}
