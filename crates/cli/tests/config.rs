//! Layered configuration end to end: project files, Claude Code settings, errors, `config show`.

use crate::support::*;

fn workspace_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.sh"), "echo hello world\n").unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

const RM: &str = r#"{"turns": [
    {"tool_calls": [{"name": "bash", "arguments": {"command": "rm hello.sh"}}]},
    {"text": "done"}
]}"#;

#[tokio::test]
async fn project_config_rules_and_mode_apply() {
    let dir = workspace_with(&[(
        ".rein/config.toml",
        "permission_mode = \"bypass\"\n\n[permissions]\ndeny = [\"Bash(rm *)\"]\n",
    )]);
    let server = mock(RM).await;
    let mut cmd = rein(dir.path());
    cmd.args(["exec", "--base-url", &server.url(), "delete hello.sh"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(dir.path().join("hello.sh").exists());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("deny rule Bash(rm *) ("), "{stderr}");
    assert!(stderr.contains(".rein/config.toml:4)"), "{stderr}");
}

#[tokio::test]
async fn claude_code_settings_allow_what_they_allow() {
    let dir = workspace_with(&[(
        ".claude/settings.json",
        r#"{"permissions": {"allow": ["Bash(rm:*)"]}}"#,
    )]);
    let server = mock(RM).await;
    let mut cmd = rein(dir.path());
    cmd.args(["exec", "--trust-workspace", "--base-url", &server.url()])
        .arg("delete hello.sh");
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        !dir.path().join("hello.sh").exists(),
        "{}",
        text(&out.stderr)
    );
}

#[tokio::test]
async fn a_bad_config_is_one_line_naming_file_line_and_key_with_exit_2() {
    let dir = workspace_with(&[(".rein/config.toml", "\n\npermission_mode = \"yolo\"\n")]);
    let mut cmd = rein(dir.path());
    cmd.args(["exec", "--base-url", "http://127.0.0.1:9", "hi"]);
    let out = output(cmd).await;
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(".rein/config.toml:3: permission_mode: unknown permission mode \"yolo\""),
        "{stderr}"
    );
}

