//! A real MCP server process (the test kit's, over stdio): tools listed and called, errors
//! and images mapped, filters applied, a slow call cancelled, a crash survived as an error
//! result and the server started again, and the process group killed with the server.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rein_mcp::{ServerConfig, Transport};
use rein_tools::{ToolContext, WorkspaceGuard};
use serde_json::json;

fn config(name: &str) -> ServerConfig {
    ServerConfig {
        name: name.into(),
        transport: Transport::Stdio {
            command: rein_testkit::mcp_test_server().display().to_string(),
            args: Vec::new(),
            env: BTreeMap::new(),
        },
        cwd: None,
        startup_timeout: Duration::from_secs(20),
        tool_timeout: Duration::from_secs(20),
        enabled_tools: None,
        disabled_tools: vec!["pid".into()],
        source: "test".into(),
    }
}

fn context(dir: &std::path::Path) -> ToolContext {
    ToolContext::new(WorkspaceGuard::new(dir).unwrap())
}

#[tokio::test]
async fn tools_are_listed_named_and_called() {
    let dir = tempfile::tempdir().unwrap();
    let started = rein_mcp::start(vec![config("test kit"), {
        let mut broken = config("broken");
        broken.transport = Transport::Stdio {
            command: "/nonexistent/server".into(),
            args: Vec::new(),
            env: BTreeMap::new(),
        };
        broken
    }])
    .await;
    assert_eq!(started.failures.len(), 1, "{:?}", started.failures);
    assert_eq!(started.failures[0].0, "broken");
    assert!(
        started.failures[0].1.contains("`broken`"),
        "{:?}",
        started.failures
    );
    let tools = started.tools(&["bash".to_string()]);
    let names: Vec<String> = tools.iter().map(|t| t.spec().name).collect();
    assert_eq!(
        names,
        [
            "mcp__test_kit__echo",
            "mcp__test_kit__fail",
            "mcp__test_kit__image",
            "mcp__test_kit__sleep",
            "mcp__test_kit__crash",
            "list_mcp_resources",
            "read_mcp_resource"
        ]
    );
    let ctx = context(dir.path());
    let echo = tools[0].call(json!({"text": "hi"}), &ctx).await;
    assert_eq!((echo.text.as_str(), echo.is_error), ("echo: hi", false));
    let fail = tools[1].call(json!({}), &ctx).await;
    assert_eq!(
        (fail.text.as_str(), fail.is_error),
        ("the tool failed on purpose", true)
    );
    let image = tools[2].call(json!({}), &ctx).await;
    assert!(
        image.text.starts_with("[image: image/png"),
        "{}",
        image.text
    );

    // Cancelled: the call returns with the cancellation, not the server's "slept" answer.
    let cancel = ctx.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        cancel.cancel();
    });
    let slow = tools[3].call(json!({"ms": 10_000}), &ctx).await;
    assert!(
        slow.is_error && slow.text.contains("cancelled"),
        "{}",
        slow.text
    );

    // A crash is an error result, not a hang or a panic; the next call starts it again.
    let ctx = context(dir.path());
    let crash = tools[4].call(json!({}), &ctx).await;
    assert!(crash.is_error, "{}", crash.text);
    assert!(crash.text.contains("started again"), "{}", crash.text);
    let after = tools[0].call(json!({"text": "again"}), &ctx).await;
    assert_eq!(
        (after.text.as_str(), after.is_error),
        ("echo: again", false)
    );
}

#[tokio::test]
async fn the_servers_process_ends_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut with_pid = config("kit");
    with_pid.disabled_tools.clear();
    with_pid.enabled_tools = Some(vec!["pid".into()]);
    let started = rein_mcp::start(vec![with_pid]).await;
    let tools = started.tools(&[]);
    assert_eq!(
        tools.len(),
        3,
        "only the enabled tool, and the resource tools"
    );
    let pid: i32 = tools[0]
        .call(json!({}), &context(dir.path()))
        .await
        .text
        .parse()
        .unwrap();
    let alive = |pid: i32| nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok();
    assert!(alive(pid));
    drop(tools);
    drop(started);
    let deadline = Instant::now() + Duration::from_secs(5);
    // Killed; reaped by the runtime shortly after.
    while alive(pid) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    assert!(
        !alive(pid) || status.contains("State:\tZ"),
        "the server still runs: {status}"
    );
}
