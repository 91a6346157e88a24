//! Secrets and terminals: no child process (a command the model runs, a hook) inherits the
//! provider keys, `printenv` is not run without asking, and nothing the model or a tool
//! prints can drive the user's terminal through `rein exec`.

use crate::support::*;

const KEYS: [(&str, &str); 3] = [
    ("ANTHROPIC_API_KEY", "sk-ant-secret-1"),
    ("OPENAI_API_KEY", "sk-oai-secret-2"),
    ("MY_GATEWAY_KEY", "sk-gw-secret-3"),
];

#[tokio::test]
async fn commands_and_hooks_never_see_the_provider_keys() {
    let dir = tempfile::tempdir().unwrap();
    let config_dir = dir.path().join(".rein-test-config/rein");
    std::fs::create_dir_all(&config_dir).unwrap();
    // The user's own hook (no trust needed): it dumps what it inherits.
    std::fs::write(
        config_dir.join("config.toml"),
        "[[hooks.PreToolUse]]\nhooks = [{ type = \"command\", command = \"env > hook-env.txt\" }]\n",
    )
    .unwrap();
    let server = mock(
        r#"{"turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "env > bash-env.txt"}}]},
            {"text": "done"}
        ]}"#,
    )
    .await;
    let mut cmd = rein(dir.path());
    for (name, value) in KEYS {
        cmd.env(name, value);
    }
    cmd.args(["exec", "--base-url", &server.url()])
        .args([
            "--api-key-env",
            "MY_GATEWAY_KEY",
            "--permission-mode",
            "bypass",
        ])
        .arg("dump the environment");
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    for file in ["bash-env.txt", "hook-env.txt"] {
        let dumped = std::fs::read_to_string(dir.path().join(file)).unwrap();
        assert!(
            dumped.contains("HOME="),
            "{file} is not an environment dump"
        );
        for (name, value) in KEYS {
            assert!(!dumped.contains(value), "{file} holds {name}");
        }
    }
    // The key still reached the provider, which is where it belongs.
    let sent = &server.requests()[0].headers;
    assert!(sent.iter().any(|(_, v)| v.contains("sk-gw-secret-3")));
}

#[tokio::test]
async fn printing_the_environment_asks_first() {
    for line in ["printenv", "printenv ANTHROPIC_API_KEY", "env"] {
        let dir = tempfile::tempdir().unwrap();
        let scenario = format!(
            r#"{{"turns": [
                {{"tool_calls": [{{"name": "bash", "arguments": {{"command": "{line}"}}}}]}},
                {{"text": "done"}}
            ]}}"#
        );
        let server = mock(&scenario).await;
        let mut cmd = rein(dir.path());
        cmd.env("ANTHROPIC_API_KEY", "sk-ant-secret-1").args([
            "exec",
            "--base-url",
            &server.url(),
            "go",
        ]);
        let out = output(cmd).await;
        assert!(out.status.success(), "{line}: {}", text(&out.stderr));
        let second = server.requests()[1].body.to_string();
        assert!(
            second.contains("needs the user's approval"),
            "{line}: {second}"
        );
    }
}

#[tokio::test]
async fn exec_output_carries_no_terminal_escapes() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "printf '\\033]52;c;cHduZWQ=\\007\\033[2Jboom'; exit 3"}}]},
            {"text": "answer \u001b]0;evil title\u0007with \u001b[31mred\u001b[0m\nsecond line\u009b2J"}
        ]}"#,
    )
    .await;
    let mut cmd = rein(dir.path());
    cmd.args(["exec", "--base-url", &server.url()])
        .args(["--permission-mode", "bypass", "go"]);
    let out = output(cmd).await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stdout, "answer with red\nsecond line\n");
    assert!(stderr.contains("error: "), "{stderr}");
    for stream in [&stdout, &stderr] {
        assert!(
            !stream.contains(['\u{1b}', '\u{7}', '\u{9b}']),
            "{stream:?}"
        );
    }
}

/// One list of secrets for every child: the web search key `[web] search = "brave"` reads is
/// hidden from stdio MCP servers as from commands (it was hidden from commands only).
#[tokio::test]
async fn the_search_key_reaches_no_child_mcp_servers_included() {
    let dir = tempfile::tempdir().unwrap();
    let config_dir = dir.path().join(".rein-test-config/rein");
    std::fs::create_dir_all(&config_dir).unwrap();
    let dump = dir.path().join("mcp-env.txt");
    std::fs::write(
        config_dir.join("config.toml"),
        format!(
            "[web]\nsearch = \"brave\"\n\n[mcp_servers.dump]\ncommand = \"sh\"\n\
             args = [\"-c\", \"env > {}\"]\n",
            dump.display()
        ),
    )
    .unwrap();
    let server = mock(
        r#"{"turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "env > bash-env.txt"}}]},
            {"text": "done"}
        ]}"#,
    )
    .await;
    let mut cmd = rein(dir.path());
    cmd.env("BRAVE_API_KEY", "brave-secret-0123456789");
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--permission-mode",
        "bypass",
    ])
    .arg("dump the environment");
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    for file in [dump, dir.path().join("bash-env.txt")] {
        let dumped = std::fs::read_to_string(&file).unwrap();
        assert!(dumped.contains("HOME="), "{} is not a dump", file.display());
        assert!(
            !dumped.contains("brave-secret"),
            "{} holds BRAVE_API_KEY",
            file.display()
        );
    }
    // `rein tool bash` runs with the same list.
    let mut tool = rein(dir.path());
    tool.env("BRAVE_API_KEY", "brave-secret-0123456789");
    tool.args(["tool", "bash", "--args", r#"{"command": "env"}"#]);
    let out = output(tool).await;
    let printed = text(&out.stdout);
    assert!(printed.contains("HOME="), "{printed}");
    assert!(!printed.contains("brave-secret"), "{printed}");
}
