//! `rein eval` runs of one task: limits (budget, time), the sandboxed setup and check, git
//! repositories at a commit, bad task files.
#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::eval::{eval, eval_cmd, records};
use crate::sandbox::sandbox_ready;
use crate::support::*;

/// One task with its own fields over the run's.
fn one_task(root: &Path, fields: Value) -> PathBuf {
    let repo = root.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::write(repo.join("answer.txt"), "wrong\n").unwrap();
    let mut task = json!({"id": "solo", "repo": "repo", "prompt": "Fix it for task solo.",
        "check": "grep -qx right answer.txt"});
    for (key, value) in fields.as_object().unwrap() {
        task[key] = value.clone();
    }
    let tasks = root.join("tasks.jsonl");
    std::fs::write(&tasks, format!("{task}\n")).unwrap();
    tasks
}

#[tokio::test]
async fn a_run_over_its_budget_ends_by_the_budget() {
    if !sandbox_ready("a_run_over_its_budget_ends_by_the_budget") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    // The first reply costs $0.0045; the budget is $0.001, so no second request is made.
    let tasks = one_task(root.path(), json!({"max_budget_usd": 0.001}));
    let server = mock(
        &json!({"turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "true"}}],
             "usage": {"input_tokens": 1000, "output_tokens": 100}},
            {"text": "never asked"}
        ]})
        .to_string(),
    )
    .await;
    let file = root.path().join("r.jsonl");
    let out = eval(
        root.path(),
        &server.url(),
        &[tasks.to_str().unwrap(), "--out", file.to_str().unwrap()],
    )
    .await;
    let record = &records(&file)[0];
    assert_eq!(record["ended_by"], "budget", "{record}");
    assert_eq!(record["solved"], false);
    assert_eq!(record["turns"], 1, "{record}");
    assert_eq!(server.requests().len(), 1);
    assert!(text(&out.stdout).contains("budget"));
}

