//! `/rewind` in a real terminal (tmux), in a git workspace: Esc Esc lists the prompts, the
//! preview names the files (those a shell command made too), and "code and conversation"
//! brings back the earlier bytes, forks the conversation and leaves the user's git alone.

use rein_testkit::git;

use crate::support::*;
use crate::tmux::Tmux;

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
    tmux.launch(ws, &server.url(), "--permission-mode bypass")
        .await;
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
    // On a loaded machine two tmux commands may arrive further apart than a double press
    // allows: then the second only arms it again, and a third press opens it.
    tmux.keys(&["Escape"]);
    tmux.keys(&["Escape"]);
    for _ in 0..3 {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        if tmux.screen().contains("Rewind to before which prompt") {
            break;
        }
        tmux.keys(&["Escape"]);
    }
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

/// The newcomer's sequence, without git: two edits, a prompt cancelled with Ctrl-C before
/// any reply, then a chat; `/rewind` lists all four and "edit b" restores `b.txt`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rewind_after_a_cancelled_prompt_picks_the_right_turn() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "a\n"}}]},
          {"text": "wrote a"},
          {"tool_calls": [{"name": "write_file", "arguments": {"path": "b.txt", "content": "b\n"}}]},
          {"text": "wrote b"},
          {"text": "too late", "delay_ms": 30000},
          {"text": "hello back"}
        ]}"#,
    )
    .await;
    tmux.launch(ws, &server.url(), "--permission-mode accept-edits")
        .await;
    for (prompt, answer) in [("edit a", "wrote a"), ("edit b", "wrote b")] {
        tmux.type_text(prompt);
        tmux.keys(&["Enter"]);
        tmux.wait_for(answer).await;
        tmux.wait_idle().await;
    }
    tmux.type_text("slow one");
    tmux.keys(&["Enter"]);
    while server.requests().len() < 5 {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    tmux.keys(&["C-c"]);
    tmux.wait_for("Interrupted").await;
    tmux.wait_idle().await;
    tmux.type_text("chat");
    tmux.keys(&["Enter"]);
    tmux.wait_for("hello back").await;
    tmux.wait_idle().await;

    tmux.type_text("/rewind");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Rewind to before which prompt").await;
    let listed: Vec<&str> = screen
        .lines()
        .skip_while(|l| !l.contains("Rewind to before which prompt"))
        .skip(1)
        .take(4)
        .map(|l| l.trim_start_matches(['›', ' ']))
        .collect();
    assert_eq!(listed, ["chat", "slow one", "edit b", "edit a"], "{screen}");
    tmux.keys(&["Down", "Down", "Enter"]);
    let screen = tmux.wait_for("Restoring the code would:").await;
    assert!(screen.contains("delete   b.txt  +0 -1"), "{screen}");
    tmux.wait_for("› Restore code and conversation").await;
    tmux.keys(&["Down", "Enter"]);
    tmux.wait_for("deleted  b.txt").await;
    assert!(!ws.join("b.txt").exists());
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "a\n");
}
