//! Changing settings from the UI in a real terminal (tmux): the rules editor of
//! `/permissions`, `/config set`, and `/statusline`, each written to its file and applied to
//! the running session.

use crate::support::*;
use crate::tmux::{Tmux, launcher};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rules_editor_removes_and_adds_rules_that_apply_at_once() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    write_user_config(
        dir.path(),
        "# my settings\nmodel = \"claude-sonnet-4-5\"\n\n[permissions]\ndeny = [\"Bash(rm *)\"]\n",
    );
    let user_config = dir.path().join(".rein-test-config/rein/config.toml");
    let scenario = r#"{"turns": [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "touch made-by-rule.txt"}}]},
        {"text": "Made it."}
    ]}"#;
    let server = mock(scenario).await;
    let script = launcher(dir.path(), &server.url(), "");
    tmux.open(&format!("sh '{}'", script.display()));
    tmux.wait_for("/help for commands").await;

    // Remove the user's deny rule: the fourth item, after the three "add" ones.
    tmux.type_text("/permissions");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Edit the rules").await;
    assert!(screen.contains("− remove deny Bash(rm *)"), "{screen}");
    tmux.keys(&["Down", "Down", "Down", "Enter"]);
    tmux.wait_for("Removed the rule Bash(rm *) from").await;
    let text = std::fs::read_to_string(&user_config).unwrap();
    assert!(!text.contains("rm *"), "{text}");
    assert!(text.starts_with("# my settings\n"), "{text}");

    // Add an allow rule: the editor fills in the command, the user types the rule.
    tmux.type_text("/permissions");
    tmux.keys(&["Enter"]);
    tmux.wait_for("+ add an allow rule").await;
    tmux.keys(&["Enter"]);
    tmux.wait_for("type the rule").await;
    tmux.type_text("Bash(touch *) --scope user");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Added allow rule Bash(touch *) to").await;
    assert!(
        std::fs::read_to_string(&user_config)
            .unwrap()
            .contains("allow = [\"Bash(touch *)\"]")
    );
    // It applies now: the command runs without a question.
    tmux.type_text("make the file");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Made it.").await;
    assert!(!screen.contains("Allow bash"), "{screen}");
    assert!(dir.path().join("made-by-rule.txt").exists());

    // A bad rule changes nothing and says why.
    tmux.type_text("/permissions deny Bash(unclosed");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Bash(unclosed").await;
    assert!(
        !std::fs::read_to_string(&user_config)
            .unwrap()
            .contains("unclosed")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_set_and_statusline_write_the_users_file() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "Hello there."}]}"#).await;
    let script = launcher(dir.path(), &server.url(), "");
    tmux.open(&format!("sh '{}'", script.display()));
    tmux.wait_for("/help for commands").await;
    let user_config = dir.path().join(".rein-test-config/rein/config.toml");

    tmux.type_text("/config set cache_ttl 1h");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Set cache_ttl = \"1h\" in").await;
    tmux.type_text("/config set max_turns lots");
    tmux.keys(&["Enter"]);
    tmux.wait_for("nothing changed:").await;

    tmux.type_text("/statusline echo my-own-line");
    tmux.keys(&["Enter"]);
    tmux.wait_for("my-own-line").await;
    let text = std::fs::read_to_string(&user_config).unwrap();
    assert!(text.contains("cache_ttl = \"1h\""), "{text}");
    assert!(
        text.contains("status_line = \"echo my-own-line\""),
        "{text}"
    );
    assert!(!text.contains("max_turns"), "{text}");
    tmux.type_text("/statusline off");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Removed status_line from").await;
}
