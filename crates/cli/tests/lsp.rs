//! Language servers in a session: pyright (from npm, installed by `scripts/test-deps`) tells
//! the model the error its edit brought and that its fix cleared it; a stand-in server shows
//! that servers run confined like commands (no write outside the workspace, no network, no
//! provider key); `rein lsp check` lists what it found.
#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment

use std::net::TcpListener;
use std::path::Path;

use crate::support::*;

const GOOD: &str = "def greet(name: str) -> str:\n    return 'hi ' + name\n\n\nprint(greet('x'))\n";

/// `PATH` with the npm programs of `scripts/test-deps` first.
fn path_with_node() -> String {
    let bin = rein_testkit::node_folder().join("node_modules/.bin");
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

fn tool_names(server: &rein_testkit::MockServer) -> Vec<String> {
    server.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect()
}

fn edit(old: &str, new: &str) -> String {
    serde_json::json!({"tool_calls": [{"name": "edit_file", "arguments": {
        "path": "app.py", "old_string": old, "new_string": new}}]})
    .to_string()
}

#[tokio::test]
async fn the_model_sees_the_error_its_edit_brought_and_that_its_fix_cleared_it() {
    let test = "the_model_sees_the_error_its_edit_brought";
    if rein_testkit::node_program("pyright-langserver", test).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    std::fs::write(ws.join("app.py"), GOOD).unwrap();
    std::fs::write(ws.join("pyproject.toml"), "[project]\nname = \"app\"\n").unwrap();
    // A cold pyright on a busy machine: the wait ends as soon as it published.
    write_user_config(ws, "[lsp]\nsettle_ms = 60000\n");
    let read = r#"{"tool_calls": [{"name": "read_file", "arguments": {"path": "app.py"}}]}"#;
    let scenario = format!(
        r#"{{"turns": [{read}, {}, {}, {{"text": "fixed"}}]}}"#,
        edit("greet('x')", "greet(undefined_name)"),
        edit("greet(undefined_name)", "greet('y')"),
    );
    let server = mock(&scenario).await;
    let mut cmd = exec_in(ws, &server, "accept-edits", "break it, then fix it");
    cmd.env("PATH", path_with_node());
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let names = tool_names(&server);
    for tool in ["diagnostics", "definition", "references", "hover"] {
        assert!(names.contains(&tool.to_string()), "{names:?}");
    }
    let broken = last_message(&server, 2);
    assert!(
        broken.contains("Language server diagnostics after this change:")
            && broken.contains("app.py: 1 error (pyright)")
            && broken.contains("5:13: error: \\\"undefined_name\\\" is not defined"),
        "{broken}"
    );
    let fixed = last_message(&server, 3);
    assert!(
        fixed.contains("app.py: no errors left (pyright)"),
        "{fixed}"
    );
}

#[tokio::test]
async fn a_server_runs_confined_like_a_command() {
    if !crate::sandbox::sandbox_ready("a_server_runs_confined_like_a_command") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let dir = probe_workspace();
    let ws = dir.path().to_path_buf();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let outside = root.path().join("outside.txt");
    let run = |sandbox: &'static str| {
        let scenario = format!(
            r#"{{"turns": [{}, {{"text": "done"}}]}}"#,
            edit("greet('x')", "greet(undefined_name)")
        );
        let ws = ws.clone();
        let outside = outside.clone();
        async move {
            std::fs::write(ws.join("app.py"), GOOD).unwrap();
            let server = mock(&scenario).await;
            let mut cmd = exec_in(&ws, &server, "accept-edits", "edit");
            cmd.args(["--sandbox", sandbox])
                .env("PROBE_OUTSIDE", &outside)
                .env("PROBE_PORT", port.to_string())
                .env("ANTHROPIC_API_KEY", "sk-ant-test-key-0123456789");
            let out = output(cmd).await;
            assert!(out.status.success(), "{}", text(&out.stderr));
            last_message(&server, 1)
        }
    };
    let confined = run("workspace-write").await;
    assert!(
        confined.contains("app.py: 1 error (probe)")
            && confined.contains("write outside: no; network: no; key seen: no"),
        "{confined}"
    );
    assert!(!outside.exists());
    // The same server outside the sandbox (`--sandbox off`) can do both: the probe tells.
    let free = run("off").await;
    assert!(
        free.contains("write outside: yes; network: yes; key seen: no"),
        "{free}"
    );
}

