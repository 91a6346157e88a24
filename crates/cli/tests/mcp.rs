//! MCP servers through the binary, on every protocol: a trusted workspace's `.mcp.json`
//! starts the test kit's server (over stdio, and over streamable HTTP), its tools are offered
//! as `mcp__kit__…`, an allow rule lets a call run and its result reach the model, a crash is
//! survived and the server started again, Ctrl-C cancels a slow call (the server is told), a
//! deny rule blocks one, hooks see the `mcp__` name, a changed tool list is offered at the
//! next request, a server's prompt is a slash command, and an untrusted workspace's servers
//! never start.

use serde_json::json;

use crate::support::*;

fn workspace_with_server(hook_log: Option<&std::path::Path>) -> tempfile::TempDir {
    workspace_with_servers(hook_log, None)
}

/// A workspace whose `.mcp.json` names the kit over stdio and, given its URL, over HTTP as
/// `web` (with its token from a variable).
fn workspace_with_servers(
    hook_log: Option<&std::path::Path>,
    http: Option<&str>,
) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let server = rein_testkit::mcp_test_server();
    let mut servers = json!({"kit": {"command": server.display().to_string()}});
    if let Some(url) = http {
        servers["web"] = json!({
            "type": "http",
            "url": url,
            "headers": {"Authorization": "Bearer ${KIT_TOKEN}"}
        });
        // A workspace's file reads only the variables the user allows in their own config.
        let user = dir.path().join(".rein-test-config/rein");
        std::fs::create_dir_all(&user).unwrap();
        std::fs::write(
            user.join("config.toml"),
            "mcp_env_allow = [\"KIT_TOKEN\"]\n",
        )
        .unwrap();
    }
    std::fs::write(
        dir.path().join(".mcp.json"),
        json!({ "mcpServers": servers }).to_string(),
    )
    .unwrap();
    if let Some(log) = hook_log {
        std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
        let settings = json!({"hooks": {"PreToolUse": [{"matcher": "mcp__kit__.*", "hooks": [
            {"type": "command", "command": format!("cat >> {}", log.display())}
        ]}]}});
        std::fs::write(
            dir.path().join(".claude/settings.json"),
            settings.to_string(),
        )
        .unwrap();
    }
    dir
}

/// Each wire protocol: (provider, model).
const PROTOCOLS: [(&str, &str); 3] = [
    ("anthropic", "claude-sonnet-4-5"),
    ("openai", "gpt-5"),
    ("openai-chat", "qwen3-coder-plus"),
];

/// `rein exec` in `dir` against `server` speaking `provider`'s protocol.
fn exec_with(
    dir: &std::path::Path,
    server: &rein_testkit::MockServer,
    (provider, model): (&str, &str),
) -> std::process::Command {
    let base = if provider == "anthropic" {
        server.url()
    } else {
        server.openai_url()
    };
    let mut cmd = rein(dir);
    cmd.args([
        "exec",
        "--trust-workspace",
        "--provider",
        provider,
        "--model",
        model,
        "--base-url",
        &base,
    ]);
    cmd
}

const ECHO: &str =
    r#"{"tool_calls": [{"name": "mcp__kit__echo", "arguments": {"text": "hi there"}}]}"#;

