//! `/status` and `/context` in a real terminal (tmux): what the session runs with, and what
//! fills its context window after a turn.

use crate::support::*;
use crate::tmux::{Tmux, launcher};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_and_context_describe_the_session() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "Hello there."}]}"#).await;
    let script = launcher(dir.path(), &server.url(), "");
    tmux.open(&format!("sh '{}'", script.display()));
    tmux.wait_for("/help for commands").await;
    tmux.type_text("say hello");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Hello there.").await;

    tmux.type_text("/status");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("MCP servers").await;
    for expected in [
        "model       claude-sonnet-4-5",
        "provider    anthropic",
        &format!("base URL    {}", server.url()),
        "API key     from $ANTHROPIC_API_KEY",
        "mode        default",
    ] {
        assert!(screen.contains(expected), "{expected:?} in {screen}");
    }

    tmux.type_text("/context");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("░ free").await;
    assert!(screen.contains("Context: ~"), "{screen}");
    for part in ["█ system prompt", "▓ tool definitions", "▒ conversation"] {
        assert!(screen.contains(part), "{part:?} in {screen}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_todos_config_hooks_and_agents_are_listed() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    write_user_config(
        dir.path(),
        "cache_ttl = \"1h\"\n\n[[hooks.Stop]]\ncommand = \"true # stop-hook\"\n",
    );
    let server = mock(r#"{"turns": [{"text": "Hello there."}]}"#).await;
    let script = launcher(dir.path(), &server.url(), "");
    tmux.open(&format!("sh '{}'", script.display()));
    tmux.wait_for("/help for commands").await;
    tmux.type_text("say hello");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Hello there.").await;

    tmux.type_text("/export talk.md");
    tmux.keys(&["Enter"]);
    tmux.wait_for("conversation written to").await;
    let written = std::fs::read_to_string(dir.path().join("talk.md")).unwrap();
    assert!(written.contains("## User\n\nsay hello"), "{written}");
    assert!(
        written.contains("## Assistant\n\nHello there."),
        "{written}"
    );
    tmux.type_text("/export talk.md");
    tmux.keys(&["Enter"]);
    tmux.wait_for("talk.md exists; /export another name").await;

    tmux.type_text("/todos");
    tmux.keys(&["Enter"]);
    tmux.wait_for("no open todo items").await;
    tmux.type_text("/hooks");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Stop: true # stop-hook").await;
    tmux.type_text("/config");
    tmux.keys(&["Enter"]);
    tmux.wait_for("cache_ttl = \"1h\"").await;
    tmux.type_text("/agents");
    tmux.keys(&["Enter"]);
    tmux.wait_for("explore:").await;
}
