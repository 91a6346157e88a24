//! A real MCP server process (the test kit's, over stdio and streamable HTTP): tools listed
//! and called, errors and images mapped, filters applied, a slow call cancelled, a crash
//! survived as an error result and the server started again, the process group killed with
//! the server, a changed tool list taken, prompts listed and fetched.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "servers/attacks.rs"]
mod attacks;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rein_mcp::{ServerConfig, Transport};
use rein_tool::{ToolContext, WorkspaceGuard};
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

/// A session's context, as the engine makes one: pictures fitted by the built-in parser.
fn context(dir: &std::path::Path) -> ToolContext {
    let ctx = ToolContext::new(WorkspaceGuard::new(dir).unwrap());
    (ctx.services).put(rein_tool::picture::Pictures::new(
        rein_tools::media::PICTURE_PARSER,
    ));
    ctx
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
            "mcp__test_kit__grow",
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
    // An image reaches the model as an image, with a line saying what it is.
    let image = tools[2].call(json!({}), &ctx).await;
    assert_eq!(image.text, "[image: image/png, 1×1]");
    assert!(
        matches!(image.media.as_slice(), [rein_protocol::Media::Image { source }] if source.media_type == "image/png"),
        "{:?}",
        image.media
    );

    // Cancelled: the call returns with the cancellation, not the server's "slept" answer.
    let cancel = ctx.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        cancel.cancel();
    });
    let mark = dir.path().join("cancelled-mark");
    let slow = tools[3]
        .call(json!({"ms": 10_000, "mark": mark}), &ctx)
        .await;
    assert!(
        slow.is_error && slow.text.contains("cancelled"),
        "{}",
        slow.text
    );
    // The server was told (`notifications/cancelled`) and stopped the call.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !mark.exists() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(mark.exists(), "the server was not told of the cancellation");

    // A crash is an error result, not a hang or a panic; the next call starts it again.
    let ctx = context(dir.path());
    let crash = tools[4].call(json!({}), &ctx).await;
    assert!(crash.is_error, "{}", crash.text);
    assert!(crash.text.contains("started again"), "{}", crash.text);
    assert!(
        crash.text.contains("(its stderr: crashing on purpose)"),
        "{}",
        crash.text
    );
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

#[tokio::test]
async fn a_streamable_http_server_is_called_and_its_headers_sent() {
    let dir = tempfile::tempdir().unwrap();
    let Some(server) = rein_testkit::McpHttpServer::start(Some("t0ken")) else {
        panic!("the test kit's MCP server did not start over HTTP");
    };
    let http = |name: &str, token: &str| {
        let mut http = config(name);
        http.transport = Transport::Http {
            url: server.url.clone(),
            headers: BTreeMap::from([("Authorization".into(), format!("Bearer {token}"))]),
            sse: false,
        };
        http
    };
    let started = rein_mcp::start(vec![http("web", "t0ken"), http("wrong", "guess")]).await;
    assert_eq!(started.servers.len(), 1, "{:?}", started.failures);
    assert_eq!(started.failures[0].0, "wrong");
    assert!(
        started.failures[0].1.contains("401") || started.failures[0].1.contains("uthori"),
        "{:?}",
        started.failures
    );
    let tools = started.tools(&[]);
    let echo = tools
        .iter()
        .find(|t| t.spec().name == "mcp__web__echo")
        .unwrap();
    let said = echo
        .call(json!({"text": "over http"}), &context(dir.path()))
        .await;
    assert_eq!(
        (said.text.as_str(), said.is_error),
        ("echo: over http", false)
    );
    // `readOnlyHint` lets it run beside read-only calls; it still asks (Mutating).
    let facts = echo.facts(
        &json!({"text": "x"}),
        &WorkspaceGuard::new(dir.path()).unwrap(),
    );
    assert!(facts.concurrent);
    assert_eq!(facts.effect, rein_tool::Effect::Mutating);
    let sleep = tools
        .iter()
        .find(|t| t.spec().name == "mcp__web__sleep")
        .unwrap();
    assert!(
        !sleep
            .facts(&json!({}), &WorkspaceGuard::new(dir.path()).unwrap())
            .concurrent
    );
}

