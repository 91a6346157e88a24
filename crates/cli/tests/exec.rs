use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::support::*;

fn demo_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.sh"), "echo hello world\n").unwrap();
    dir
}

#[tokio::test]
async fn exec_runs_the_demo_on_every_protocol() {
    for (provider, model) in [
        ("anthropic", "claude-sonnet-4-5"),
        ("openai", "gpt-5"),
        ("openai-chat", "qwen3-coder-plus"),
    ] {
        let dir = demo_workspace();
        let server = mock(DEMO).await;
        let base = if provider == "anthropic" {
            server.url()
        } else {
            server.openai_url()
        };
        let mut cmd = rein(dir.path());
        cmd.args([
            "exec",
            "--provider",
            provider,
            "--model",
            model,
            "--base-url",
            &base,
            "--allowed-tools",
            "Bash(sed *) Bash(bash hello.sh)",
        ])
        .arg("make hello.sh greet rein");
        let out = output(cmd).await;
        assert!(out.status.success(), "{provider}: {}", text(&out.stderr));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("hello.sh")).unwrap(),
            "echo hello rein\n"
        );
        assert_eq!(server.requests().len(), 4, "{provider}");
        let stdout = text(&out.stdout);
        assert!(
            !stdout.trim().is_empty(),
            "{provider}: the answer is printed"
        );
        let stderr = text(&out.stderr);
        assert!(stderr.contains("> read_file hello.sh"), "{stderr}");
        assert!(stderr.contains("> bash bash hello.sh"), "{stderr}");
    }
}

#[tokio::test]
async fn stream_json_prints_versioned_events_from_session_start_to_result() {
    let dir = demo_workspace();
    let server = mock(DEMO).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--output-format",
        "stream-json",
        "--base-url",
        &server.url(),
    ])
    .env("ANTHROPIC_API_KEY", "test")
    .arg("go");
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let events: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert!(events.iter().all(|e| e["v"] == 1));
    assert_eq!(events.first().unwrap()["type"], "session_start");
    let last = events.last().unwrap();
    assert_eq!(last["type"], "result");
    assert_eq!(last["outcome"], "completed");
    assert_eq!(last["turns"], 4);
    let tool_ends = events
        .iter()
        .filter(|e| e["type"] == "tool_call_end")
        .count();
    assert_eq!(tool_ends, 3);
}

#[tokio::test]
async fn json_output_is_one_result_object() {
    let dir = demo_workspace();
    let server = mock(DEMO).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--output-format",
        "json",
        "--base-url",
        &server.url(),
        "go",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let result: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(result["type"], "result");
    assert!(result["session_id"].as_str().is_some_and(|s| !s.is_empty()));
    assert!(result["usage"]["input_tokens"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn prompt_is_read_from_stdin_when_absent() {
    let dir = demo_workspace();
    let server = mock(r#"{"turns": [{"text": "pong"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args(["exec", "--base-url", &server.url()])
        .stdin(std::process::Stdio::piped());
    let out = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut child = cmd.stdout(std::process::Stdio::piped()).spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"ping from stdin")
            .unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), "pong\n");
    assert!(
        server.requests()[0]
            .body
            .to_string()
            .contains("ping from stdin")
    );
}

#[tokio::test]
async fn max_turns_exits_with_code_3() {
    let dir = demo_workspace();
    let server = mock(DEMO).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--max-turns",
        "1",
        "--base-url",
        &server.url(),
        "go",
    ]);
    let out = output(cmd).await;
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains("max-turns"),
        "{}",
        text(&out.stderr)
    );
}

#[tokio::test]
async fn without_permission_edits_are_refused_and_the_file_is_kept() {
    let dir = demo_workspace();
    let server = mock(DEMO).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "make hello.sh greet rein",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("hello.sh")).unwrap(),
        "echo hello world\n"
    );
    let stderr = text(&out.stderr);
    assert!(stderr.contains("> read_file hello.sh"), "{stderr}");
    assert!(
        stderr.contains(
            "  bash sed -i 's/world/rein/' hello.sh → error: Not run: this call needs the \
             user's approval (mode default)"
        ),
        "{stderr}"
    );
    let sent = server.requests()[2].body.to_string();
    assert!(
        sent.contains("--allowed-tools 'Bash(sed *)'"),
        "the model learns how: {sent}"
    );
}

