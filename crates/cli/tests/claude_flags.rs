//! Claude Code's flags, as its users and scripts pass them: `-p`, `-r`,
//! `--dangerously-skip-permissions`, `--system-prompt[-file]`, `--append-system-prompt`,
//! `--verbose`.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use crate::support::*;

const ANSWER: &str = r#"{"turns": [{"text": "arr"}]}"#;

/// Runs `cmd` with `input` on its standard input.
async fn output_with_stdin(mut cmd: Command, input: &'static str) -> Output {
    tokio::task::spawn_blocking(move || {
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap()
}

/// Runs `rein` in `dir` with `args`, which it must refuse as a usage error (exit 2) saying
/// `expected` on stderr.
async fn refused(dir: &std::path::Path, args: &[&str], expected: &str) {
    let mut cmd = rein(dir);
    cmd.args(args);
    let out = output(cmd).await;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains(expected), "{args:?}: {stderr}");
}

/// The system prompt the server's first request carried (Anthropic's one text block).
fn first_system(server: &rein_testkit::MockServer) -> String {
    server.requests()[0].body["system"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn print_runs_headless_and_skipping_permissions_is_bypass_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.sh"), "echo hello world\n").unwrap();
    let server = mock(DEMO).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "-p",
        "--base-url",
        &server.url(),
        "--dangerously-skip-permissions",
        "make hello.sh greet rein",
    ]);
    let out = output(cmd).await;
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        text(&out.stdout),
        "Done: hello.sh now prints \"hello rein\".\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("hello.sh")).unwrap(),
        "echo hello rein\n",
        "the edit ran without approval"
    );
    assert_eq!(
        stderr
            .matches("--dangerously-skip-permissions: every tool call runs without asking")
            .count(),
        1,
        "{stderr}"
    );
}

#[tokio::test]
async fn print_reads_a_piped_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(ANSWER).await;
    let mut cmd = rein(dir.path());
    cmd.args(["--print", "--base-url", &server.url()]);
    let out = output_with_stdin(cmd, "what is in this folder?\n").await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "arr\n");
    assert!(
        last_message(&server, 0).contains("what is in this folder?"),
        "{}",
        last_message(&server, 0)
    );
}

#[tokio::test]
async fn the_system_prompt_is_replaced_or_extended() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("AGENTS.md"), "Use tabs.\n").unwrap();
    std::fs::write(dir.path().join("prompt.txt"), "You are a pirate.\n").unwrap();
    for (flags, opening) in [
        (
            vec!["--system-prompt", "You are a pirate."],
            "You are a pirate.",
        ),
        (
            vec!["--system-prompt-file", "prompt.txt"],
            "You are a pirate.",
        ),
        (vec![], "You are rein, a coding agent"),
    ] {
        let server = mock(ANSWER).await;
        let mut cmd = rein(dir.path());
        cmd.args(["-p", "--base-url", &server.url()]);
        cmd.args(&flags);
        cmd.args(["--append-system-prompt", "Always answer arr.", "hi"]);
        let out = output(cmd).await;
        assert!(out.status.success(), "{flags:?}: {}", text(&out.stderr));
        let system = first_system(&server);
        assert!(system.starts_with(opening), "{flags:?}: {system}");
        assert_eq!(
            system.contains("You are rein"),
            flags.is_empty(),
            "{flags:?}: rein's opening is replaced"
        );
        // What the workspace and the environment say is still sent; the addition ends it.
        assert!(system.contains("Use tabs."), "{flags:?}: {system}");
        assert!(system.contains("# Environment"), "{flags:?}: {system}");
        assert!(
            system.trim_end().ends_with("Always answer arr."),
            "{flags:?}: {system}"
        );
    }
}

#[tokio::test]
async fn a_missing_system_prompt_file_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["-p", "--system-prompt-file", "nope.txt", "hi"];
    refused(
        dir.path(),
        &args,
        "--system-prompt-file: cannot read nope.txt",
    )
    .await;
}

#[tokio::test]
async fn resume_without_an_id_in_a_headless_run_says_how_to_name_one() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(ANSWER).await;
    let mut first = rein(dir.path());
    first.args(["-p", "--base-url", &server.url(), "hi"]);
    assert!(output(first).await.status.success());
    let id = session_files(dir.path())[0]
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let mut cmd = rein(dir.path());
    // `-r` takes the next word as its id: the prompt comes first.
    cmd.args(["-p", "go on", "-r", "--base-url", &server.url()]);
    let out = output(cmd).await;
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("--resume needs a session id in a headless run")
            && stderr.contains(&format!("(latest: {id})")),
        "{stderr}"
    );
}

#[tokio::test]
async fn verbose_is_accepted_and_a_mistyped_flag_names_the_right_one() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(ANSWER).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "-p",
        "--verbose",
        "--output-format",
        "stream-json",
        "--base-url",
        &server.url(),
        "hi",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("\"arr\""));
    let typo = ["-p", "--append-system-promt", "x", "hi"];
    refused(dir.path(), &typo, "--append-system-prompt").await;
}

