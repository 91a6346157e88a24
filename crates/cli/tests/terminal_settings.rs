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
    tmux.launch(dir.path(), &server.url(), "").await;

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
    tmux.launch(dir.path(), &server.url(), "").await;
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
    // The screen shows the typed line at once; the file is written a moment later.
    until("the status line written", || {
        std::fs::read_to_string(&user_config)
            .is_ok_and(|text| text.contains("status_line = \"echo my-own-line\""))
    })
    .await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn add_dir_lets_the_file_tools_reach_another_folder_from_the_next_call() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let base = tempfile::tempdir().unwrap();
    let ws = base.path().join("ws");
    let other = base.path().join("other");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "shared notes\n").unwrap();
    let other = std::fs::canonicalize(&other).unwrap();
    let read = serde_json::json!({"tool_calls": [{"name": "read_file",
        "arguments": {"path": other.join("notes.txt").display().to_string()}}]});
    let write = serde_json::json!({"tool_calls": [{"name": "write_file",
        "arguments": {"path": other.join("new.txt").display().to_string(), "content": "new\n"}}]});
    let cat = serde_json::json!({"tool_calls": [{"name": "bash",
        "arguments": {"command": format!("cat {}", other.join("notes.txt").display())}}]});
    let scenario = serde_json::json!({"turns": [
        read, {"text": "First try."}, read, write, cat, {"text": "Second try."}
    ]})
    .to_string();
    let server = mock(&scenario).await;
    tmux.launch(&ws, &server.url(), "--permission-mode accept-edits")
        .await;
    tmux.type_text("read the notes");
    tmux.keys(&["Enter"]);
    tmux.wait_for("First try.").await;
    assert!(
        last_message(&server, 1).contains("outside the workspace"),
        "{}",
        last_message(&server, 1)
    );

    tmux.type_text("/add-dir ../other");
    tmux.keys(&["Enter"]);
    tmux.wait_for("to the workspace: the file tools read and write it")
        .await;
    tmux.type_text("read the notes again");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Second try.").await;
    assert!(
        last_message(&server, 3).contains("shared notes"),
        "{}",
        last_message(&server, 3)
    );
    assert_eq!(
        std::fs::read_to_string(other.join("new.txt")).unwrap(),
        "new\n"
    );
    // A sandboxed command sees the folder too (read-only).
    let cat = last_message(&server, 5);
    assert!(cat.contains("shared notes"), "{cat}");
    // The system prompt names the folder from then on.
    let system = server.requests()[3].body["system"].to_string();
    assert!(system.contains(&other.display().to_string()), "{system}");

    tmux.type_text("/add-dir ../missing");
    tmux.keys(&["Enter"]);
    tmux.wait_for("cannot add ../missing").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_opens_the_picked_file_in_the_users_editor_and_the_next_session_gets_it() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("AGENTS.md"), "Use tabs.\n").unwrap();
    // An "editor" that appends a line to the file it is given.
    let editor = dir.path().join("editor.sh");
    std::fs::write(
        &editor,
        "echo 'Run make lint before committing.' >> \"$1\"\n",
    )
    .unwrap();
    let server = mock(r#"{"turns": [{"text": "Noted."}]}"#).await;
    let script = launcher(dir.path(), &server.url(), "");
    tmux.open(&format!(
        "EDITOR='sh {}' sh '{}'",
        editor.display(),
        script.display()
    ));
    tmux.wait_for("/help for commands").await;
    tmux.type_text("/memory");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Edit a memory file in your editor").await;
    assert!(screen.contains("rein/AGENTS.md (new)"), "{screen}");
    tmux.keys(&["Enter"]);
    tmux.wait_for("AGENTS.md saved: the model gets it from the next session")
        .await;
    assert_eq!(
        std::fs::read_to_string(dir.path().join("AGENTS.md")).unwrap(),
        "Use tabs.\nRun make lint before committing.\n"
    );
    tmux.type_text("/clear");
    tmux.keys(&["Enter"]);
    tmux.wait_for("new session").await;
    tmux.type_text("hello");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Noted.").await;
    let system = server.requests()[0].body["system"].to_string();
    assert!(
        system.contains("Run make lint before committing."),
        "{system}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agents_new_asks_the_model_to_write_a_subagent_file_from_a_description() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let agent = "---\nname: sql-reviewer\ndescription: Reviews SQL migrations.\ntools: read_file, grep\n---\n\nYou review SQL migrations.\n";
    let write = serde_json::json!({"tool_calls": [{"name": "write_file",
        "arguments": {"path": ".rein/agents/sql-reviewer.md", "content": agent}}]});
    let scenario =
        serde_json::json!({"turns": [write, {"text": "Wrote .rein/agents/sql-reviewer.md."}]})
            .to_string();
    let server = mock(&scenario).await;
    tmux.launch(dir.path(), &server.url(), "--permission-mode bypass")
        .await;
    tmux.type_text("/agents new reviews SQL migrations for locking problems");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Wrote .rein/agents/sql-reviewer.md.").await;
    let asked = last_message(&server, 0);
    assert!(
        asked.contains("Write it to .rein/agents/NAME.md"),
        "{asked}"
    );
    assert!(
        asked.contains("Description: reviews SQL migrations for locking problems"),
        "{asked}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".rein/agents/sql-reviewer.md")).unwrap(),
        agent
    );
    tmux.type_text("/agents make one");
    tmux.keys(&["Enter"]);
    tmux.wait_for("usage: /agents (lists them) or /agents new DESCRIPTION")
        .await;
}
