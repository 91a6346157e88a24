//! The prompt's shortcuts in a real terminal (tmux): `!command` runs the user's own command
//! (no model request; its output joins the conversation), `#line` is remembered in the
//! memory file picked.

use crate::support::*;
use crate::tmux::Tmux;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bang_runs_the_users_command_and_hash_remembers_a_line() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("AGENTS.md"), "Use tabs.").unwrap();
    write_user_config(dir.path(), "[permissions]\ndeny = [\"Bash(rm *)\"]\n");
    std::fs::write(dir.path().join("keep.txt"), "keep").unwrap();
    let server = mock(r#"{"turns": [{"text": "It printed hello."}]}"#).await;
    tmux.launch(dir.path(), &server.url(), "").await;

    // In default mode, without a question: the user typed it.
    tmux.type_text("!echo hello-from-$((40+2)) > shell.txt; cat shell.txt");
    tmux.keys(&["Enter"]);
    tmux.wait_for("hello-from-42").await;
    tmux.wait_idle().await;
    assert!(server.requests().is_empty(), "the model was asked");
    // Deny rules still hold.
    tmux.type_text("!rm keep.txt");
    tmux.keys(&["Enter"]);
    tmux.wait_for("deny rule Bash(rm *)").await;
    tmux.wait_idle().await;
    assert!(dir.path().join("keep.txt").exists());

    tmux.type_text("what did it print?");
    tmux.keys(&["Enter"]);
    tmux.wait_for("It printed hello.").await;
    let sent = server.requests()[0].body["messages"].to_string();
    assert!(
        sent.contains(
            "<bash-input>echo hello-from-$((40+2)) > shell.txt; cat shell.txt</bash-input>"
        ),
        "{sent}"
    );
    assert!(sent.contains("hello-from-42"), "{sent}");

    tmux.type_text("# always run make test before committing");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Remember this in").await;
    assert!(
        screen.contains("/memories/MEMORY.md (the model's memory of this workspace, private)"),
        "{screen}"
    );
    assert!(
        screen.contains("AGENTS.md (this workspace, shared)"),
        "{screen}"
    );
    // The model's own memory first: private, read at the next session's start.
    tmux.keys(&["Enter"]);
    tmux.wait_for("remembered in").await;
    let memory = std::fs::read_dir(dir.path().join(".rein-test-data/rein/memory"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join("MEMORY.md");
    assert_eq!(
        std::fs::read_to_string(&memory).unwrap(),
        "- always run make test before committing\n"
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&memory).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    // The workspace's AGENTS.md, second.
    tmux.type_text("# use tabs in Makefiles");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Remember this in").await;
    tmux.keys(&["Down", "Enter"]);
    tmux.wait_for("AGENTS.md: the model gets it").await;
    assert_eq!(
        std::fs::read_to_string(dir.path().join("AGENTS.md")).unwrap(),
        "Use tabs.\n- use tabs in Makefiles\n"
    );
    // Nothing was sent for it.
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_completes_a_path_fuzzily_and_attaches_the_file() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src/parser")).unwrap();
    std::fs::write(
        dir.path().join("src/parser/tokens.rs"),
        "pub struct Token;\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("README.md"), "# hi\n").unwrap();
    std::fs::write(dir.path().join(".env"), "KEY=1\n").unwrap();
    let server = mock(r#"{"turns": [{"text": "A token type."}]}"#).await;
    tmux.launch(dir.path(), &server.url(), "").await;
    tmux.type_text("explain @ptok");
    let screen = tmux.wait_for("@src/parser/tokens.rs").await;
    assert!(!screen.contains("@.env"), "{screen}");
    tmux.keys(&["Tab"]);
    tmux.wait_for("explain @src/parser/tokens.rs").await;
    tmux.keys(&["Enter"]);
    tmux.wait_for("A token type.").await;
    let sent = server.requests()[0].body["messages"][0].to_string();
    assert!(
        sent.contains(r#"<attachment path=\"src/parser/tokens.rs\">"#),
        "{sent}"
    );
    assert!(sent.contains("pub struct Token;"), "{sent}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loop_runs_the_prompt_now_and_tasks_lists_its_job() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "The deploy is at 2 of 5 pods."}]}"#).await;
    tmux.launch(dir.path(), &server.url(), "").await;
    tmux.type_text("/loop 5m check the deploy");
    tmux.keys(&["Enter"]);
    tmux.wait_for("The deploy is at 2 of 5 pods.").await;
    tmux.wait_idle().await;
    let sent = server.requests()[0].body["messages"].to_string();
    assert!(sent.contains("every 5 minutes"), "{sent}");
    tmux.type_text("/tasks");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("*/5 * * * * check the deploy").await;
    assert!(screen.contains("scheduled, next"), "{screen}");
}