#[tokio::test]
async fn a_budget_stops_the_run_before_the_request_that_would_pass_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.sh"), "echo hello world\n").unwrap();
    let server = mock(DEMO).await;
    let mut cmd = rein(dir.path());
    // The demo's first reply costs ~$0.0077 at Sonnet's prices; its second ~$0.0014.
    cmd.args([
        "-p",
        "--base-url",
        &server.url(),
        "--dangerously-skip-permissions",
        "--max-budget-usd",
        "0.008",
        "--output-format",
        "stream-json",
        "make hello.sh greet rein",
    ]);
    let out = output(cmd).await;
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert_eq!(
        server.requests().len(),
        2,
        "stopped before the third request"
    );
    let result: serde_json::Value =
        serde_json::from_str(text(&out.stdout).lines().last().unwrap()).unwrap();
    assert_eq!(result["outcome"], "max_budget", "{result}");
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("which reaches the --max-budget-usd limit of $0.008"),
        "{stdout}"
    );
    let bad = ["-p", "--max-budget-usd", "0", "hi"];
    refused(dir.path(), &bad, "not a positive amount of dollars").await;
    let server = mock(ANSWER).await;
    let mut unpriced = rein(dir.path());
    unpriced.args([
        "-p",
        "--model",
        "local-llama",
        "--base-url",
        &server.openai_url(),
        "--max-budget-usd",
        "1",
        "hi",
    ]);
    let out = output(unpriced).await;
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr
            .contains("--max-budget-usd cannot apply: rein does not know the price of local-llama"),
        "{stderr}"
    );
}

#[tokio::test]
async fn settings_files_and_inline_settings_apply_over_the_rest() {
    let allow = r#"{"permissions": {"allow": ["Bash(sed *)", "Bash(bash hello.sh)"]}}"#;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("allow.json"), allow).unwrap();
    for settings in [allow, "allow.json"] {
        std::fs::write(dir.path().join("hello.sh"), "echo hello world\n").unwrap();
        let server = mock(DEMO).await;
        let mut cmd = rein(dir.path());
        cmd.args([
            "-p",
            "--base-url",
            &server.url(),
            "--settings",
            settings,
            "make hello.sh greet rein",
        ]);
        let out = output(cmd).await;
        assert!(out.status.success(), "{settings}: {}", text(&out.stderr));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("hello.sh")).unwrap(),
            "echo hello rein\n",
            "{settings}: the allow rules let the edit run in the default mode"
        );
    }
    let missing = ["-p", "--settings", "nope.json", "hi"];
    refused(dir.path(), &missing, "--settings: nope.json: no such file").await;
}

/// The tool names the server's first request offered.
fn offered_tools(server: &rein_testkit::MockServer) -> Vec<String> {
    server.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn mcp_config_adds_servers_and_strict_keeps_only_those() {
    let dir = tempfile::tempdir().unwrap();
    let kit = rein_testkit::mcp_test_server().display().to_string();
    let user = dir.path().join(".rein-test-config/rein");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("config.toml"),
        format!("[mcp_servers.other]\ncommand = {kit:?}\n"),
    )
    .unwrap();
    let inline = serde_json::json!({"mcpServers": {"kit": {"command": kit}}}).to_string();
    std::fs::write(dir.path().join("servers.json"), &inline).unwrap();
    for (config, strict) in [(inline.as_str(), false), ("servers.json", true)] {
        let server = mock(ANSWER).await;
        let mut cmd = rein(dir.path());
        cmd.args(["-p", "--base-url", &server.url(), "--mcp-config", config]);
        if strict {
            cmd.arg("--strict-mcp-config");
        }
        cmd.arg("hi");
        let out = output(cmd).await;
        assert!(out.status.success(), "{config}: {}", text(&out.stderr));
        let tools = offered_tools(&server);
        assert!(tools.contains(&"mcp__kit__echo".to_string()), "{tools:?}");
        assert_eq!(
            tools.contains(&"mcp__other__echo".to_string()),
            !strict,
            "{config}: {tools:?}"
        );
    }
    let missing = ["-p", "--mcp-config", "nope.json", "hi"];
    refused(
        dir.path(),
        &missing,
        "--mcp-config: nope.json: no such file",
    )
    .await;
}