#[tokio::test]
async fn lsp_check_lists_the_servers_and_whether_they_start() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    let probe = copy_probe(ws);
    write_user_config(
        ws,
        &format!(
            "[lsp]\nshow = \"warnings\"\n[lsp.servers.probe]\ncommand = [\"python3\", \"{}\"]\n\
             extensions = [\"py\"]\n[lsp.servers.gopls]\ndisabled = true\n\
             [lsp.servers.nowhere]\ncommand = [\"no-such-language-server\"]\n\
             extensions = [\"zz\"]\n",
            probe.display()
        ),
    );
    let mut cmd = rein(ws);
    cmd.args(["lsp", "check"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listed = text(&out.stdout);
    let lines: Vec<&str> = listed.lines().collect();
    assert!(
        lines[0].starts_with("nowhere ") && lines[0].ends_with(".zz"),
        "{listed}"
    );
    assert!(
        lines[1].contains("not found (no-such-language-server is not on PATH)"),
        "{listed}"
    );
    assert!(
        lines[2].starts_with("probe ") && lines[2].ends_with(".py"),
        "{listed}"
    );
    assert!(lines[3].ends_with("python3: starts (probe 1)"), "{listed}");
    assert!(!listed.contains("gopls"), "{listed}");
    assert!(
        listed.contains("errors and warnings are reported, 20 at most"),
        "{listed}"
    );
}

#[tokio::test]
async fn a_workspace_config_cannot_name_a_server_until_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    std::fs::create_dir_all(ws.join(".rein")).unwrap();
    std::fs::write(
        ws.join(".rein/config.toml"),
        "[lsp.servers.evil]\ncommand = [\"touch\", \"pwned\"]\nextensions = [\"py\"]\n",
    )
    .unwrap();
    let mut cmd = rein(ws);
    cmd.args(["lsp", "check"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("evil"), "{}", text(&out.stdout));
    assert!(!ws.join("pwned").exists());
}

#[tokio::test]
async fn a_server_that_never_answers_leaves_the_edit_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    std::fs::write(ws.join("app.py"), GOOD).unwrap();
    write_user_config(
        ws,
        "[lsp]\nsettle_ms = 300\n[lsp.servers.hung]\ncommand = [\"sleep\", \"600\"]\n\
         extensions = [\"py\"]\n",
    );
    let scenario = format!(
        r#"{{"turns": [{}, {{"text": "done"}}]}}"#,
        edit("greet('x')", "greet(undefined_name)")
    );
    let server = mock(&scenario).await;
    // Not a budget: the server's start gives up after 30 s, and neither the edit nor the end
    // of the session may wait for that (a background start once kept the event stream open).
    let run = output(exec_in(ws, &server, "accept-edits", "edit"));
    let out = tokio::time::timeout(std::time::Duration::from_secs(20), run)
        .await
        .expect("rein exec waited for the hung server");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let result = last_message(&server, 1);
    assert!(
        result.contains("Edited app.py") && !result.contains("diagnostics"),
        "{result}"
    );
}

/// The stand-in server, copied into the workspace (a sandboxed server sees it there).
fn copy_probe(ws: &Path) -> std::path::PathBuf {
    let probe = ws.join("probe.py");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lsp_probe.py");
    std::fs::copy(fixture, &probe).unwrap();
    probe
}

/// The probe server as the workspace's only Python server, from the user's config.
pub fn probe_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    let probe = copy_probe(ws);
    std::fs::write(ws.join("app.py"), GOOD).unwrap();
    write_user_config(
        ws,
        &format!(
            "[lsp]\nsettle_ms = 30000\n[lsp.servers.probe]\ncommand = [\"python3\", \"{}\"]\n\
             extensions = [\"py\"]\n",
            probe.display()
        ),
    );
    dir
}

#[tokio::test]
async fn a_patch_and_a_command_are_checked_too() {
    let dir = probe_workspace();
    let ws = dir.path();
    let patch = "*** Begin Patch\n*** Update File: app.py\n@@\n-print(greet('x'))\n+print(greet(undefined_name))\n*** End Patch";
    let scenario = serde_json::json!({"turns": [
        {"tool_calls": [{"name": "apply_patch", "arguments": {"patch": patch}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "sed -i 's/undefined_name/1/' app.py"}}]},
        {"text": "done"}
    ]});
    let server = mock(&scenario.to_string()).await;
    let mut cmd = rein(ws);
    let url = format!("{}/v1", server.url());
    cmd.args([
        "exec",
        "--model",
        "gpt-5",
        "--base-url",
        &url,
        "--permission-mode",
        "bypass",
        "go",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let requests = server.requests();
    let patched = requests[1].body.to_string();
    assert!(
        patched.contains("app.py: 1 error (probe)") && patched.contains("key seen: no"),
        "{patched}"
    );
    let after_command = requests[2].body.to_string();
    assert!(
        after_command.contains("app.py: no errors left (probe)"),
        "{after_command}"
    );
}
