#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment
use crate::support::*;

#[tokio::test]
async fn missing_key_is_one_line_and_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = output({
        let mut cmd = rein(dir.path());
        cmd.args(["exec", "hello"]);
        cmd
    })
    .await;
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("ANTHROPIC_API_KEY"), "{stderr}");
    assert!(!stderr.contains("panicked"));
}

#[tokio::test]
async fn a_mistyped_model_alias_is_named_with_the_alias_meant() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = rein(dir.path());
    cmd.args(["-p", "--model", "sonet", "hi"]);
    let out = output(cmd).await;
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("did you mean --model sonnet?"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[tokio::test]
async fn unreachable_server_fails_with_exit_code_1_naming_the_url() {
    let dir = tempfile::tempdir().unwrap();
    // Bind then drop a listener to get a port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let out = output({
        let mut cmd = rein(dir.path());
        cmd.args(["exec", "--base-url", &url, "hello"]);
        cmd
    })
    .await;
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains(&format!("127.0.0.1:{port}")), "{stderr}");
    assert!(stderr.contains("connection refused"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[tokio::test]
async fn api_error_shows_the_provider_message_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [{"fault": {"http": {"status": 401,
            "body": {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}}}}]}"#,
    )
    .await;
    let out = output({
        let mut cmd = rein(dir.path());
        cmd.args(["exec", "--base-url", &server.url(), "hello"]);
        cmd
    })
    .await;
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("ANTHROPIC_API_KEY"), "{stderr}");
    assert!(stderr.contains("invalid x-api-key"), "{stderr}");
}

#[tokio::test]
async fn bad_flags_and_workspaces_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec!["exec", "--output-format", "yaml", "x"],
        vec!["exec", "--cwd", "/definitely/not/here", "x"],
        vec!["exec", "--provider", "openai-chat", "x"],
        vec!["tool", "no_such_tool", "--args", "{}"],
        vec!["tool", "bash", "--args", "{not json"],
    ] {
        let out = output({
            let mut cmd = rein(dir.path());
            cmd.args(&args);
            cmd
        })
        .await;
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(!text(&out.stderr).contains("panicked"));
    }
}

#[tokio::test]
async fn version_names_the_crate_version_the_commit_and_the_build_date() {
    let dir = tempfile::tempdir().unwrap();
    let out = output({
        let mut cmd = rein(dir.path());
        cmd.arg("--version");
        cmd
    })
    .await;
    assert!(out.status.success());
    let said = text(&out.stdout);
    let rest = said
        .strip_prefix(&format!("rein {} (", env!("CARGO_PKG_VERSION")))
        .unwrap_or_else(|| panic!("{said}"));
    let (commit, date) = rest
        .trim_end()
        .trim_end_matches(')')
        .split_once(' ')
        .unwrap();
    // The commit this test was built from (git is there in a checkout).
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .map(|out| text(&out.stdout).trim().to_string())
        .unwrap_or_default();
    if !head.is_empty() {
        assert_eq!(commit, head, "{said}");
    }
    let parts: Vec<&str> = date.split('-').collect();
    assert_eq!(
        parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
        [4, 2, 2],
        "{said}"
    );
    assert!(
        date.as_bytes()
            .iter()
            .all(|b| b.is_ascii_digit() || *b == b'-'),
        "{said}"
    );
}

#[tokio::test]
async fn an_empty_reply_is_asked_again_once_then_reported() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{}, {"text": "here it is"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args(["exec", "--base-url", &server.url(), "answer me"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "here it is");
    assert_eq!(server.requests().len(), 2);
    // The retried request is the same: the empty reply is not in the transcript.
    assert_eq!(
        server.requests()[0].body["messages"],
        server.requests()[1].body["messages"]
    );

    let server = mock(r#"{"turns": [{}, {}, {"text": "never"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args(["exec", "--base-url", &server.url(), "answer me"]);
    let out = output(cmd).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("empty reply twice"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn zero_turns_is_refused_from_the_flag_and_the_config() {
    let dir = tempfile::tempdir().unwrap();
    let out = output({
        let mut cmd = rein(dir.path());
        cmd.args(["exec", "--max-turns", "0", "hi"]);
        cmd
    })
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--max-turns"),
        "{}",
        text(&out.stderr)
    );
    let config = dir.path().join(".rein-test-config/rein");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "max_turns = 0\n").unwrap();
    let out = output({
        let mut cmd = rein(dir.path());
        cmd.args(["exec", "hi"]);
        cmd
    })
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("at least 1 turn"),
        "{}",
        text(&out.stderr)
    );
}
