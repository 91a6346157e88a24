//! What a stdio server may get from rein and do to it: it inherits no provider key, and an
//! answer longer than rein reads fails the call at once instead of waiting for the timeout.
#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment

use std::time::Duration;

use rein_mcp::Transport;
use rein_tool::{HiddenEnv, OutputBudget, ToolContext, WorkspaceGuard};
use rein_tools::ToolRegistry;
use serde_json::json;

use super::config;

/// The test kit's server with its probing tools (`env`, `huge`), started with `hidden`.
async fn probing(hidden: &HiddenEnv, env: &[(&str, &str)]) -> rein_mcp::Started {
    let mut server = config("kit");
    server.transport = Transport::Stdio {
        command: rein_testkit::mcp_test_server().display().to_string(),
        args: vec!["--probe".into()],
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    };
    server.enabled_tools = Some(vec!["env".into(), "huge".into()]);
    // A dropped answer would end the call at this timeout, as an error saying "timed out":
    // the tests tell that by the result, not by a clock.
    server.tool_timeout = Duration::from_secs(120);
    let started = rein_mcp::start_hiding(vec![server], hidden).await;
    assert!(started.failures.is_empty(), "{:?}", started.failures);
    started
}

fn registry(started: &rein_mcp::Started) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    for tool in started.tools(&[]) {
        registry.register(tool);
    }
    registry
}

/// The provider keys this test process runs its probe with.
const KEYS: &[(&str, &str)] = &[
    ("ANTHROPIC_API_KEY", "sk-ant-test-0123456789"),
    ("ANTHROPIC_AUTH_TOKEN", "sk-ant-token-0123456789"),
    ("OPENAI_API_KEY", "sk-openai-test-0123456789"),
    ("MY_GATEWAY_KEY", "sk-gateway-0123456789"),
];

#[test]
fn a_stdio_server_inherits_no_provider_key() {
    // The keys must be in rein's own environment for the test to mean anything; setting them
    // here would race the other tests' threads, so the probe runs in a copy of this test
    // binary started with them.
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args(["attacks::probe_with_keys_set", "--exact", "--ignored"])
        .envs(KEYS.iter().copied())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("1 passed"), "{stdout}");
}

#[tokio::test]
#[ignore = "run by a_stdio_server_inherits_no_provider_key with the keys set"]
async fn probe_with_keys_set() {
    for (name, value) in KEYS {
        assert_eq!(
            std::env::var(name).as_deref(),
            Ok(*value),
            "set by the caller"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let hidden = HiddenEnv::with(["MY_GATEWAY_KEY".to_string()]);
    // The configuration may still give a variable on purpose (the user's own file).
    let started = probing(&hidden, &[("GIVEN", "on-purpose")]).await;
    let registry = registry(&started);
    let ctx = ToolContext::new(WorkspaceGuard::new(dir.path()).unwrap());
    // (variable, what the server sees).
    let cases = [
        ("ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY=(unset)"),
        ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN=(unset)"),
        ("OPENAI_API_KEY", "OPENAI_API_KEY=(unset)"),
        ("MY_GATEWAY_KEY", "MY_GATEWAY_KEY=(unset)"),
        ("GIVEN", "GIVEN=on-purpose"),
    ];
    for (name, seen) in cases {
        let out = registry
            .call("mcp__kit__env", json!({"name": name}), &ctx)
            .await;
        assert_eq!(out.text, seen, "{name}");
    }
    // Everything else is inherited as before.
    let path = registry
        .call("mcp__kit__env", json!({"name": "PATH"}), &ctx)
        .await;
    assert_ne!(path.text, "PATH=(unset)");
}

#[tokio::test]
async fn a_50_mb_answer_is_cut_to_the_budget_and_saved_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let started = probing(&HiddenEnv::default(), &[]).await;
    let registry = registry(&started);
    let mut ctx = ToolContext::new(WorkspaceGuard::new(dir.path()).unwrap());
    let saved = dir.path().join("outputs");
    ctx.budget = OutputBudget::new(30_000, Some(saved.clone()));
    let out = registry
        .call("mcp__kit__huge", json!({"mb": 50}), &ctx)
        .await;
    assert!(!out.is_error, "{}", &out.text[..out.text.len().min(500)]);
    assert!(out.text.len() <= 30_000, "{} bytes", out.text.len());
    assert!(
        out.text.contains("bytes omitted; the full output"),
        "{}",
        out.text.len()
    );
    let files: Vec<_> = std::fs::read_dir(&saved).unwrap().flatten().collect();
    assert_eq!(files.len(), 1);
    assert!(files[0].metadata().unwrap().len() > 50_000_000);
}

#[tokio::test]
async fn an_answer_past_the_frame_limit_fails_the_call_at_once_naming_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let started = probing(&HiddenEnv::default(), &[]).await;
    let registry = registry(&started);
    let ctx = ToolContext::new(WorkspaceGuard::new(dir.path()).unwrap());
    let out = registry
        .call("mcp__kit__huge", json!({"mb": 80}), &ctx)
        .await;
    assert!(out.is_error, "{}", out.text.len());
    assert!(out.text.contains("longer than 64 MiB"), "{}", out.text);
    assert!(!out.text.contains("timed out"), "{}", out.text);
    // The server is still usable.
    let small = registry
        .call("mcp__kit__huge", json!({"mb": 0}), &ctx)
        .await;
    assert!(!small.is_error, "{}", small.text);
}