#[tokio::test]
async fn a_hung_check_is_killed_at_the_tasks_timeout_with_its_children() {
    if !sandbox_ready("a_hung_check_is_killed_at_the_tasks_timeout_with_its_children") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    // A marker only this test's processes carry.
    let marker = format!("61.{}", std::process::id());
    let tasks = one_task(
        root.path(),
        json!({"timeout": 2, "check": format!("sleep {marker} & sleep {marker}; true")}),
    );
    let server = mock(r#"{"turns": [{"text": "nothing to do"}]}"#).await;
    let file = root.path().join("r.jsonl");
    eval(
        root.path(),
        &server.url(),
        &[tasks.to_str().unwrap(), "--out", file.to_str().unwrap()],
    )
    .await;
    let record = &records(&file)[0];
    assert_eq!(record["check"], "timeout", "{record}");
    assert_eq!(record["solved"], false);
    assert_eq!(record["ended_by"], "done", "{record}");
    assert!(
        record["error"].as_str().unwrap().contains("timed out"),
        "{record}"
    );
    let left = std::process::Command::new("pgrep")
        .args(["-f", &format!("sleep {marker}")])
        .output()
        .unwrap();
    assert!(
        left.stdout.is_empty(),
        "still running: {}",
        text(&left.stdout)
    );
}

#[tokio::test]
async fn the_check_runs_in_the_sandbox_and_cannot_write_outside_its_copy() {
    if !sandbox_ready("the_check_runs_in_the_sandbox_and_cannot_write_outside_its_copy") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let escaped = root.path().join("escaped");
    let check = format!("touch {}", escaped.display());
    let tasks = one_task(
        root.path(),
        json!({"check": check, "setup": "echo set > up.txt"}),
    );
    let server = mock(r#"{"turns": [{"text": "nothing to do"}]}"#).await;
    let file = root.path().join("r.jsonl");
    eval(
        root.path(),
        &server.url(),
        &[
            tasks.to_str().unwrap(),
            "--out",
            file.to_str().unwrap(),
            "--keep",
            // Kept copies stay in the test's own folder.
            "--work-dir",
            root.path().join("runs").to_str().unwrap(),
        ],
    )
    .await;
    let record = &records(&file)[0];
    assert_eq!(record["check"], "failed", "{record}");
    assert!(!escaped.exists());
    // The setup ran in the copy, which --keep left in place.
    let copy = PathBuf::from(record["workspace"].as_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(copy.join("up.txt")).unwrap(),
        "set\n"
    );
    assert_eq!(copy.file_name().unwrap(), "solo");
}

#[tokio::test]
async fn a_failing_setup_ends_the_run_before_the_agent() {
    let root = tempfile::tempdir().unwrap();
    let tasks = one_task(
        root.path(),
        json!({"setup": "echo no database >&2; exit 3"}),
    );
    let server = mock(r#"{"turns": [{"text": "never asked"}]}"#).await;
    let file = root.path().join("r.jsonl");
    eval(
        root.path(),
        &server.url(),
        &[
            tasks.to_str().unwrap(),
            "--out",
            file.to_str().unwrap(),
            "--sandbox",
            "off",
            "--permission-mode",
            "bypass",
        ],
    )
    .await;
    let record = &records(&file)[0];
    assert_eq!(record["ended_by"], "setup", "{record}");
    assert_eq!(record["check"], "not_run", "{record}");
    assert!(record["error"].as_str().unwrap().contains("no database"));
    assert!(server.requests().is_empty());
}

pub(crate) fn git(dir: &Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

#[tokio::test]
async fn a_git_url_is_cloned_once_and_each_run_starts_at_the_commit() {
    let root = tempfile::tempdir().unwrap();
    let upstream = root.path().join("upstream");
    std::fs::create_dir(&upstream).unwrap();
    git(&upstream, &["init", "-q"]);
    std::fs::write(upstream.join("version.txt"), "1\n").unwrap();
    git(&upstream, &["add", "."]);
    git(&upstream, &["commit", "-qm", "one"]);
    let first = std::process::Command::new("git")
        .arg("-C")
        .arg(&upstream)
        .args(["rev-parse", "HEAD"])
        .output()
        .unwrap();
    let first = text(&first.stdout).trim().to_string();
    std::fs::write(upstream.join("version.txt"), "2\n").unwrap();
    git(&upstream, &["commit", "-qam", "two"]);
    let url = format!("file://{}", upstream.display());
    let task = json!({"id": "old", "repo": url, "commit": first, "prompt": "Look for task old.",
        "check": "grep -qx 1 version.txt && test -d .git"});
    let tasks = root.path().join("tasks.jsonl");
    std::fs::write(&tasks, format!("{task}\n")).unwrap();
    let server = mock(r#"{"turns": [{"text": "ok"}, {"text": "ok"}]}"#).await;
    let file = root.path().join("r.jsonl");
    let out = eval(
        root.path(),
        &server.url(),
        &[
            tasks.to_str().unwrap(),
            "--out",
            file.to_str().unwrap(),
            "--repeat",
            "2",
            "--sandbox",
            "off",
            "--permission-mode",
            "bypass",
        ],
    )
    .await;
    let stderr = text(&out.stderr);
    assert_eq!(stderr.matches("cloning").count(), 1, "{stderr}");
    let results = records(&file);
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|r| r["solved"] == true), "{results:?}");
    let summary = text(&out.stdout);
    assert!(
        summary.ends_with("solved 2/2 (100.0%, 95% CI 34.2–100.0%)\n"),
        "{summary}"
    );
    let mirrors = std::fs::read_dir(root.path().join("cache/rein/eval/repos")).unwrap();
    assert_eq!(mirrors.count(), 1);
}

#[tokio::test]
async fn a_bad_task_file_is_refused_with_its_line() {
    let root = tempfile::tempdir().unwrap();
    let tasks = root.path().join("tasks.jsonl");
    std::fs::write(
        &tasks,
        "{\"id\": \"a\", \"repo\": \"r\", \"prompt\": \"p\", \"check\": \"c\"}\n{\"id\": \"a\"}\n",
    )
    .unwrap();
    let out = output(eval_cmd(root.path(), &[tasks.to_str().unwrap()])).await;
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("line 2: not a task"), "{stderr}");
    let none = output(eval_cmd(root.path(), &[])).await;
    assert_eq!(none.status.code(), Some(2));
    assert!(text(&none.stderr).contains("name a task file"));
}

#[tokio::test]
async fn an_agent_over_its_time_is_stopped_and_what_it_used_is_kept() {
    if !sandbox_ready("an_agent_over_its_time_is_stopped_and_what_it_used_is_kept") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let marker = format!("62.{}", std::process::id());
    let tasks = one_task(root.path(), json!({"timeout": 2}));
    let server = mock(
        &json!({"turns": [
            {"tool_calls": [{"name": "bash",
                "arguments": {"command": format!("sleep {marker}"), "timeout_ms": 100000}}],
             "usage": {"input_tokens": 1000, "output_tokens": 100}},
            {"text": "never asked"}
        ]})
        .to_string(),
    )
    .await;
    let file = root.path().join("r.jsonl");
    eval(
        root.path(),
        &server.url(),
        &[tasks.to_str().unwrap(), "--out", file.to_str().unwrap()],
    )
    .await;
    let record = &records(&file)[0];
    assert_eq!(record["ended_by"], "timeout", "{record}");
    assert_eq!(record["turns"], 1, "{record}");
    assert_eq!(record["tool_calls"], 1, "{record}");
    assert_eq!(record["input_tokens"], 1000, "{record}");
    assert!(record["session_id"].is_string(), "{record}");
    assert_eq!(record["check"], "failed", "{record}");
    let left = std::process::Command::new("pgrep")
        .args(["-f", &format!("sleep {marker}")])
        .output()
        .unwrap();
    assert!(
        left.stdout.is_empty(),
        "still running: {}",
        text(&left.stdout)
    );
}

#[tokio::test]
async fn ctrl_c_stops_the_runs_and_records_none_of_those_cut_short() {
    let root = tempfile::tempdir().unwrap();
    let tasks = one_task(root.path(), json!({}));
    let server = mock(r#"{"turns": [{"text": "slow", "delay_ms": 30000}]}"#).await;
    let file = root.path().join("r.jsonl");
    let mut cmd = eval_cmd(
        root.path(),
        &[
            tasks.to_str().unwrap(),
            "--base-url",
            &server.url(),
            "--out",
            file.to_str().unwrap(),
            "--sandbox",
            "off",
            "--permission-mode",
            "bypass",
        ],
    );
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().unwrap();
    until("the agent's first request", || server.requests().len() == 1).await;
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("run again to go on"));
    // The run cut short is not in the file: the next evaluation does it.
    let kept = std::fs::read_to_string(&file).unwrap_or_default();
    assert!(kept.is_empty(), "{kept}");
}

/// A task file is data: the repositories it names cannot reach the user's home, a folder
/// outside its own, or a git transport that runs a command; nothing runs and nobody is asked.
#[tokio::test]
async fn a_task_file_cannot_name_the_home_folder_an_outside_folder_or_a_command_transport() {
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE KEY").unwrap();
    let suite = home.join("datasets/suite");
    std::fs::create_dir_all(suite.join("repo")).unwrap();
    std::fs::create_dir_all(root.path().join("elsewhere")).unwrap();
    let canary = root.path().join("pwned");
    let cases = [
        ("../..", "never the home folder"),
        ("../../..", "never the home folder"),
        ("../../.ssh", "a sensitive folder"),
        ("../../../elsewhere", "--repo-root"),
        (
            &format!("ext::sh -c touch% {}", canary.display()),
            "runs commands",
        ),
        ("fd::0", "runs commands"),
        ("--upload-pack=touch /tmp/x", "starts with `-`"),
    ];
    let server = mock(r#"{"turns": [{"text": "never asked"}]}"#).await;
    for (repo, why) in cases {
        let task = json!({"id": "t", "repo": repo, "prompt": "p", "check": "true",
            "setup": format!("touch {}", canary.display())});
        let tasks = suite.join("tasks.jsonl");
        std::fs::write(&tasks, format!("{task}\n")).unwrap();
        let mut cmd = eval_cmd(
            root.path(),
            &["--base-url", &server.url(), tasks.to_str().unwrap()],
        );
        cmd.env("HOME", &home);
        let out = output(cmd).await;
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{repo}: {stderr}");
        assert!(stderr.contains(why), "{repo}: {stderr}");
        assert!(!canary.exists(), "{repo}: something ran");
    }
    assert!(server.requests().is_empty());
    // Control: the folder beside the task file runs.
    let task = json!({"id": "t", "repo": "repo", "prompt": "p", "check": "true"});
    let tasks = suite.join("tasks.jsonl");
    std::fs::write(&tasks, format!("{task}\n")).unwrap();
    let file = root.path().join("r.jsonl");
    let mut cmd = eval_cmd(
        root.path(),
        &[
            "--base-url",
            &server.url(),
            tasks.to_str().unwrap(),
            "--out",
            file.to_str().unwrap(),
            "--sandbox",
            "off",
        ],
    );
    cmd.env("HOME", &home);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(records(&file)[0]["solved"], true);
}

/// A gateway key given by --api-key-env is a secret like the provider keys: a task's setup and
/// check do not inherit it, so it cannot reach the results file.
#[tokio::test]
async fn the_tasks_own_commands_never_see_the_gateway_key() {
    let root = tempfile::tempdir().unwrap();
    let tasks = one_task(
        root.path(),
        json!({"setup": "echo \"key=[$GATEWAY_KEY]\" >&2; exit 3"}),
    );
    let server = mock(r#"{"turns": [{"text": "never asked"}]}"#).await;
    let file = root.path().join("r.jsonl");
    let mut cmd = eval_cmd(
        root.path(),
        &[
            "--base-url",
            &server.url(),
            "--api-key-env",
            "GATEWAY_KEY",
            tasks.to_str().unwrap(),
            "--out",
            file.to_str().unwrap(),
            "--sandbox",
            "off",
        ],
    );
    cmd.env("GATEWAY_KEY", "gw-secret-0123456789abcdef");
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let results = std::fs::read_to_string(&file).unwrap();
    assert!(results.contains("key=[]"), "{results}");
    assert!(!results.contains("gw-secret"), "{results}");
}
