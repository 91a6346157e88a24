//! Interactive commands end to end: a session started by an allowed command, a line typed
//! into its shell checked like a command (and refused headless), a read-only line run, and
//! the codex-shaped tools in a GPT model's request.

use serde_json::Value;

use crate::support::{mock, output, rein, text};

#[tokio::test]
async fn a_line_typed_into_an_interactive_shell_asks_like_a_command() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join("keep")).unwrap();
    std::fs::write(dir.path().join("listed.txt"), "x").unwrap();
    let server = mock(
        r#"{"turns": [
            {"tool_calls": [{"name": "bash", "arguments":
                {"command": "bash --norc --noprofile -i", "tty": true, "yield_ms": 3000}}]},
            {"tool_calls": [{"name": "write_stdin", "arguments": {"id": 1, "chars": "rm -rf ~\n"}}]},
            {"tool_calls": [{"name": "write_stdin", "arguments":
                {"id": 1, "chars": "ls\n", "yield_ms": 3000}}]},
            {"text": "done"}
        ]}"#,
    )
    .await;
    let mut cmd = rein(dir.path());
    cmd.env("HOME", &home).args([
        "exec",
        "--base-url",
        &server.url(),
        "--allowed-tools",
        "Bash(bash *)",
        "look around",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(home.join("keep").exists(), "the typed line ran");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "→ error: Not run: this call needs the user's approval (dangerous command: a \
             recursive delete of ~)"
        ),
        "{stderr}"
    );
    let listed = server.requests()[3].body.to_string();
    assert!(listed.contains("listed.txt"), "{listed}");
}

#[tokio::test]
async fn gpt_models_are_sent_codex_exec_command_and_write_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "ok"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--provider",
        "openai",
        "--model",
        "gpt-5",
        "--base-url",
        &format!("{}/v1", server.url()),
        "hi",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let body = &server.requests()[0].body;
    let tool = |name: &str| -> Value {
        body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} in {body}"))
    };
    let exec = tool("exec_command");
    let mut keys: Vec<&str> = exec["parameters"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "cmd",
            "justification",
            "login",
            "max_output_tokens",
            "sandbox_permissions",
            "shell",
            "tty",
            "workdir",
            "yield_time_ms"
        ]
    );
    assert_eq!(exec["parameters"]["required"], serde_json::json!(["cmd"]));
    let write = tool("write_stdin");
    assert_eq!(
        write["parameters"]["required"],
        serde_json::json!(["session_id"])
    );
    assert_eq!(
        write["parameters"]["properties"]["session_id"]["type"],
        "integer"
    );
}
