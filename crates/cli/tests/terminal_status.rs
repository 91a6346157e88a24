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
    tmux.launch(dir.path(), &server.url(), "").await;
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
async fn export_todos_config_hooks_agents_and_doctor_are_listed() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    write_user_config(
        dir.path(),
        "cache_ttl = \"1h\"\n\n[[hooks.Stop]]\ncommand = \"true # stop-hook\"\n",
    );
    std::fs::write(dir.path().join("AGENTS.md"), "Use tabs.\n").unwrap();
    let server = mock(r#"{"turns": [{"text": "Hello there."}]}"#).await;
    tmux.launch(dir.path(), &server.url(), "").await;
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
    // To the clipboard, through the terminal (tmux keeps what it is given in a buffer).
    tmux.run(&["set", "-g", "set-clipboard", "on"]);
    tmux.type_text("/export --clipboard");
    tmux.keys(&["Enter"]);
    tmux.wait_for("conversation copied to the clipboard").await;
    let copied = tmux.run(&["show-buffer"]);
    assert!(copied.contains("## User\n\nsay hello"), "{copied}");

    tmux.type_text("/todos");
    tmux.keys(&["Enter"]);
    tmux.wait_for("no open tasks").await;
    tmux.type_text("/hooks");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Stop: true # stop-hook").await;
    tmux.type_text("/config");
    tmux.keys(&["Enter"]);
    tmux.wait_for("cache_ttl = \"1h\"").await;
    tmux.type_text("/agents");
    tmux.keys(&["Enter"]);
    tmux.wait_for("explore:").await;
    tmux.type_text("/memory");
    tmux.keys(&["Enter"]);
    tmux.wait_for("AGENTS.md (workspace)").await;
    // The list is followed by a picker of the files to edit: Esc closes it.
    tmux.wait_for("Edit a memory file in your editor").await;
    tmux.keys(&["Escape"]);
    tmux.wait_gone("Edit a memory file in your editor").await;
    tmux.type_text("/doctor");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("accepts connections").await;
    assert!(
        screen.contains("ok       API key: $ANTHROPIC_API_KEY is set"),
        "{screen}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_status_line_command_shows_its_first_line_and_runs_again_as_the_session_changes() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("line.sh");
    std::fs::write(
        &script,
        "read -r input\n\
         n=$(cat runs 2>/dev/null || echo 0); n=$((n+1)); echo $n > runs\n\
         case \"$input\" in *'\"id\":\"claude-sonnet-4-5\"'*) model=sonnet;; *) model=other;; esac\n\
         echo \"my line $model key:${ANTHROPIC_API_KEY:-hidden} run $n\"\necho second line\n",
    )
    .unwrap();
    write_user_config(
        dir.path(),
        &format!("status_line = \"sh {}\"\n", script.display()),
    );
    let server = mock(r#"{"turns": [{"text": "Hello there."}]}"#).await;
    let launch = launcher(dir.path(), &server.url(), "");
    tmux.open(&format!("sh '{}'", launch.display()));
    let screen = tmux.wait_for("my line sonnet key:hidden run").await;
    assert!(!screen.contains("second line"), "{screen}");
    tmux.type_text("say hello");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Hello there.").await;
    // The turn changed the session's numbers: the command ran again.
    let runs = dir.path().join("runs");
    rein_testkit::without_hanging("the status line to run again", move || {
        while std::fs::read_to_string(&runs)
            .ok()
            .and_then(|n| n.trim().parse::<u32>().ok())
            .unwrap_or(0)
            < 2
        {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_without_an_id_opens_the_session_picker() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "first answer"}, {"text": "again"}]}"#).await;
    let mut first = rein(dir.path());
    first.args([
        "-p",
        "--base-url",
        &server.url(),
        "remember the first prompt",
    ]);
    assert!(output(first).await.status.success());
    let launch = launcher(dir.path(), &server.url(), "-r");
    tmux.open(&format!("sh '{}'", launch.display()));
    let screen = tmux.wait_for("Resume a session").await;
    assert!(screen.contains("remember the first prompt"), "{screen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_shells_output_is_shown_by_tasks_id() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let shell = serde_json::json!({"tool_calls": [{"name": "bash", "arguments": {
        "command": "echo tick-one; echo tick-two; touch printed; sleep 30",
        "run_in_background": true}}]});
    let server = mock(&format!(
        r#"{{"turns": [{shell}, {{"text": "started it"}}]}}"#
    ))
    .await;
    tmux.launch(dir.path(), &server.url(), "--permission-mode bypass")
        .await;
    tmux.type_text("start the ticker");
    tmux.keys(&["Enter"]);
    tmux.wait_for("started it").await;
    let printed = dir.path().join("printed");
    rein_testkit::without_hanging("the shell to print", move || {
        while !printed.exists() {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    });
    tmux.type_text("/tasks bg_1");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Output of bg_1").await;
    assert!(
        screen.contains("tick-one") && screen.contains("tick-two"),
        "{screen}"
    );
    tmux.type_text("/tasks stop bg_1");
    tmux.keys(&["Enter"]);
    tmux.wait_for("bg_1").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_opens_a_picker_and_the_picked_shells_output_is_shown_live() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // The shell prints its second line only once the test has seen the first one live.
    let shell = serde_json::json!({"tool_calls": [{"name": "bash", "arguments": {
        "command": "echo live-one; while [ ! -e go ]; do sleep 0.05; done; echo live-two",
        "run_in_background": true}}]});
    let server = mock(&format!(
        r#"{{"turns": [{shell}, {{"text": "started it"}}]}}"#
    ))
    .await;
    tmux.launch(dir.path(), &server.url(), "--permission-mode bypass")
        .await;
    tmux.type_text("start the ticker");
    tmux.keys(&["Enter"]);
    tmux.wait_for("started it").await;
    tmux.type_text("/tasks");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Watch a task's output").await;
    tmux.keys(&["Enter"]);
    let screen = tmux
        .wait_for("Output of bg_1 (running; live, Esc closes)")
        .await;
    tmux.wait_for("  live-one").await;
    assert!(!screen.lines().any(|l| l.trim() == "live-two"), "{screen}");
    std::fs::write(dir.path().join("go"), "").unwrap();
    // Nothing typed: the view refreshes by itself, and says when the shell ends.
    tmux.wait_for("  live-two").await;
    tmux.wait_for("exited with code 0").await;
    tmux.keys(&["Escape"]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while tmux.screen().contains("live, Esc closes") {
        assert!(std::time::Instant::now() < deadline, "{}", tmux.screen());
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_picker_switches_the_model_of_the_next_request() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "Hello there."}]}"#).await;
    tmux.launch(dir.path(), &server.url(), "").await;
    tmux.type_text("/model");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Switch the model").await;
    assert!(screen.contains("› claude-sonnet-4-5 (current)"), "{screen}");
    tmux.keys(&["Down", "Enter"]);
    tmux.wait_for("model: claude-opus-4-5").await;
    tmux.type_text("say hello");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Hello there.").await;
    assert_eq!(server.requests()[0].body["model"], "claude-opus-4-5");
}