#[tokio::test]
async fn stream_json_input_runs_each_message_in_one_session() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "first answer"}, {"text": "second answer"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "-p",
        "--base-url",
        &server.url(),
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
    ]);
    let input = concat!(
        r#"{"type":"user","message":{"role":"user","content":"question one"}}"#,
        "\n{oops\n",
        r#"{"type":"control_request","request":{}}"#,
        "\n\n",
        r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"question two"}]}}"#,
        "\n"
    );
    let out = output_with_stdin(cmd, input).await;
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let results: Vec<String> = text(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["type"] == "result")
        .map(|e| e["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(results, ["first answer", "second answer"]);
    assert!(
        stderr.contains("standard input line 2 skipped: not JSON"),
        "{stderr}"
    );
    assert!(
        stderr.contains("standard input line 3 skipped: a line of type \"control_request\""),
        "{stderr}"
    );
    // One session: the second request carries the first exchange.
    let second = server.requests()[1].body["messages"].to_string();
    assert!(
        second.contains("question one") && second.contains("first answer"),
        "{second}"
    );
    let both = ["-p", "--input-format", "stream-json", "hi"];
    refused(dir.path(), &both, "the messages come on standard input").await;
}

#[tokio::test]
async fn add_dir_lets_the_file_tools_reach_another_folder_under_the_same_rules() {
    let base = tempfile::tempdir().unwrap();
    let ws = base.path().join("ws");
    let other = base.path().join("other");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(other.join(".git/hooks")).unwrap();
    std::fs::write(other.join("notes.txt"), "shared notes\n").unwrap();
    std::fs::write(other.join(".env"), "KEY=secret\n").unwrap();
    let other = std::fs::canonicalize(&other).unwrap();
    let at = |name: &str| other.join(name).display().to_string();
    let call = |name: &str, args: serde_json::Value| serde_json::json!({"tool_calls": [{"name": name, "arguments": args}]});
    let turns = [
        call("read_file", serde_json::json!({"path": at("notes.txt")})),
        call(
            "write_file",
            serde_json::json!({"path": at("made.txt"), "content": "made\n"}),
        ),
        call("read_file", serde_json::json!({"path": at(".env")})),
        call(
            "write_file",
            serde_json::json!({"path": at(".git/hooks/pre-commit"), "content": "x"}),
        ),
        serde_json::json!({"text": "done"}),
    ];
    let scenario = serde_json::json!({ "turns": turns }).to_string();
    for added in [true, false] {
        let server = mock(&scenario).await;
        let mut cmd = rein(&ws);
        cmd.args([
            "-p",
            "--base-url",
            &server.url(),
            "--permission-mode",
            "accept-edits",
        ]);
        if added {
            cmd.args(["--add-dir", "../other"]);
        }
        cmd.arg("use the other folder");
        let out = output(cmd).await;
        assert!(out.status.success(), "{}", text(&out.stderr));
        let results: Vec<String> = (1..5).map(|n| last_message(&server, n)).collect();
        if added {
            assert!(results[0].contains("shared notes"), "{}", results[0]);
            assert_eq!(
                std::fs::read_to_string(other.join("made.txt")).unwrap(),
                "made\n"
            );
            assert!(
                results[2].contains("off-limits path (.env*)"),
                "{}",
                results[2]
            );
            // `.git/hooks` of an added folder is protected as the workspace's is.
            assert!(results[3].contains("Not run"), "{}", results[3]);
            assert!(!other.join(".git/hooks/pre-commit").exists());
            let system = server.requests()[0].body["system"][0]["text"].to_string();
            assert!(system.contains("Also in the workspace"), "{system}");
        } else {
            assert!(
                results[0].contains("outside the workspace"),
                "{}",
                results[0]
            );
        }
        let _ = std::fs::remove_file(other.join("made.txt"));
    }
    refused(
        &ws,
        &["-p", "--add-dir", "../nope", "hi"],
        "--add-dir ../nope",
    )
    .await;
}

#[tokio::test]
async fn configured_additional_directories_are_added_and_a_missing_one_is_said() {
    let base = tempfile::tempdir().unwrap();
    let ws = base.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(base.path().join("other")).unwrap();
    std::fs::write(base.path().join("other/notes.txt"), "shared notes\n").unwrap();
    write_user_config(
        &ws,
        "additional_directories = [\"../other\", \"../gone\"]\n",
    );
    let notes = std::fs::canonicalize(base.path().join("other/notes.txt")).unwrap();
    let scenario = serde_json::json!({"turns": [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": notes}}]},
        {"text": "done"}
    ]})
    .to_string();
    let server = mock(&scenario).await;
    let mut cmd = rein(&ws);
    cmd.args(["-p", "--base-url", &server.url(), "read the notes"]);
    let out = output(cmd).await;
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(last_message(&server, 1).contains("shared notes"));
    assert!(stderr.contains("additional directory ../gone"), "{stderr}");
}

#[tokio::test]
async fn opusplan_plans_with_opus_and_works_with_sonnet_on_anthropic() {
    let dir = tempfile::tempdir().unwrap();
    for (mode, expected) in [
        ("plan", "claude-opus-4-1"),
        ("default", "claude-sonnet-4-5"),
    ] {
        let server = mock(r#"{"turns": [{"text": "ok"}]}"#).await;
        let mut cmd = rein(dir.path());
        cmd.args(["-p", "--model", "opusplan", "--base-url", &server.url()])
            .args(["--permission-mode", mode, "hi"]);
        let out = output(cmd).await;
        assert!(out.status.success(), "{mode}: {}", text(&out.stderr));
        let request = &server.requests()[0];
        assert_eq!(request.body["model"], expected, "{mode}");
        assert!(request.path.ends_with("/v1/messages"), "{}", request.path);
    }
}
