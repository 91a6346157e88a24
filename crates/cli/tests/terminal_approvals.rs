//! Approvals in a real terminal (tmux): the whole command and every changed line are there to
//! read (wrapped, scrolled, printed in full with Ctrl-O), and `n` stops the turn.

use crate::support::*;
use crate::tmux::Tmux;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_command_is_shown_whole_and_no_stops_the_turn() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let flags: String = (1..=30).map(|n| format!(" --flag-number-{n}")).collect();
    let command = format!("echo building-the-project{flags} && touch HIDDEN_TAIL_MARKER");
    assert!(command.len() > 300, "{}", command.len());
    let call =
        serde_json::json!({"tool_calls": [{"name": "bash", "arguments": {"command": command}}]});
    let scenario = serde_json::json!({"turns": [call, {"text": "Never asked for."}]}).to_string();
    let server = mock(&scenario).await;
    tmux.launch(dir.path(), &server.url(), "").await;
    tmux.type_text("build it");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Allow this bash command?").await;
    // Every flag and the tail are on the screen, wrapped; nothing is cut with `…`.
    let joined: String = screen.lines().map(str::trim).collect::<Vec<_>>().join(" ");
    for n in [1, 17, 30] {
        assert!(
            joined.contains(&format!("--flag-number-{n}")),
            "{n}: {screen}"
        );
    }
    assert!(screen.contains("HIDDEN_TAIL_MARKER"), "{screen}");
    // The only `…` is the one of "tell the model what to do instead…".
    assert_eq!(screen.matches('…').count(), 1, "{screen}");
    tmux.keys(&["n"]);
    let screen = tmux.wait_for("Interrupted").await;
    // The scrollback keeps what was refused, whole.
    assert!(screen.contains("the command refused, whole:"), "{screen}");
    let joined: String = screen.lines().map(str::trim).collect::<Vec<_>>().join(" ");
    assert!(
        joined.contains("--flag-number-30 && touch HIDDEN_TAIL_MARKER"),
        "{screen}"
    );
    assert!(!dir.path().join("HIDDEN_TAIL_MARKER").exists());
    // The model was not asked again: the turn stopped with the "no".
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifty_line_edit_scrolls_in_its_approval_and_ctrl_o_prints_it_all() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let content: String = (1..=50).map(|n| format!("changed line {n}\n")).collect();
    let call = serde_json::json!({"tool_calls": [{"name": "write_file",
        "arguments": {"path": "notes.txt", "content": content}}]});
    let scenario = serde_json::json!({"turns": [call, {"text": "Wrote it."}]}).to_string();
    let server = mock(&scenario).await;
    tmux.launch(dir.path(), &server.url(), "").await;
    tmux.type_text("write the notes");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("of 50 · ↑↓ PgUp PgDn scroll").await;
    assert!(
        screen.contains("changed line 1\n") || screen.contains("changed line 1 "),
        "{screen}"
    );
    assert!(!screen.contains("changed line 50"), "{screen}");
    tmux.keys(&["End"]);
    let screen = tmux.wait_for("changed line 50").await;
    assert!(screen.contains("–50 of 50"), "{screen}");
    tmux.keys(&["Home"]);
    tmux.wait_for("lines 1–").await;
    tmux.keys(&["C-o"]);
    // The whole diff went to the scrollback above the prompt.
    let history = {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let all = tmux.run(&["capture-pane", "-p", "-S", "-200", "-t", "ui"]);
            if all.contains("changed line 50") && all.contains("changed line 25") {
                break all;
            }
            assert!(std::time::Instant::now() < deadline, "{all}");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    };
    assert!(history.contains("notes.txt: 50 lines added"), "{history}");
    tmux.keys(&["y"]);
    tmux.wait_for("Wrote it.").await;
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(),
        content
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_models_questions_are_answered_with_arrows_and_with_other() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let call = serde_json::json!({"tool_calls": [{"name": "ask_user_question", "arguments": {"questions": [
        {"question": "Which database should the service use?", "header": "Database", "multiSelect": false,
         "options": [{"label": "Postgres (Recommended)", "description": "the team runs it already"},
                     {"label": "SQLite", "description": "one file, no server"}]},
        {"question": "Which checks run before a commit?", "header": "Checks", "multiSelect": true,
         "options": [{"label": "lint", "description": "clippy"},
                     {"label": "tests", "description": "cargo test"}]}]}}]});
    let scenario = serde_json::json!({"turns": [call, {"text": "Thanks, noted."}]}).to_string();
    let server = mock(&scenario).await;
    tmux.launch(dir.path(), &server.url(), "").await;
    tmux.type_text("set up the service");
    tmux.keys(&["Enter"]);
    let screen = tmux
        .wait_for("[Database] Which database should the service use?")
        .await;
    assert!(
        screen.contains("1. Postgres (Recommended) — the team runs it already"),
        "{screen}"
    );
    assert!(
        screen.contains("3. Other (answer in your own words)"),
        "{screen}"
    );
    // The first with the arrows: down to SQLite.
    tmux.keys(&["Down", "Enter"]);
    tmux.wait_for("[Checks] Which checks run before a commit?")
        .await;
    // The second in the user's own words, with `lint` ticked.
    tmux.keys(&["Space", "Down", "Down", "Enter"]);
    tmux.wait_for("Other: ").await;
    tmux.type_text("and a security audit");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Thanks, noted.").await;
    let answered = last_message(&server, 1);
    assert!(
        answered.contains(
            r#"\"Which database should the service use?\"=\"SQLite\", \"Which checks run before a commit?\"=\"lint, and a security audit\""#
        ),
        "{answered}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_teammates_permission_prompt_is_answered_in_the_terminal_under_its_name() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let start = serde_json::json!({"tool_calls": [{"name": "task", "arguments":
        {"description": "notes", "prompt": "Write the team notes.", "name": "alice"}}]});
    let write = serde_json::json!({"when_last": "Write the team notes.", "tool_calls": [
        {"name": "write_file", "arguments": {"path": "team-notes.txt", "content": "from alice\n"}}]});
    let scenario = serde_json::json!({"turns": [
        start,
        {"text": "Alice is on it."},
        write,
        {"when_last": "Created team-notes.txt", "text": "Notes written."},
        {"when_last": "alice is idle", "text": "Alice wrote the notes."},
        {"when_last": "alice is idle", "text": "Alice wrote the notes."}
    ]})
    .to_string();
    let server = mock(&scenario).await;
    tmux.launch(dir.path(), &server.url(), "").await;
    tmux.type_text("have alice write the notes");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("subagent alice").await;
    assert!(screen.contains("team-notes.txt"), "{screen}");
    tmux.keys(&["y"]);
    tmux.wait_for("Alice wrote the notes.").await;
    assert_eq!(
        std::fs::read_to_string(dir.path().join("team-notes.txt")).unwrap(),
        "from alice\n"
    );
    let history = tmux.run(&["capture-pane", "-p", "-S", "-200", "-t", "ui"]);
    assert!(
        history.contains("teammate alice (general) working"),
        "{history}"
    );
}
