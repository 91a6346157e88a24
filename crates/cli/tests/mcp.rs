//! MCP servers through the binary, on every protocol: a trusted workspace's `.mcp.json`
//! starts the test kit's server, its tools are offered as `mcp__kit__…`, an allow rule lets a
//! call run and its result reach the model, a deny rule blocks one, hooks see the `mcp__`
//! name, and an untrusted workspace's servers never start.

use serde_json::json;

use crate::support::*;

fn workspace_with_server(hook_log: Option<&std::path::Path>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let server = rein_testkit::mcp_test_server();
    std::fs::write(
        dir.path().join(".mcp.json"),
        json!({"mcpServers": {"kit": {"command": server.display().to_string()}}}).to_string(),
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

const ECHO: &str =
    r#"{"tool_calls": [{"name": "mcp__kit__echo", "arguments": {"text": "hi there"}}]}"#;

#[tokio::test]
async fn an_allowed_mcp_call_runs_on_every_protocol_and_hooks_see_its_name() {
    for (provider, model) in [
        ("anthropic", "claude-sonnet-4-5"),
        ("openai", "gpt-5"),
        ("openai-chat", "qwen3-coder-plus"),
    ] {
        let log_dir = tempfile::tempdir().unwrap();
        let log = log_dir.path().join("hooks.log");
        let dir = workspace_with_server(Some(&log));
        let server = mock(&format!(r#"{{"turns": [{ECHO}, {{"text": "done"}}]}}"#)).await;
        let base = if provider == "anthropic" {
            server.url()
        } else {
            server.openai_url()
        };
        let mut cmd = rein(dir.path());
        cmd.args([
            "exec",
            "--trust-workspace",
            "--provider",
            provider,
            "--model",
            model,
            "--base-url",
            &base,
            "--allowed-tools",
            "mcp__kit__echo",
            "say hi",
        ]);
        let out = output(cmd).await;
        assert!(out.status.success(), "{provider}: {}", text(&out.stderr));
        let requests = server.requests();
        let first = requests[0].body.to_string();
        assert!(first.contains("mcp__kit__echo"), "{provider}: offered");
        assert!(first.contains("mcp__kit__sleep"), "{provider}: offered");
        let second = requests[1].body.to_string();
        assert!(second.contains("echo: hi there"), "{provider}: {second}");
        let hooks = std::fs::read_to_string(&log).unwrap_or_default();
        let seen: serde_json::Value = serde_json::from_str(hooks.trim()).unwrap();
        assert_eq!(seen["tool_name"], "mcp__kit__echo", "{provider}");
        assert_eq!(seen["tool_input"]["text"], "hi there", "{provider}");
    }
}

#[tokio::test]
async fn a_deny_rule_blocks_an_mcp_server_and_without_a_rule_exec_cannot_ask() {
    for (flags, expected) in [
        (vec!["--disallowed-tools", "mcp__kit"], "deny rule mcp__kit"),
        (vec![], "needs the user's approval"),
    ] {
        let dir = workspace_with_server(None);
        let server = mock(&format!(r#"{{"turns": [{ECHO}, {{"text": "done"}}]}}"#)).await;
        let mut cmd = rein(dir.path());
        cmd.args(["exec", "--trust-workspace", "--base-url", &server.url()]);
        cmd.args(&flags).arg("say hi");
        let out = output(cmd).await;
        assert!(out.status.success(), "{}", text(&out.stderr));
        let second = server.requests()[1].body.to_string();
        assert!(!second.contains("echo: hi there"), "{second}");
        assert!(second.contains(expected), "{expected}: {second}");
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
    json["mcpServers"]["far"] = json!({"type": "http", "url": "https://example.invalid/mcp"});
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
        listed.contains("kit  stdio  connected  6 tools: echo, fail, image, sleep, crash, pid"),
        "{listed}"
    );
    assert!(listed.contains("far  http  failed"), "{listed}");
}
