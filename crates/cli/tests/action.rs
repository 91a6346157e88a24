//! rein's GitHub Action (`action.yml`, its script `scripts/action/run.py`) run here as the
//! runner would: a real event payload (GitHub's documented examples), the runner's files
//! (`GITHUB_STEP_SUMMARY`, `GITHUB_OUTPUT`), rein against the mock, and a fake GitHub API on
//! 127.0.0.1 taking the comment.
#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, StatusCode};
use serde_json::{Value, json};

use crate::support::{mock, output, rein, text};

/// A comment posted to the fake API: its path, its `Authorization` and its body.
type Posted = Arc<Mutex<Vec<(String, String, Value)>>>;

/// A fake of GitHub's "create an issue comment" endpoint; its base URL and what it got.
async fn fake_github() -> (String, Posted) {
    let posted = Posted::default();
    let app = axum::Router::new()
        .route(
            "/repos/{owner}/{repo}/issues/{number}/comments",
            axum::routing::post(
                |State(posted): State<Posted>,
                 UrlPath((owner, repo, number)): UrlPath<(String, String, u64)>,
                 headers: HeaderMap,
                 body: axum::Json<Value>| async move {
                    let auth = (headers.get("authorization"))
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or_default()
                        .to_string();
                    posted
                        .lock()
                        .unwrap()
                        .push((format!("{owner}/{repo}#{number}"), auth, body.0));
                    (StatusCode::CREATED, axum::Json(json!({"id": 1})))
                },
            ),
        )
        .with_state(posted.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, posted)
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/github")
        .join(name)
}

/// The runner's side of one run: the script with these inputs and this event.
struct Runner<'a> {
    workspace: &'a Path,
    event: (&'a str, &'a str),
    inputs: Vec<(&'a str, String)>,
    api: String,
}

impl Runner<'_> {
    async fn run(&self) -> (Output, String, String) {
        let summary = self.workspace.join(".runner-summary.md");
        let outputs = self.workspace.join(".runner-output");
        let mut cmd = Command::new("python3");
        for (key, value) in rein(self.workspace).get_envs() {
            match value {
                Some(value) => cmd.env(key, value),
                None => cmd.env_remove(key),
            };
        }
        cmd.current_dir(self.workspace)
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/action/run.py"))
            .env("REIN_BIN", env!("CARGO_BIN_EXE_rein"))
            .env("GITHUB_EVENT_NAME", self.event.0)
            .env("GITHUB_EVENT_PATH", fixture(self.event.1))
            .env("GITHUB_REPOSITORY", "Codertocat/Hello-World")
            .env("GITHUB_API_URL", &self.api)
            .env("GITHUB_RUN_ID", "42")
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env("GITHUB_OUTPUT", &outputs);
        for (name, value) in &self.inputs {
            cmd.env(
                format!("INPUT_{}", name.to_uppercase().replace('-', "_")),
                value,
            );
        }
        let out = output(cmd).await;
        let read = |path: &Path| std::fs::read_to_string(path).unwrap_or_default();
        (out, read(&summary), read(&outputs))
    }
}

fn ready(test: &str) -> bool {
    rein_testkit::require("python3", "--version", test)
}

#[tokio::test]
async fn a_pull_request_run_posts_the_answer_as_a_comment_and_a_summary() {
    if !ready("a_pull_request_run_posts_the_answer_as_a_comment_and_a_summary") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "The README change looks right."}]}"#).await;
    let (api, posted) = fake_github().await;
    let runner = Runner {
        workspace: dir.path(),
        event: ("pull_request", "pull_request.json"),
        inputs: vec![
            ("prompt", "Review this pull request.".into()),
            ("post", "both".into()),
            ("github-token", "t0ken".into()),
            ("permission-mode", "plan".into()),
            ("max-budget-usd", "1".into()),
            ("args", format!("--base-url {}", server.url())),
        ],
        api,
    };
    let (out, summary, outputs) = runner.run().await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let request = server.requests()[0].body.to_string();
    for expected in [
        "Review this pull request.",
        "Pull request #2 \\\"Update the README with new information.\\\"",
        "changes into master",
        "This is a pretty simple change that we need to pull into master.",
        "written by users, not by the person who set up this workflow",
    ] {
        assert!(request.contains(expected), "{expected}: {request}");
    }
    assert!(
        summary.starts_with("## rein\n\nThe README change looks right.\n"),
        "{summary}"
    );
    assert!(
        summary.contains("rein · outcome completed · exit 0 · 1 turns"),
        "{summary}"
    );
    assert!(summary.contains("[run](https://github.com/Codertocat/Hello-World/actions/runs/42)"));
    let posted = posted.lock().unwrap().clone();
    assert_eq!(posted.len(), 1, "{posted:?}");
    let (target, auth, body) = &posted[0];
    assert_eq!(
        (target.as_str(), auth.as_str()),
        ("Codertocat/Hello-World#2", "Bearer t0ken")
    );
    assert!(
        body["body"]
            .as_str()
            .unwrap()
            .starts_with("The README change looks right.\n\n---\nrein · "),
        "{body}"
    );
    assert!(outputs.contains("outcome=completed\n"), "{outputs}");
    assert!(outputs.contains("exit-code=0\n"), "{outputs}");
    assert!(
        outputs.contains("answer=The README change looks right.\n"),
        "{outputs}"
    );
    assert!(outputs.contains("session-id=20"), "{outputs}");
}

