//! `/rewind` in a real terminal (tmux), in a git workspace: Esc Esc lists the prompts, the
//! preview names the files (those a shell command made too), and "code and conversation"
//! brings back the earlier bytes, forks the conversation and leaves the user's git alone.

use rein_testkit::git;

use crate::support::*;
use crate::tmux::{Tmux, launcher};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rewind_restores_code_and_forks_the_conversation() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    if !rein_testkit::has_git("rewind_restores_code_and_forks_the_conversation") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    std::fs::write(ws.join(".gitignore"), ".rein-test-*\n").unwrap();
    std::fs::write(ws.join("a.txt"), "one\n").unwrap();
    git(ws, &["init", "-q", "-b", "main"]);
    git(ws, &["add", "-A"]);
    git(ws, &["commit", "-q", "-m", "first"]);
    let head = git(ws, &["rev-parse", "HEAD"]);
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [
            {"name": "write_file", "arguments": {"path": "new.txt", "content": "made\n"}},
            {"name": "edit_file", "arguments": {"path": "a.txt", "old_string": "one", "new_string": "two"}},
            {"name": "bash", "arguments": {"command": "echo shell > shell.txt"}}
          ]},
          {"text": "done one"},
          {"text": "done two"}
        ]}"#,
    )
    .await;
    let script = launcher(ws, &server.url(), "--permission-mode bypass");
    tmux.open(&format!("sh '{}'", script.display()));
    tmux.wait_for("/help for commands").await;
    tmux.type_text("make changes");
    tmux.keys(&["Enter"]);
    tmux.wait_for("done one").await;
    tmux.type_text("say more");
    tmux.keys(&["Enter"]);
    tmux.wait_for("done two").await;
    tmux.wait_idle().await;
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "two\n");

    // tmux holds a lone Escape for `escape-time` (500 ms) to see whether a sequence follows.
    tmux.run(&["set", "-s", "escape-time", "0"]);
    tmux.keys(&["Escape"]);
    tmux.keys(&["Escape"]);
    let screen = tmux.wait_for("Rewind to before which prompt").await;
    assert!(screen.contains("› say more"), "{screen}");
    tmux.keys(&["Down"]);
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Restoring the code would:").await;
    for line in [
        "restore  a.txt  +1 -1",
        "delete   new.txt  +0 -1",
        "delete   shell.txt  +0 -1",
    ] {
        assert!(screen.contains(line), "{line}:\n{screen}");
    }
    tmux.wait_for("› Restore code and conversation").await;
    tmux.keys(&["Enter"]);
    let screen = tmux
        .wait_for("rewound: the conversation continues as session")
        .await;
    assert!(screen.contains("restored a.txt"), "{screen}");
    // The prompt is back in the input, to edit and send again.
    assert!(
        screen
            .lines()
            .rev()
            .filter(|l| !l.trim().is_empty())
            .take(4)
            .any(|l| l.starts_with("› make changes")),
        "{screen}"
    );
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "one\n");
    assert!(!ws.join("new.txt").exists() && !ws.join("shell.txt").exists());
    assert_eq!(
        git(ws, &["status", "--porcelain", "--untracked-files=all"]),
        ""
    );
    assert_eq!(git(ws, &["rev-parse", "HEAD"]), head);
    assert_eq!(git(ws, &["stash", "list"]), "");

    tmux.keys(&["C-u"]);
    tmux.type_text("/quit");
    tmux.keys(&["Enter"]);
    tmux.wait_for("rein exited with 0").await;
    // Two sessions now: the first as it was, and its fork.
    assert_eq!(session_files(ws).len(), 2);
}
