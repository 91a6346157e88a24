use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::*;

#[tokio::test]
async fn bash_json_output_matches_the_documented_shape() {
    let dir = tempfile::tempdir().unwrap();
    let out = output({
        let mut cmd = rein(dir.path());
        cmd.args([
            "tool",
            "bash",
            "--args",
            r#"{"command":"echo hi"}"#,
            "--json",
        ]);
        cmd
    })
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let value: Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    assert_eq!(value["is_error"], json!(false));
    assert!(value["output"].as_str().unwrap().contains("hi"), "{value}");
}

#[tokio::test]
async fn read_file_reads_stdin_arguments_in_the_given_cwd() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "alpha\nbeta\n").unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let out = tokio::task::spawn_blocking({
        let cwd = dir.path().to_path_buf();
        let mut cmd = rein(elsewhere.path());
        cmd.args(["tool", "read_file", "--cwd"]).arg(cwd);
        move || {
            use std::io::Write;
            let mut child = cmd
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(br#"{"path":"notes.txt"}"#)
                .unwrap();
            child.wait_with_output().unwrap()
        }
    })
    .await
    .unwrap();
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    assert!(stdout.contains("     1\talpha"), "{stdout}");
    assert!(stdout.contains("     2\tbeta"), "{stdout}");
}

#[tokio::test]
async fn a_failing_tool_exits_1_and_reports_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = output({
        let mut cmd = rein(dir.path());
        cmd.args([
            "tool",
            "bash",
            "--json",
            "--args",
            r#"{"command":"echo oops >&2; exit 4"}"#,
        ]);
        cmd
    })
    .await;
    assert_eq!(out.status.code(), Some(1));
    let value: Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    assert_eq!(value["is_error"], json!(true));
    let output = value["output"].as_str().unwrap();
    assert!(
        output.contains("exit code 4") && output.contains("oops"),
        "{output}"
    );
}

#[tokio::test]
async fn paths_outside_the_workspace_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = output({
        let mut cmd = rein(dir.path());
        cmd.args([
            "tool",
            "read_file",
            "--args",
            r#"{"path":"../../../etc/passwd"}"#,
        ]);
        cmd
    })
    .await;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("outside"),
        "{}",
        text(&out.stdout)
    );
}

#[tokio::test]
async fn tool_list_shows_every_tool_with_its_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let out = output({
        let mut cmd = rein(dir.path());
        cmd.args(["tool", "--list"]);
        cmd
    })
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    for tool in [
        "bash",
        "read_file",
        "write_file",
        "edit_file",
        "glob",
        "grep",
    ] {
        assert!(
            said.lines().any(|l| l.starts_with(&format!("  {tool} "))),
            "{tool} missing: {said}"
        );
    }
    // One line of what it does and one of its arguments each, not the schemas.
    assert!(
        said.contains("arguments: path*, old_string*, new_string*, replace_all"),
        "{said}"
    );
    assert!(!said.contains("\"properties\""), "{said}");
    assert!(said.len() < 4000, "{}", said.len());
    // The tools a session adds are named.
    for tool in [
        "task",
        "skill",
        "exit_plan_mode",
        "ask_user_question",
        "rein mcp list",
    ] {
        assert!(said.contains(tool), "{tool}: {said}");
    }
}

#[tokio::test]
async fn tool_help_names_each_tool_and_its_arguments_and_list_shows_one() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &'static [&'static str]| {
        let mut cmd = rein(dir.path());
        cmd.args(args);
        output(cmd)
    };
    let out = run(&["tool", "--help"]).await;
    assert!(out.status.success());
    let help = text(&out.stdout);
    assert!(
        help.lines().any(|l| l.trim()
            == "bash         command*, timeout_ms, unsandboxed, run_in_background, tty, yield_ms"),
        "{help}"
    );
    assert!(
        help.contains("edit_file    path*, old_string*, new_string*, replace_all"),
        "{help}"
    );

    let out = run(&["tool", "--list", "glob"]).await;
    assert!(out.status.success());
    let one = text(&out.stdout);
    assert!(one.starts_with("glob\n"), "{one}");
    assert!(!one.contains("read_file"), "{one}");

    let out = run(&["tool", "--list", "nope"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown tool \"nope\"; available: bash"));
}
