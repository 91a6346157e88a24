//! `rein mcp add` and `rein mcp remove` as a user runs them: servers written to the user's
//! config.toml (the rest of the file kept) or a trusted workspace's `.mcp.json` (which stays
//! trusted), then listed, then removed; mistakes said plainly.

use crate::support::*;

fn run(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    let mut cmd = rein(dir);
    cmd.args(args);
    cmd.output().unwrap()
}

#[test]
fn servers_are_added_listed_and_removed_in_each_scope() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    let config = ws.join(".rein-test-config/rein/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "# mine\nidle_timeout_secs = 300 # keep me\n").unwrap();
    let server = rein_testkit::mcp_test_server().display().to_string();

    let out = run(
        ws,
        &["mcp", "add", "kit", "-e", "A=1", "--", &server, "--flag"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(
        ws,
        &[
            "mcp",
            "add",
            "--transport",
            "http",
            "web",
            "http://127.0.0.1:9/mcp",
            "-H",
            "Authorization: Bearer ${WEB_TOKEN}",
            "-H",
            "X-Team: core",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let written = std::fs::read_to_string(&config).unwrap();
    assert!(
        written.starts_with("# mine\nidle_timeout_secs = 300 # keep me\n"),
        "{written}"
    );
    let table: toml::Table = written.parse().unwrap();
    let kit = &table["mcp_servers"]["kit"];
    assert_eq!(kit["command"].as_str(), Some(server.as_str()));
    assert_eq!(kit["args"].as_array().unwrap()[0].as_str(), Some("--flag"));
    assert_eq!(kit["env"]["A"].as_str(), Some("1"));
    let web = &table["mcp_servers"]["web"];
    assert_eq!(web["bearer_token_env_var"].as_str(), Some("WEB_TOKEN"));
    assert_eq!(web["http_headers"]["X-Team"].as_str(), Some("core"));

    // Written once: a second add of the same name is refused, the file unchanged.
    let out = run(ws, &["mcp", "add", "kit", "--", "other"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("already names an MCP server kit"));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), written);

    // The project's file, in a trusted workspace: still trusted afterwards.
    assert!(run(ws, &["trust"]).status.success());
    let out = run(
        ws,
        &["mcp", "add", "--scope", "project", "team", "--", &server],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let project: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ws.join(".mcp.json")).unwrap()).unwrap();
    assert_eq!(project["mcpServers"]["team"]["command"], server.as_str());
    let mut list = rein(ws);
    list.env("WEB_TOKEN", "t").args(["mcp", "list"]);
    let listed = text(&list.output().unwrap().stdout);
    assert!(listed.contains("kit  stdio  connected"), "{listed}");
    assert!(listed.contains("team  stdio  connected"), "{listed}");
    assert!(listed.contains("web  http  failed"), "{listed}");
    assert!(!listed.contains("not trusted"), "{listed}");

    // Removed from where each is.
    for name in ["team", "kit"] {
        let out = run(ws, &["mcp", "remove", name]);
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let out = run(ws, &["mcp", "remove", "kit"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("has no MCP server kit"));
    let left: toml::Table = std::fs::read_to_string(&config).unwrap().parse().unwrap();
    assert!(left["mcp_servers"].get("kit").is_none());
    assert!(left["mcp_servers"].get("web").is_some());
    assert!(
        !std::fs::read_to_string(ws.join(".mcp.json"))
            .unwrap()
            .contains("team")
    );
}

#[test]
fn mistakes_are_said_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    for (args, said) in [
        (
            vec!["mcp", "add", "bad name", "--", "x"],
            "cannot name a server",
        ),
        (
            vec!["mcp", "add", "--transport", "http", "w", "notaurl"],
            "is not an http",
        ),
        (
            vec!["mcp", "add", "--transport", "sse", "w", "http://h/sse"],
            "not supported",
        ),
        (vec!["mcp", "add", "w"], "rein mcp add NAME -- COMMAND"),
        (
            vec!["mcp", "add", "w", "-H", "X: y", "--", "x"],
            "--header belongs",
        ),
    ] {
        let out = run(ws, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains(said),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    assert!(!ws.join(".rein-test-config/rein/config.toml").exists());
    assert!(!ws.join(".mcp.json").exists());
}
