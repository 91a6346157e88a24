//! `--fallback-model` through the binary: an overloaded model hands the session over, said on
//! stderr and in stream-json.

use serde_json::Value;

use crate::support::*;

#[tokio::test]
async fn an_overloaded_model_falls_back_to_the_flag_or_config_model() {
    let dir = tempfile::tempdir().unwrap();
    // `retry-after-ms: 1` keeps the client's five attempts quick.
    let faults = [r#"{"fault": {"http": {"status": 529, "headers": {"retry-after-ms": "1"}}}}"#; 5]
        .join(",");
    let server = mock(&format!(
        r#"{{"turns": [{faults}, {{"text": "fallback says hi"}}]}}"#
    ))
    .await;
    let mut cmd = exec_in(dir.path(), &server, "default", "hi");
    cmd.args([
        "--fallback-model",
        "claude-haiku-4-5",
        "--output-format",
        "stream-json",
    ]);
    // With a key: a 5xx to a keyless request is blamed on the key and not retried.
    cmd.env("ANTHROPIC_API_KEY", "test-key");
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<Value> = text(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let fallback = lines
        .iter()
        .find(|l| l["type"] == "model_fallback")
        .expect("announced");
    assert_eq!(fallback["to"], "claude-haiku-4-5");
    assert_eq!(lines.last().unwrap()["text"], "fallback says hi");
    assert_eq!(server.requests()[5].body["model"], "claude-haiku-4-5");
}