#[tokio::test]
async fn config_show_prints_each_value_with_its_origin() {
    let dir = workspace_with(&[
        (".rein/config.toml", "model = \"gpt-5\"\n"),
        (
            ".rein/config.local.toml",
            "model = \"o3\"\n[tools]\nmax_parallel = 4\n",
        ),
    ]);
    let mut cmd = rein(dir.path());
    cmd.args(["config", "show"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("model = \"o3\"  # "), "{stdout}");
    assert!(
        stdout.contains(".rein/config.local.toml:1 (overrides \"gpt-5\" at "),
        "{stdout}"
    );
    assert!(stdout.contains("tools.max_parallel = 4  # "), "{stdout}");
    assert!(
        stdout.contains("permission_mode = \"default\"  # default"),
        "{stdout}"
    );
}

#[tokio::test]
async fn config_show_gives_the_effective_value_then_every_source_it_overrides() {
    let dir = workspace_with(&[
        (
            ".rein-test-config/rein/config.toml",
            "model = \"opus\"\n[permissions]\nallow = [\"Bash(ls *)\", \"Read(src/**)\"]\n",
        ),
        (".rein/config.toml", "model = \"haiku\"\n"),
    ]);
    let mut trust = rein(dir.path());
    trust.arg("trust");
    assert!(output(trust).await.status.success());
    let user = dir.path().join(".rein-test-config/rein/config.toml");
    let project = dir.path().join(".rein/config.toml");

    let mut cmd = rein(dir.path());
    cmd.args(["config", "show"]).env("REIN_MODEL", "gpt-5");
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let model = format!(
        "model = \"gpt-5\"  # env REIN_MODEL (overrides \"haiku\" at {}:1, \"opus\" at {}:1)\n",
        project.display(),
        user.display()
    );
    assert!(stdout.contains(&model), "{stdout}");
    let rules = format!(
        "permissions.allow = [\"Bash(ls *)\", \"Read(src/**)\"]  # {}:3\n",
        user.display()
    );
    assert!(stdout.contains(&rules), "{stdout}");
    assert!(!stdout.contains('…'), "{stdout}");

    let empty = tempfile::tempdir().unwrap();
    let mut cmd = rein(empty.path());
    cmd.args(["config", "show"]);
    let stdout = text(&output(cmd).await.stdout);
    assert!(
        stdout.contains("model = \"claude-sonnet-4-5\"  # default\n"),
        "{stdout}"
    );
}

#[tokio::test]
async fn rein_tool_honours_configured_read_denials() {
    let dir = workspace_with(&[
        (
            ".rein/config.toml",
            "[permissions]\ndeny = [\"Read(./private/**)\"]\n",
        ),
        ("private/notes.txt", "SECRET-NOTE"),
    ]);
    let mut cmd = rein(dir.path());
    cmd.args([
        "tool",
        "read_file",
        "--args",
        r#"{"path": "private/notes.txt"}"#,
    ]);
    let out = output(cmd).await;
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(!stdout.contains("SECRET-NOTE"), "{stdout}");
    assert!(stdout.contains("deny rule Read(./private/**)"), "{stdout}");
}

/// `rein config …` with `args`: (exit code, stdout, stderr).
async fn config_cmd(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let mut cmd = rein(dir);
    cmd.arg("config").args(args);
    let out = output(cmd).await;
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

#[tokio::test]
async fn config_set_unset_and_rules_edit_the_files_and_check_them_first() {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join(".rein-test-config/rein/config.toml");
    let (code, said, _) = config_cmd(dir.path(), &["set", "tools.max_parallel", "3"]).await;
    assert_eq!(code, 0);
    assert!(said.starts_with("Set tools.max_parallel = 3 in "), "{said}");
    assert_eq!(
        std::fs::read_to_string(&user).unwrap(),
        "[tools]\nmax_parallel = 3\n"
    );
    // An unknown key or a wrong type changes nothing, and says where and why.
    let (code, _, err) = config_cmd(dir.path(), &["set", "tools.max_paralel", "3"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("nothing changed:") && err.contains("max_paralel"),
        "{err}"
    );
    let (code, _, err) = config_cmd(dir.path(), &["set", "max_turns", "lots"]).await;
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        std::fs::read_to_string(&user).unwrap(),
        "[tools]\nmax_parallel = 3\n"
    );
    // Rules go to the workspace's own local file by default.
    let (code, said, err) = config_cmd(dir.path(), &["deny", "Bash(curl *)"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(said.contains(".rein/config.local.toml"), "{said}");
    let (_, shown, _) = config_cmd(dir.path(), &["show"]).await;
    assert!(shown.contains("Bash(curl *)"), "{shown}");
    let (code, _, err) = config_cmd(dir.path(), &["allow", "Bash(curl"]).await;
    assert_eq!(code, 2, "{err}");
    let (code, said, _) = config_cmd(dir.path(), &["remove-rule", "Bash(curl *)"]).await;
    assert_eq!(code, 0);
    assert!(
        said.starts_with("Removed the rule Bash(curl *) from"),
        "{said}"
    );
    let (code, _, err) = config_cmd(dir.path(), &["remove-rule", "Bash(curl *)"]).await;
    assert_eq!(code, 2);
    assert!(err.contains("no rein settings file has the rule"), "{err}");
    let (code, said, _) = config_cmd(dir.path(), &["unset", "tools.max_parallel"]).await;
    assert_eq!(code, 0, "{said}");
}

#[tokio::test]
async fn a_change_the_user_makes_to_a_trusted_workspace_keeps_its_trust() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".rein")).unwrap();
    std::fs::write(dir.path().join(".rein/config.toml"), "max_turns = 5\n").unwrap();
    let mut trust = rein(dir.path());
    trust.arg("trust");
    assert!(output(trust).await.status.success());
    let (code, said, err) = config_cmd(
        dir.path(),
        &["allow", "Bash(make *)", "--scope", "workspace"],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    assert!(!said.contains("not trusted"), "{said}");
    let (_, shown, _) = config_cmd(dir.path(), &["show"]).await;
    assert!(shown.contains("Bash(make *)"), "{shown}");
    assert!(!shown.contains("ignored"), "{shown}");
    // Untrusted, the allow rule is written but said to wait for the user's trust.
    let other = tempfile::tempdir().unwrap();
    let (code, said, _) = config_cmd(other.path(), &["allow", "Bash(make *)"]).await;
    assert_eq!(code, 0);
    assert!(said.contains("not trusted"), "{said}");
}