#[tokio::test]
async fn a_legacy_sse_server_is_refused_with_the_fix() {
    let mut sse = config("old");
    sse.transport = Transport::Http {
        url: "http://127.0.0.1:9/sse".into(),
        headers: BTreeMap::new(),
        sse: true,
    };
    let started = rein_mcp::start(vec![sse]).await;
    assert_eq!(started.failures.len(), 1);
    assert!(
        started.failures[0].1.contains("type: \"http\""),
        "{:?}",
        started.failures
    );
}

#[tokio::test]
async fn a_changed_tool_list_is_taken_on_refresh() {
    use rein_tool::ToolSource;
    let dir = tempfile::tempdir().unwrap();
    let started = rein_mcp::start(vec![config("kit")]).await;
    assert!(!started.refresh().await, "nothing changed yet");
    let names = |s: &rein_mcp::Started| -> Vec<String> {
        s.tools(&[]).iter().map(|t| t.spec().name).collect()
    };
    assert!(!names(&started).contains(&"mcp__kit__extra".to_string()));
    let grow = started
        .tools(&[])
        .into_iter()
        .find(|t| t.spec().name == "mcp__kit__grow")
        .unwrap();
    let grown = grow.call(json!({}), &context(dir.path())).await;
    assert_eq!(grown.text, "grown");
    // The notification travels on its own; wait for it (bounded).
    let changed = list_change_seen(&started).await;
    assert!(
        changed,
        "the server's list_changed notification was not seen"
    );
    assert!(names(&started).contains(&"mcp__kit__extra".to_string()));
}

#[tokio::test]
async fn prompts_are_listed_and_fetched() {
    let started = rein_mcp::start(vec![config("kit")]).await;
    let server = &started.servers[0];
    let names: Vec<&str> = server.prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["greet"]);
    let args = json!({"name": "Ada"}).as_object().unwrap().clone();
    let result = server.prompt("greet", args).await.unwrap();
    let text = serde_json::to_value(&result.messages).unwrap().to_string();
    assert!(text.contains("Greet Ada plainly."), "{text}");
    let missing = server
        .prompt("greet", serde_json::Map::new())
        .await
        .unwrap_err()
        .to_string();
    assert!(missing.contains("name"), "{missing}");
}

#[tokio::test]
async fn a_server_that_fails_to_start_is_reported_with_what_it_said() {
    let mut failing = config("npx-thing");
    failing.transport = Transport::Stdio {
        command: "sh".into(),
        args: vec![
            "-c".into(),
            "echo 'npm ERR! 404 Not Found - @acme/mcp' >&2; exit 1".into(),
        ],
        env: BTreeMap::new(),
    };
    let started = rein_mcp::start(vec![failing]).await;
    assert_eq!(started.failures.len(), 1);
    assert!(
        started.failures[0]
            .1
            .contains("(its stderr: npm ERR! 404 Not Found - @acme/mcp)"),
        "{:?}",
        started.failures
    );
}

#[tokio::test]
async fn a_changed_tool_list_is_taken_over_http_too() {
    let dir = tempfile::tempdir().unwrap();
    let web = rein_testkit::McpHttpServer::start(None).unwrap();
    let mut http = config("web");
    http.transport = Transport::Http {
        url: web.url.clone(),
        headers: BTreeMap::new(),
        sse: false,
    };
    let started = rein_mcp::start(vec![http]).await;
    assert!(started.failures.is_empty(), "{:?}", started.failures);
    let grow = started
        .tools(&[])
        .into_iter()
        .find(|t| t.spec().name == "mcp__web__grow")
        .unwrap();
    assert_eq!(
        grow.call(json!({}), &context(dir.path())).await.text,
        "grown"
    );
    let changed = list_change_seen(&started).await;
    assert!(
        changed,
        "the server's list_changed notification was not seen over HTTP"
    );
    let names: Vec<String> = started.tools(&[]).iter().map(|t| t.spec().name).collect();
    assert!(names.contains(&"mcp__web__extra".to_string()), "{names:?}");
}

/// Whether `started` sees a server's tools/list_changed within two seconds (the notification
/// travels on its own).
async fn list_change_seen(started: &rein_mcp::Started) -> bool {
    use rein_tool::ToolSource;
    for _ in 0..100 {
        if started.refresh().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}
