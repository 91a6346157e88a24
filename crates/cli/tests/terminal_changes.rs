//! Changes and results as a newcomer sees them in a real terminal (tmux): an edit's question
//! shows numbered hunks with context and names the rule "this session" adds; "all edits this
//! session" lets the next edit through without asking; the transcript shows each change with
//! its line numbers; a failed command says its exit code on its line, and Ctrl-O unfolds its
//! folded output.

use crate::support::*;
use crate::tmux::Tmux;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_show_numbered_hunks_and_all_edits_this_session_stops_asking() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    let lines: String = (1..=20).map(|n| format!("l{n}\n")).collect();
    std::fs::write(ws.join("f.txt"), &lines).unwrap();
    let notes: String = (1..=30).map(|n| format!("note {n}\n")).collect();
    let scenario = serde_json::json!({"turns": [
        {"tool_calls": [{"name": "edit_file", "arguments":
            {"path": "f.txt", "old_string": "l5\nl6\n", "new_string": "L5 changed\nl6\n"}}]},
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "notes.txt", "content": notes}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "seq 1 30; exit 3"}}]},
        {"text": "All done."}
    ]});
    let server = mock(&scenario.to_string()).await;
    tmux.launch(ws, &server.url(), "").await;
    tmux.type_text("change things");
    tmux.keys(&["Enter"]);

    // The question: the change with line numbers and context, and what each answer allows.
    let screen = tmux.wait_for("Allow edit_file f.txt?").await;
    for expected in [
        "f.txt: 1 line added, 1 removed",
        "    2   l2",
        "    5 - l5",
        "    5 + L5 changed",
        "    6   l6",
        "    8   l8",
        "a yes, and allow Edit(./f.txt) until rein exits",
        "e yes, and allow every edit in this workspace until rein exits",
    ] {
        assert!(screen.contains(expected), "{expected:?} missing:\n{screen}");
    }
    // "l6" was quoted and kept: it is context, not removed and added again.
    assert!(!screen.contains("- l6"), "{screen}");
    assert_eq!(std::fs::read_to_string(ws.join("f.txt")).unwrap(), lines);

    tmux.keys(&["e"]);
    // The write is an edit too: it runs without a question, in accept-edits mode now.
    let screen = tmux.wait_for("notes.txt: 30 lines added, 0 removed").await;
    assert!(!screen.contains("Allow write_file"), "{screen}");
    assert!(screen.contains("● edit_file f.txt"), "{screen}");
    assert!(
        screen.contains("⎿ f.txt: 1 line added, 1 removed"),
        "{screen}"
    );
    assert!(screen.contains("    1 + note 1"), "{screen}");
    assert!(
        std::fs::read_to_string(ws.join("f.txt"))
            .unwrap()
            .contains("L5 changed\nl6\n")
    );
    assert!(ws.join("notes.txt").exists());

    // The command is no edit: the answer allowed edits only, so it is asked about.
    let screen = tmux.wait_for("Allow this bash command?").await;
    assert!(screen.contains("asked by mode accept-edits"), "{screen}");
    tmux.keys(&["y"]);
    let screen = tmux.wait_for("All done.").await;
    assert!(
        screen.contains("accept-edits"),
        "the status line says the mode:\n{screen}"
    );
    assert!(
        screen.contains("● bash seq 1 30; exit 3 · exit 3"),
        "the exit code on the call's line:\n{screen}"
    );
    assert!(
        screen.contains("… +27 lines (Ctrl-O shows all)"),
        "{screen}"
    );
    assert!(!screen.contains("\n  30\n"), "{screen}");

    tmux.keys(&["C-o"]);
    tmux.wait_for("in full (31 lines)").await;
    let screen = tmux.wait_for("  [exit code 3]").await;
    let rows: Vec<&str> = screen.lines().map(str::trim_end).collect();
    assert!(rows.contains(&"  30"), "{screen}");
    assert!(rows.contains(&"  [exit code 3]"), "{screen}");

    tmux.type_text("/quit");
    tmux.keys(&["Enter"]);
    tmux.wait_for("rein exited with 0").await;
}
