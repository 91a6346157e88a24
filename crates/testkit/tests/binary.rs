//! The `rein-mock-llm` binary.
#![allow(clippy::disallowed_methods)] // dev-only crate: the test programs start real processes and read the test environment

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::support::{frames, post};

const BIN: &str = env!("CARGO_BIN_EXE_rein-mock-llm");

#[tokio::test]
async fn serves_the_demo_scenario_and_prints_its_address() {
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/demo.json");
    let mut child = Command::new(BIN)
        .args(["--scenario", demo, "--port", "0", "--log-requests"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let url = line
        .trim_end()
        .strip_prefix("rein-mock-llm listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");

    let frames = frames(post(&format!("{url}/v1/messages"), &json!({"model": "m"})).await).await;
    let tool = frames
        .iter()
        .find(|(_, d)| d["content_block"]["type"] == "tool_use")
        .unwrap();
    assert_eq!(tool.1["content_block"]["name"], "read_file");

    line.clear();
    stdout.read_line(&mut line).unwrap();
    let fields: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(
        fields[..4],
        ["request", "1", "POST", "/v1/messages"],
        "{line}"
    );
    let arrived: u128 = fields[4].parse().unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    assert!(
        arrived <= now && now - arrived < 60_000_000_000,
        "{arrived} vs {now}"
    );

    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn bad_arguments_and_bad_scenarios_exit_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let invalid = dir.path().join("bad.json");
    std::fs::write(&invalid, r#"{"turns": [{"txt": "typo"}]}"#).unwrap();
    let cases: Vec<Vec<String>> = vec![
        vec![],
        vec!["--port".into(), "nope".into()],
        vec![
            "--scenario".into(),
            dir.path().join("missing.json").display().to_string(),
        ],
        vec!["--scenario".into(), invalid.display().to_string()],
        vec!["--bogus".into()],
    ];
    for args in cases {
        let output = Command::new(BIN).args(&args).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("rein-mock-llm: "), "{stderr}");
        assert!(output.stdout.is_empty());
    }
}
