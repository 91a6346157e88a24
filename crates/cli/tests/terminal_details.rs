//! The interactive UI's small things, in a real terminal (tmux): the start line, a Markdown
//! table, `/compact` on a short session, a custom command added during the session, a long
//! paste and the `/` list.

use crate::support::*;
use crate::tmux::{Tmux, launcher};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_line_tables_compact_new_commands_and_pastes() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    let server = mock(
        r#"{"turns": [
          {"text": "Here:\n\n| name | size |\n|---|---:|\n| a.rs | 10 |\n| longer.rs | 2000 |\n\nDone."},
          {"text": "Hello, world."},
          {"text": "Got the paste."}
        ]}"#,
    )
    .await;
    let script = launcher(ws, &server.url(), "");
    tmux.open(&format!("sh '{}'", script.display()));
    let screen = tmux.wait_for("/help for commands").await;
    let start = format!("rein {} · ", env!("CARGO_PKG_VERSION"));
    assert!(screen.contains(&start), "{screen}");
    assert!(
        screen.contains(" · claude-sonnet-4-5 · default mode"),
        "{screen}"
    );

    tmux.type_text("list the files");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Done.").await;
    for row in ["name      │ size", "──────────┼─────", "longer.rs │ 2000"]
    {
        assert!(screen.contains(row), "{row:?}:\n{screen}");
    }
    assert!(!screen.contains("|---|"), "{screen}");
    tmux.wait_idle().await;

    // Nothing worth a summary yet: said, and no request made.
    tmux.type_text("/compact");
    tmux.keys(&["Enter"]);
    tmux.wait_for("nothing to compact").await;
    assert_eq!(server.requests().len(), 1);

    // A command written during the session is there after /clear.
    let commands = ws.join(".rein-test-config/rein/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(commands.join("greet.md"), "Say hello to $ARGUMENTS.\n").unwrap();
    tmux.type_text("/clear");
    tmux.keys(&["Enter"]);
    tmux.wait_for("new session").await;
    tmux.type_text("/gre");
    tmux.wait_for("/greet").await;
    // With an argument typed the list closes: Enter sends.
    tmux.type_text("et world");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Hello, world.").await;
    let asked = server.requests()[1].body.to_string();
    assert!(asked.contains("Say hello to world."), "{asked}");
    tmux.wait_idle().await;

    // A long paste is sent whole and echoed folded.
    let paste: String = (1..=30).map(|n| format!("pasted {n}\n")).collect();
    tmux.run(&["set-buffer", "-b", "p", &paste]);
    tmux.run(&["paste-buffer", "-p", "-b", "p", "-t", "ui"]);
    tmux.wait_for("[Pasted text #1").await;
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Got the paste.").await;
    assert!(
        screen.contains("… +24 lines, sent whole (Ctrl-O shows all)"),
        "{screen}"
    );
    assert!(!screen.contains("pasted 20"), "{screen}");
    let sent = server.requests()[2].body.to_string();
    assert!(sent.contains("pasted 30"), "{sent}");

    // The / list says it scrolls.
    tmux.type_text("/");
    let screen = tmux.wait_for("(↑↓ scroll").await;
    assert!(screen.contains("below)"), "{screen}");
    tmux.keys(&["BSpace"]);
    tmux.type_text("/quit");
    tmux.keys(&["Enter"]);
    tmux.wait_for("rein exited with 0").await;
}