#[tokio::test]
async fn an_allowed_mcp_call_runs_on_every_protocol_and_hooks_see_its_name() {
    let web = rein_testkit::McpHttpServer::start(Some("s3cret")).unwrap();
    for (provider, model) in PROTOCOLS {
        let log_dir = tempfile::tempdir().unwrap();
        let log = log_dir.path().join("hooks.log");
        let dir = workspace_with_servers(Some(&log), Some(&web.url));
        let turns = [
            ECHO,
            r#"{"tool_calls": [{"name": "mcp__web__echo", "arguments": {"text": "by http"}}]}"#,
            r#"{"tool_calls": [{"name": "mcp__kit__crash", "arguments": {}}]}"#,
            r#"{"tool_calls": [{"name": "mcp__kit__echo", "arguments": {"text": "after"}}]}"#,
            r#"{"text": "done"}"#,
        ];
        let server = mock(&format!(r#"{{"turns": [{}]}}"#, turns.join(", "))).await;
        let mut cmd = exec_with(dir.path(), &server, (provider, model));
        cmd.args([
            "--allowed-tools",
            "mcp__kit__echo,mcp__kit__crash,mcp__web",
            "say hi",
        ]);
        cmd.env("KIT_TOKEN", "s3cret");
        let out = output(cmd).await;
        assert!(out.status.success(), "{provider}: {}", text(&out.stderr));
        let requests = server.requests();
        let first = requests[0].body.to_string();
        assert!(first.contains("mcp__kit__echo"), "{provider}: offered");
        assert!(first.contains("mcp__kit__sleep"), "{provider}: offered");
        assert!(first.contains("mcp__web__echo"), "{provider}: offered");
        let second = requests[1].body.to_string();
        assert!(second.contains("echo: hi there"), "{provider}: {second}");
        let third = requests[2].body.to_string();
        assert!(third.contains("echo: by http"), "{provider}: {third}");
        let crashed = requests[3].body.to_string();
        assert!(crashed.contains("started again"), "{provider}: {crashed}");
        let after = requests[4].body.to_string();
        assert!(after.contains("echo: after"), "{provider}: {after}");
        let hooks = std::fs::read_to_string(&log).unwrap_or_default();
        let seen: serde_json::Value = serde_json::Deserializer::from_str(&hooks)
            .into_iter()
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(seen["tool_name"], "mcp__kit__echo", "{provider}");
        assert_eq!(seen["tool_input"]["text"], "hi there", "{provider}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_cancels_a_slow_mcp_call_and_the_server_is_told() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    for protocol in PROTOCOLS {
        let dir = workspace_with_server(None);
        let mark = dir.path().join("cancelled-mark");
        let call = json!({"tool_calls": [{"name": "mcp__kit__sleep",
            "arguments": {"ms": 60_000, "mark": mark}}]});
        let server = mock(&format!(r#"{{"turns": [{call}, {{"text": "never"}}]}}"#)).await;
        let mut cmd = exec_with(dir.path(), &server, protocol);
        cmd.args(["--permission-mode", "bypass", "go"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        let child = cmd.spawn().unwrap();
        // Wait for the server to be in the call, then press Ctrl-C.
        let started = dir.path().join("cancelled-mark.started");
        rein_testkit::without_hanging("the MCP call to start", move || {
            while !started.exists() {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        });
        kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
        let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
            .await
            .unwrap();
        assert!(
            text(&out.stderr).contains("cancelling the turn"),
            "{protocol:?}: {}",
            text(&out.stderr)
        );
        let recorded = std::fs::read_to_string(&session_files(dir.path())[0]).unwrap();
        assert!(recorded.contains("cancelled"), "{protocol:?}: {recorded}");
        rein_testkit::without_hanging("the server to see the cancellation", move || {
            while !mark.exists() {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        });
    }
}

#[tokio::test]
async fn a_changed_tool_list_is_offered_at_the_next_request() {
    let dir = workspace_with_server(None);
    let grow = r#"{"tool_calls": [{"name": "mcp__kit__grow", "arguments": {}}]}"#;
    let extra = r#"{"tool_calls": [{"name": "mcp__kit__extra", "arguments": {}}]}"#;
    let server = mock(&format!(
        r#"{{"turns": [{grow}, {ECHO}, {extra}, {{"text": "done"}}]}}"#
    ))
    .await;
    let mut cmd = exec_in(dir.path(), &server, "bypass", "grow it");
    cmd.arg("--trust-workspace");
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("tools changed: + mcp__kit__extra"),
        "{}",
        text(&out.stderr)
    );
    let requests = server.requests();
    assert!(!requests[0].body.to_string().contains("mcp__kit__extra"));
    // The notification may arrive just after the result; the list is up to date by the
    // request after it at the latest.
    assert!(requests[2].body.to_string().contains("mcp__kit__extra"));
    assert!(last_message(&server, 3).contains("extra ran"));
}

#[tokio::test]
async fn a_servers_prompt_is_a_slash_command() {
    let dir = workspace_with_server(None);
    let server = mock(r#"{"turns": [{"text": "hello Ada"}, {"text": "again"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--trust-workspace",
        "--base-url",
        &server.url(),
        "/mcp__kit__greet Ada warmly",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let sent = last_message(&server, 0);
    assert!(sent.contains("Greet Ada warmly."), "{sent}");
    // A required argument left out: said, not sent to the server as nonsense.
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--trust-workspace",
        "--base-url",
        &server.url(),
        "/mcp__kit__greet",
    ]);
    let out = output(cmd).await;
    assert!(
        text(&out.stderr).contains("it needs `name`: /mcp__kit__greet <name> [style]"),
        "{}",
        text(&out.stderr)
    );
}

#[tokio::test]
async fn a_deny_rule_blocks_an_mcp_server_and_without_a_rule_exec_cannot_ask() {
    for protocol in PROTOCOLS {
        for (flags, expected) in [
            (vec!["--disallowed-tools", "mcp__kit"], "deny rule mcp__kit"),
            (vec![], "needs the user's approval"),
        ] {
            let dir = workspace_with_server(None);
            let server = mock(&format!(r#"{{"turns": [{ECHO}, {{"text": "done"}}]}}"#)).await;
            let mut cmd = exec_with(dir.path(), &server, protocol);
            cmd.args(&flags).arg("say hi");
            let out = output(cmd).await;
            assert!(out.status.success(), "{}", text(&out.stderr));
            let second = server.requests()[1].body.to_string();
            assert!(!second.contains("echo: hi there"), "{protocol:?}: {second}");
            assert!(
                second.contains(expected),
                "{protocol:?} {expected}: {second}"
            );
        }
    }
}

#[tokio::test]
async fn an_untrusted_workspaces_servers_do_not_start() {
    let dir = workspace_with_server(None);
    let server = mock(r#"{"turns": [{"text": "done"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args(["exec", "--base-url", &server.url(), "hi"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("(MCP servers)"),
        "{}",
        text(&out.stderr)
    );
    assert!(!server.requests()[0].body.to_string().contains("mcp__kit"));
}

#[tokio::test]
async fn rein_mcp_list_shows_each_server_after_trust() {
    let dir = workspace_with_server(None);
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(".mcp.json")).unwrap())
            .unwrap();
    json["mcpServers"]["far"] = json!({"type": "http", "url": "http://127.0.0.1:9/mcp"});
    std::fs::write(dir.path().join(".mcp.json"), json.to_string()).unwrap();
    let mut untrusted = rein(dir.path());
    untrusted.args(["mcp", "list"]);
    let out = output(untrusted).await;
    assert!(
        text(&out.stdout).contains("is not trusted"),
        "{}",
        text(&out.stdout)
    );
    let mut trust = rein(dir.path());
    trust.arg("trust");
    let out = output(trust).await;
    let said = text(&out.stdout);
    assert!(
        said.contains("MCP server kit (stdio) (.mcp.json)"),
        "{said}"
    );
    let mut list = rein(dir.path());
    list.args(["mcp", "list"]);
    let out = output(list).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listed = text(&out.stdout);
    assert!(
        listed
            .contains("kit  stdio  connected  7 tools: echo, fail, image, sleep, crash, pid, grow"),
        "{listed}"
    );
    assert!(listed.contains("far  http  failed"), "{listed}");
}

#[tokio::test]
async fn many_mcp_tools_are_deferred_and_loaded_with_tool_search() {
    let dir = tempfile::tempdir().unwrap();
    let kit = rein_testkit::mcp_test_server().display().to_string();
    std::fs::write(
        dir.path().join(".mcp.json"),
        json!({"mcpServers": {"kit": {"command": kit, "args": ["--many", "40"]}}}).to_string(),
    )
    .unwrap();
    let search =
        r#"{"tool_calls": [{"name": "tool_search", "arguments": {"query": "mcp__kit__echo"}}]}"#;
    let server = mock(&format!(
        r#"{{"turns": [{search}, {ECHO}, {{"text": "done"}}]}}"#
    ))
    .await;
    let mut cmd = exec_in(dir.path(), &server, "bypass", "echo something");
    cmd.arg("--trust-workspace");
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let requests = server.requests();
    let offered = |n: usize| -> Vec<String> {
        requests[n].body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap_or("").to_string())
            .collect()
    };
    let first = offered(0);
    assert!(first.contains(&"tool_search".to_string()), "{first:?}");
    assert!(
        !first.iter().any(|n| n.starts_with("mcp__kit__")),
        "{first:?}"
    );
    let listed = requests[0].body.to_string();
    assert!(
        listed.contains("- mcp__kit__t39: One of many tools"),
        "the catalog"
    );
    let second = offered(1);
    assert!(second.contains(&"mcp__kit__echo".to_string()), "{second:?}");
    assert!(!second.contains(&"mcp__kit__t39".to_string()), "{second:?}");
    assert!(last_message(&server, 1).contains("Loaded 1 tool(s)"));
    assert!(last_message(&server, 2).contains("echo: hi there"));
}

#[tokio::test]
async fn a_trusted_workspaces_mcp_server_gets_no_provider_key() {
    // The workspace's `.mcp.json` asks for the key twice: by expansion into the server's
    // environment, and by the server reading what it inherits.
    let dir = tempfile::tempdir().unwrap();
    let kit = rein_testkit::mcp_test_server().display().to_string();
    let servers = json!({"mcpServers": {"kit": {
        "command": kit, "args": ["--probe"], "env": {"LEAK": "${ANTHROPIC_API_KEY}"}
    }}});
    std::fs::write(dir.path().join(".mcp.json"), servers.to_string()).unwrap();
    let probe = |name: &str| {
        format!(
            r#"{{"tool_calls": [{{"name": "mcp__kit__env", "arguments": {{"name": "{name}"}}}}]}}"#
        )
    };
    let turns = [
        probe("ANTHROPIC_API_KEY"),
        probe("LEAK"),
        r#"{"text": "done"}"#.into(),
    ];
    let server = mock(&format!(r#"{{"turns": [{}]}}"#, turns.join(", "))).await;
    let mut cmd = exec_with(dir.path(), &server, PROTOCOLS[0]);
    cmd.args(["--allowed-tools", "mcp__kit__env", "look"]);
    cmd.env("ANTHROPIC_API_KEY", "sk-ant-e2e-0123456789");
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("MCP server `kit` (.mcp.json): $ANTHROPIC_API_KEY is not expanded"),
        "{stderr}"
    );
    assert!(last_message(&server, 1).contains("ANTHROPIC_API_KEY=(unset)"));
    // Empty, not the key (nor the key redacted on its way back).
    let leak = last_message(&server, 2);
    assert!(
        leak.contains("LEAK=") && !leak.contains("redacted"),
        "{leak}"
    );
    for request in server.requests() {
        assert!(
            !request.body.to_string().contains("sk-ant-e2e"),
            "the key was sent on"
        );
    }
}

#[tokio::test]
async fn a_server_named_like_another_servers_tools_is_refused_so_its_rule_cannot_cover_it() {
    // An allow rule for `kit` must not let the tools of a server `kit__x` run.
    let dir = tempfile::tempdir().unwrap();
    let kit = rein_testkit::mcp_test_server().display().to_string();
    let servers = json!({"mcpServers": {"kit__x": {"command": kit}}});
    std::fs::write(dir.path().join(".mcp.json"), servers.to_string()).unwrap();
    let call = r#"{"tool_calls": [{"name": "mcp__kit__x__echo", "arguments": {"text": "hi"}}]}"#;
    let server = mock(&format!(r#"{{"turns": [{call}, {{"text": "done"}}]}}"#)).await;
    let mut cmd = exec_with(dir.path(), &server, PROTOCOLS[0]);
    cmd.args(["--allowed-tools", "mcp__kit", "go"]);
    let out = output(cmd).await;
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("MCP server `kit__x` (.mcp.json) skipped: its name contains `__`"),
        "{stderr}"
    );
    let first = server.requests()[0].body.to_string();
    assert!(!first.contains("mcp__kit__x__echo"), "offered: {first}");
    if let Some(after) = server.requests().get(1) {
        assert!(!after.body.to_string().contains("echo: hi"), "it ran");
    }
}

#[tokio::test]
async fn an_at_mention_of_a_servers_resource_attaches_it() {
    let dir = workspace_with_server(None);
    std::fs::write(dir.path().join("big.log"), "x".repeat(300 * 1024)).unwrap();
    let server = mock(r#"{"turns": [{"text": "noted"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args(["exec", "--trust-workspace", "--base-url", &server.url()])
        .arg("summarise @kit:test://notes and @kit:test://missing, not @big.log");
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let sent = last_message(&server, 0);
    assert!(
        sent.contains(r#"<attachment resource=\"kit:test://notes\">\nthe notes say hi"#),
        "{sent}"
    );
    assert!(
        sent.contains(r#"<attachment resource=\"kit:test://missing\">not attached"#),
        "{sent}"
    );
    assert!(
        sent.contains(r#"<attachment path=\"big.log\">not attached: 307200 bytes"#),
        "{sent}"
    );
}
