//! A switcher's own Claude Code configuration applies: `~/.claude/settings.json` (its deny
//! rules, model, hooks), the managed settings an administrator set, and `~/.claude/CLAUDE.md`
//! as the user's memory; `config show` names the file each value came from.

use serde_json::{Value, json};

use crate::support::*;

/// A home whose `~/.claude` holds `settings`, and a workspace beside it.
fn home_with(settings: &Value) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let claude = dir.path().join("home/.claude");
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::write(claude.join("settings.json"), settings.to_string()).unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    (dir, ws)
}

fn in_home(dir: &tempfile::TempDir, ws: &std::path::Path) -> std::process::Command {
    let mut cmd = rein(ws);
    cmd.env("HOME", dir.path().join("home"));
    cmd
}

#[tokio::test]
async fn the_users_claude_code_deny_rules_and_model_apply_and_are_shown_with_their_file() {
    let settings = json!({
        "model": "claude-opus-4-1",
        "permissions": {"deny": ["Bash(git push:*)"]},
        "env": {"DEBUG": "1"}
    });
    let (dir, ws) = home_with(&settings);
    let mut show = in_home(&dir, &ws);
    show.args(["config", "show"]);
    let out = output(show).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    let file = dir
        .path()
        .join("home/.claude/settings.json")
        .display()
        .to_string();
    for want in [
        "Bash(git push:*)",
        "claude-opus-4-1",
        file.as_str(),
        "env.DEBUG",
        "rein does not have this Claude Code setting",
    ] {
        assert!(shown.contains(want), "{want}:\n{shown}");
    }
    // In bypass, the user's deny rule still refuses the push.
    let server = mock(
        r#"{"turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "git push origin main"}}]},
            {"text": "done"}
        ]}"#,
    )
    .await;
    let mut exec = in_home(&dir, &ws);
    exec.args([
        "exec",
        "--base-url",
        &server.url(),
        "--permission-mode",
        "bypass",
        "push",
    ]);
    let out = output(exec).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let result = last_message(&server, 1);
    assert!(result.contains("git push"), "{result}");
    assert!(
        result.to_lowercase().contains("deny") || result.contains("denied"),
        "{result}"
    );
    // The model came from the user's settings.
    assert_eq!(server.requests()[0].body["model"], "claude-opus-4-1");
}

#[tokio::test]
async fn managed_settings_apply_over_every_file_and_their_rules_always_hold() {
    let (dir, ws) = home_with(&json!({"model": "claude-sonnet-4-5"}));
    let managed = dir.path().join("managed-settings.json");
    std::fs::write(
        &managed,
        json!({"model": "claude-haiku-4-5", "permissions": {"deny": ["Bash(curl:*)"]}}).to_string(),
    )
    .unwrap();
    // The workspace's own settings allow curl; trusted, they still cannot lift the deny.
    std::fs::create_dir_all(ws.join(".claude")).unwrap();
    std::fs::write(
        ws.join(".claude/settings.json"),
        json!({"permissions": {"allow": ["Bash(curl:*)"]}}).to_string(),
    )
    .unwrap();
    let server = mock(
        r#"{"turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "curl https://example.com"}}]},
            {"text": "done"}
        ]}"#,
    )
    .await;
    let mut exec = in_home(&dir, &ws);
    exec.env("REIN_MANAGED_SETTINGS", &managed);
    exec.args([
        "exec",
        "--trust-workspace",
        "--base-url",
        &server.url(),
        "fetch",
    ]);
    let out = output(exec).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(server.requests()[0].body["model"], "claude-haiku-4-5");
    let result = last_message(&server, 1);
    assert!(result.to_lowercase().contains("deny"), "{result}");
}

#[tokio::test]
async fn the_users_claude_md_is_the_users_memory() {
    let (dir, ws) = home_with(&json!({}));
    std::fs::write(
        dir.path().join("home/.claude/CLAUDE.md"),
        "Always answer in haiku.\n",
    )
    .unwrap();
    let server = mock(r#"{"turns": [{"text": "ok"}]}"#).await;
    let mut exec = in_home(&dir, &ws);
    exec.args(["exec", "--base-url", &server.url(), "hi"]);
    let out = output(exec).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let system = server.requests()[0].body["system"].to_string();
    assert!(system.contains("Always answer in haiku."), "{system}");
    assert!(system.contains(".claude/CLAUDE.md"), "{system}");
}