#[tokio::test]
async fn a_run_over_its_budget_fails_the_step_with_code_4_and_says_so() {
    if !ready("a_run_over_its_budget_fails_the_step_with_code_4_and_says_so") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    // The first reply costs $0.0075 at Sonnet's prices; the budget is $0.001.
    let server = mock(
        r#"{"turns": [
          {"text": "Reading.", "tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}],
           "usage": {"input_tokens": 2000, "output_tokens": 100}},
          {"text": "never asked"}
        ]}"#,
    )
    .await;
    let (api, posted) = fake_github().await;
    let runner = Runner {
        workspace: dir.path(),
        event: ("pull_request", "pull_request.json"),
        inputs: vec![
            ("prompt", "Summarise a.txt.".into()),
            ("max-budget-usd", "0.001".into()),
            ("args", format!("--base-url {}", server.url())),
        ],
        api,
    };
    let (out, summary, outputs) = runner.run().await;
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert_eq!(server.requests().len(), 1);
    assert!(
        summary.contains("rein · outcome max_budget · exit 4"),
        "{summary}"
    );
    assert!(outputs.contains("outcome=max_budget\n"), "{outputs}");
    assert!(outputs.contains("exit-code=4\n"), "{outputs}");
    assert!(
        posted.lock().unwrap().is_empty(),
        "post defaults to the summary"
    );
}

#[tokio::test]
async fn a_comment_without_the_trigger_runs_nothing_and_one_with_it_carries_the_comment() {
    if !ready("a_comment_without_the_trigger_runs_nothing_and_one_with_it_carries_the_comment") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "Fixed the spelling."}]}"#).await;
    let (api, _) = fake_github().await;
    let mut runner = Runner {
        workspace: dir.path(),
        event: ("issue_comment", "issue_comment.json"),
        inputs: vec![
            ("prompt", "Do what the comment asks.".into()),
            ("trigger", "@rein".into()),
            ("args", format!("--base-url {}", server.url())),
        ],
        api,
    };
    let (out, summary, outputs) = runner.run().await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(server.requests().is_empty());
    assert!(summary.is_empty(), "{summary}");
    assert!(outputs.contains("outcome=skipped\n"), "{outputs}");

    // The example comment says "right away": as the trigger, it runs.
    runner.inputs[1].1 = "right away".into();
    let (out, _, _) = runner.run().await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let request = server.requests()[0].body.to_string();
    for expected in [
        "Issue #1 \\\"Spelling error in the README file\\\"",
        "The comment by @Codertocat that asked:",
        "I'll get this fixed right away.",
    ] {
        assert!(request.contains(expected), "{expected}: {request}");
    }
}

#[test]
fn the_action_passes_every_input_it_declares_to_its_script() {
    let action =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../action.yml"))
            .unwrap();
    let script = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/action/run.py"),
    )
    .unwrap();
    let inputs = action
        .split("\ninputs:\n")
        .nth(1)
        .unwrap()
        .split("\noutputs:\n")
        .next()
        .unwrap();
    let names: Vec<&str> = inputs
        .lines()
        .filter(|line| line.starts_with("  ") && !line.starts_with("    "))
        .filter_map(|line| line.trim().strip_suffix(':'))
        .collect();
    assert!(names.len() >= 12, "{names:?}");
    for name in names {
        if name == "rein-path" {
            continue; // the install step's own
        }
        let env = format!(
            "INPUT_{}: ${{{{ inputs.{name} }}}}",
            name.to_uppercase().replace('-', "_")
        );
        assert!(
            action.contains(&env),
            "action.yml does not pass {name}: {env}"
        );
        assert!(
            script.contains(&format!("\"{name}\"")),
            "run.py does not read {name}"
        );
    }
}