#[tokio::test]
async fn a_deny_rule_beats_bypass_end_to_end() {
    let dir = demo_workspace();
    let server = mock(
        r#"{"turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "rm hello.sh"}}]},
            {"text": "could not delete it"}
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
        "--disallowed-tools",
        "Bash(rm *)",
        "delete hello.sh",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(dir.path().join("hello.sh").exists());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("Permission denied (deny rule Bash(rm *) (--disallowed-tools))"),
        "{stderr}"
    );
}

#[tokio::test]
async fn the_effort_flag_reaches_the_request_and_a_bad_level_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "thought about it"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--effort",
        "medium",
        "think",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let body = &server.requests()[0].body;
    assert_eq!(body["thinking"]["type"], "enabled", "{body}");
    assert_eq!(body["thinking"]["budget_tokens"], 10_000, "{body}");

    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--effort",
        "max",
        "think",
    ]);
    let out = output(cmd).await;
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("minimal, low, medium or high"),
        "{}",
        text(&out.stderr)
    );
}

#[tokio::test]
async fn the_models_questions_are_answered_from_a_file_or_left_to_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let call = serde_json::json!({"tool_calls": [{"name": "ask_user_question", "arguments": {"questions": [
        {"question": "Which database?", "header": "Database", "multiSelect": false,
         "options": [{"label": "Postgres", "description": "a server"},
                     {"label": "SQLite", "description": "a file"}]},
        {"question": "Which checks?", "header": "Checks", "multiSelect": true,
         "options": [{"label": "lint", "description": "clippy"},
                     {"label": "tests", "description": "cargo test"}]}]}}]});
    let scenario =
        serde_json::json!({"turns": [call, {"text": "chose"}, call, {"text": "assumed"}]})
            .to_string();
    let server = mock(&scenario).await;
    std::fs::write(
        dir.path().join("answers.json"),
        r#"{"Database": "SQLite", "Which checks?": ["lint", "tests"]}"#,
    )
    .unwrap();
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--answers",
        "answers.json",
    ])
    .args(["--output-format", "stream-json", "choose"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let answered = last_message(&server, 1);
    assert!(
        answered.contains(r#"\"Which database?\"=\"SQLite\", \"Which checks?\"=\"lint, tests\""#),
        "{answered}"
    );
    // The stream carries the question (the call) and the answer (its result).
    let stream = text(&out.stdout);
    assert!(
        stream.contains("\"name\":\"ask_user_question\""),
        "{stream}"
    );
    assert!(
        stream.contains("User has answered your questions"),
        "{stream}"
    );

    // Without a file: nobody is there, the model decides.
    let mut cmd = rein(dir.path());
    cmd.args(["exec", "--base-url", &server.url(), "choose again"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(last_message(&server, 3).contains("No user is present to answer"));

    // A bad file is a usage error naming it.
    std::fs::write(dir.path().join("bad.json"), r#"{"Database": 3}"#).unwrap();
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--answers",
        "bad.json",
        "x",
    ]);
    let out = output(cmd).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--answers bad.json"),
        "{}",
        text(&out.stderr)
    );
}

#[tokio::test]
async fn at_mentions_attach_files_and_list_folders_through_the_guard() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src/nested")).unwrap();
    std::fs::write(
        dir.path().join("src/lib.rs"),
        "pub fn answer() -> u32 {\n    42\n}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join(".env"), "KEY=secret-value\n").unwrap();
    let server = mock(r#"{"turns": [{"text": "It returns 42."}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args(["exec", "--base-url", &server.url()])
        .arg("explain @src/lib.rs, look at @src and @.env, and greet @everyone");
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let sent = server.requests()[0].body["messages"][0].to_string();
    assert!(
        sent.contains(r#"<attachment path=\"src/lib.rs\">"#),
        "{sent}"
    );
    assert!(sent.contains("pub fn answer() -> u32"), "{sent}");
    assert!(
        sent.contains(r#"<attachment path=\"src\" kind=\"folder\">\nlib.rs\nnested/\n"#),
        "{sent}"
    );
    assert!(
        sent.contains(r#"<attachment path=\".env\">not attached"#),
        "{sent}"
    );
    assert!(!sent.contains("secret-value"), "{sent}");
    assert!(!sent.contains("everyone\\\">"), "{sent}");
}
