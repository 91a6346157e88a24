//! The interactive UI in a real terminal: tmux runs `rein` against the mock server,
//! `send-keys` types a prompt, answers a permission prompt and presses Ctrl-C during a long
//! tool call, and `capture-pane` shows the screen. Without tmux the test fails under
//! `CI=true` and is skipped with a message elsewhere (`scripts/test-deps` installs it).
//! Also: plain line output when stdout is not a terminal.

use std::path::Path;

use crate::support::*;
use crate::tmux::{Tmux, launcher};

/// The processes whose working directory is `dir` (this test's own workspace, so another
/// run's processes never count) and whose command line contains `text`.
fn running_in(dir: &Path, text: &str) -> Vec<String> {
    let dir = std::fs::canonicalize(dir).unwrap();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let proc_dir = entry.path();
        if std::fs::read_link(proc_dir.join("cwd")).ok().as_deref() != Some(dir.as_path()) {
            continue;
        }
        let cmdline = std::fs::read(proc_dir.join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(text) {
            found.push(format!(
                "{}: {cmdline}",
                entry.file_name().to_string_lossy()
            ));
        }
    }
    found
}

const SCENARIO: &str = r#"{"turns": [
  {"text": "I'll create the file first.", "tool_calls": [{"name": "bash", "arguments": {"command": "touch created.txt"}}]},
  {"text": "Now the long part.", "tool_calls": [{"name": "bash", "arguments": {"command": "echo started; sleep 37"}}]},
  {"text": "never reached"}
]}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_in_a_real_terminal_asks_runs_and_cancels() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = mock(SCENARIO).await;
    tmux.launch(
        dir.path(),
        &server.url(),
        "--allowed-tools 'Bash(echo *) Bash(sleep *)'",
    )
    .await;

    tmux.type_text("create the file then wait");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Allow this bash command?").await;
    // The command is said once: in the question, not also on a line above it.
    assert_eq!(screen.matches("$ touch created.txt").count(), 1, "{screen}");
    assert!(!screen.contains("bash touch created.txt"), "{screen}");
    assert!(screen.contains("› create the file then wait"), "{screen}");
    assert!(screen.contains("asked by mode default"), "{screen}");
    assert!(
        screen.contains("a yes, and allow Bash(touch created.txt) until rein exits"),
        "{screen}"
    );
    assert!(!dir.path().join("created.txt").exists());

    tmux.keys(&["y"]);
    // The long call runs: its live line shows the elapsed time and its output so far.
    let screen = tmux.wait_for("(2s)").await;
    assert!(dir.path().join("created.txt").exists(), "{screen}");
    assert!(screen.contains("bash echo started; sleep 37"), "{screen}");
    assert!(screen.contains("│ started"), "{screen}");
    assert!(screen.contains("● bash touch created.txt"), "{screen}");

    tmux.keys(&["C-c"]);
    tmux.wait_for("Interrupted. Tell the model").await;
    // Idle again.
    tmux.wait_for("/help for commands").await;
    let sleeping = running_in(dir.path(), "sleep 37");
    assert!(
        sleeping.is_empty(),
        "the tool's process was not killed: {sleeping:?}"
    );

    tmux.type_text("/quit");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("rein exited with 0").await;
    assert!(
        screen.contains("continue it with `rein --resume"),
        "{screen}"
    );
    assert_eq!(server.requests().len(), 2, "no request after the cancel");
    // Under umask 0000 too, the prompt history and the session are the user's alone.
    let data = dir.path().join(".rein-test-data/rein");
    assert!(data.join("history").is_dir(), "no prompt history");
    let mut stack = vec![data];
    while let Some(path) = stack.pop() {
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::symlink_metadata(&path).unwrap();
        let mode = meta.permissions().mode() & 0o777;
        let wanted = if meta.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode, wanted, "{} is {mode:o}", path.display());
        if meta.is_dir() {
            stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_z_suspends_to_the_shell_and_fg_comes_back() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "Back and answering."}]}"#).await;
    let script = launcher(dir.path(), &server.url(), "");
    tmux.open("bash --norc --noprofile -i");
    tmux.type_text(&format!("sh '{}'", script.display()));
    tmux.keys(&["Enter"]);
    tmux.wait_for("/help for commands").await;
    tmux.type_text("half typed");

    tmux.keys(&["C-z"]);
    let screen = tmux.wait_for("Stopped").await;
    assert!(
        !screen.contains("/help for commands"),
        "the UI is gone:\n{screen}"
    );

    tmux.type_text("fg");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("/help for commands").await;
    assert!(
        screen.contains("› half typed"),
        "the input survived:\n{screen}"
    );

    tmux.type_text(" and sent");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Back and answering.").await;
    tmux.type_text("/quit");
    tmux.keys(&["Enter"]);
    tmux.wait_for("rein exited with 0").await;
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resizing_the_terminal_keeps_the_transcript_and_one_live_area() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [{"text": "中文 answer 🎉 that is long enough to wrap at sixty columns, really it is."}, {"text": "Second answer."}]}"#,
    )
    .await;
    tmux.launch(dir.path(), &server.url(), "").await;
    tmux.type_text("hello");
    tmux.keys(&["Enter"]);
    tmux.wait_for("really it is.").await;

    tmux.run(&["resize-window", "-t", "ui", "-x", "60"]);
    tmux.wait_for("claude-sonn…").await;
    tmux.type_text("again");
    tmux.keys(&["Enter"]);
    tmux.wait_for("● Second answer.").await;
    tmux.run(&["resize-window", "-t", "ui", "-x", "100"]);
    tmux.wait_for("claude-sonnet-4-5 ·").await;
    // The header names the model at once; the live area is drawn again a moment later.
    until("the redraw", || {
        tmux.screen().lines().any(|r| r.trim_end() == "›")
    })
    .await;
    let screen = tmux.screen();
    let rows: Vec<&str> = screen.lines().map(str::trim_end).collect();
    assert!(screen.contains("● 中文 answer 🎉 that is long"), "{screen}");
    assert!(screen.contains("› again"), "{screen}");
    assert_eq!(
        rows.iter().filter(|r| **r == "›").count(),
        1,
        "one input box:\n{screen}"
    );
    let rules = rows
        .iter()
        .filter(|r| !r.is_empty() && r.chars().all(|c| c == '─'))
        .count();
    assert_eq!(rules, 2, "only the input box's rules:\n{screen}");
    tmux.type_text("/quit");
    tmux.keys(&["Enter"]);
    tmux.wait_for("rein exited with 0").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shrinking_a_full_screen_keeps_every_line_in_the_scrollback() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let answer: Vec<String> = (1..=40).map(|n| format!("answer line {n:02}.")).collect();
    let scenario = serde_json::json!({"turns": [{"text": answer.join("\n\n")}]});
    let server = mock(&scenario.to_string()).await;
    tmux.launch(dir.path(), &server.url(), "").await;
    tmux.type_text("fill the screen");
    tmux.keys(&["Enter"]);
    tmux.wait_for("answer line 40.").await;
    tmux.wait_idle().await;
    for height in ["17", "9", "30"] {
        tmux.run(&["resize-window", "-t", "ui", "-y", height]);
        tmux.wait_for("claude-sonnet-4-5 ·").await;
        // Whatever redraw the resize causes has happened.
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let screen = tmux.screen();
        // The scrollback and the screen together hold every line, once, in order.
        let kept: Vec<&str> = screen
            .lines()
            .map(str::trim)
            .filter(|row| row.starts_with("answer line") || row.starts_with("● answer line"))
            .map(|row| row.trim_start_matches("● "))
            .collect();
        assert_eq!(kept, answer, "after resizing to {height} rows:\n{screen}");
        let rows: Vec<&str> = screen.lines().map(str::trim_end).collect();
        assert_eq!(rows.iter().filter(|r| **r == "›").count(), 1, "{screen}");
    }
    tmux.type_text("/quit");
    tmux.keys(&["Enter"]);
    tmux.wait_for("rein exited with 0").await;
}

#[tokio::test]
async fn without_a_terminal_the_ui_prints_plain_lines() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(DEMO).await;
    std::fs::write(dir.path().join("hello.sh"), "echo hello world\n").unwrap();
    let mut cmd = rein(dir.path());
    cmd.args([
        "--base-url",
        &server.url(),
        "--allowed-tools",
        "Bash(sed *) Bash(bash hello.sh)",
        "make hello.sh greet rein",
    ])
    .env("ANTHROPIC_API_KEY", "test")
    .stdin(std::process::Stdio::null());
    let out = output(cmd).await;
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("› make hello.sh greet rein"), "{stdout}");
    assert!(
        stdout.contains("● bash sed -i 's/world/rein/' hello.sh"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Done: hello.sh now prints \"hello rein\"."),
        "{stdout}"
    );
    assert!(
        !stdout.contains('\u{1b}'),
        "escape codes in plain output: {stdout:?}"
    );
}

#[tokio::test]
async fn slash_commands_resume_and_clear_sessions_in_line_mode() {
    let dir = tempfile::tempdir().unwrap();
    let first = mock(r#"{"turns": [{"text": "noted"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &first.url(),
        "remember the number 4217",
    ])
    .env("ANTHROPIC_API_KEY", "test");
    assert!(output(cmd).await.status.success());
    let files = session_files(dir.path());
    let id = files[0].file_stem().unwrap().to_string_lossy().into_owned();

    let server = mock(r#"{"turns": [{"text": "It was 4217."}, {"text": "fresh answer"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args(["--base-url", &server.url()])
        .env("ANTHROPIC_API_KEY", "test")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let script = format!(
        "/model claude-opus-4-5\n/permissions plan\n/resume {id}\nwhich number?\n/cost\n\
         /clear\nfresh start\n/permissions\n/quit\n"
    );
    let out = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut child = cmd.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(script.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    assert!(stdout.contains(&format!("── session {id} ──")), "{stdout}");
    assert!(stdout.contains("● It was 4217."), "{stdout}");
    assert!(stdout.contains("Session cost:"), "{stdout}");
    let (_, after_clear) = stdout.split_once("── new session ──").expect("cleared");
    assert!(
        after_clear.contains("Permission mode: plan"),
        "the mode chosen stays through /clear: {after_clear}"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        requests[0]
            .body
            .to_string()
            .contains("remember the number 4217")
    );
    assert!(
        !requests[1].body.to_string().contains("4217"),
        "a new session starts empty"
    );
    for request in &requests {
        assert_eq!(
            request.body["model"], "claude-opus-4-5",
            "the model chosen with /model stays through /resume and /clear"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_workspace_is_trusted_by_answering_the_question() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".rein")).unwrap();
    std::fs::write(
        dir.path().join(".rein/config.toml"),
        "[[hooks.SessionStart]]\nhooks = [{ type = \"command\", command = \"touch RAN\" }]\n",
    )
    .unwrap();
    let server = mock(r#"{"turns": [{"text": "hello there"}]}"#).await;
    let script = launcher(dir.path(), &server.url(), "");
    tmux.open(&format!("sh '{}'", script.display()));
    let screen = tmux.wait_for("Trust them?").await;
    assert!(screen.contains("SessionStart hook: touch RAN"), "{screen}");
    tmux.type_text("y");
    tmux.keys(&["Enter"]);
    tmux.wait_for("/help for commands").await;
    tmux.type_text("hi");
    tmux.keys(&["Enter"]);
    tmux.wait_for("hello there").await;
    assert!(
        dir.path().join("RAN").exists(),
        "the trusted hook did not run"
    );
    let store = dir.path().join(".rein-test-data/rein/trust.json");
    assert!(store.exists(), "the answer was not stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_home_folder_workspace_asks_before_starting() {
    let Some(tmux) = Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let home = std::fs::canonicalize(dir.path()).unwrap();
    let server = mock(r#"{"turns": [{"text": "hello there"}]}"#).await;
    let script = launcher(&home, &server.url(), "");
    let body = std::fs::read_to_string(&script).unwrap();
    let body = body.replace("cd '", &format!("export HOME='{}'\ncd '", home.display()));
    std::fs::write(&script, body).unwrap();
    tmux.open(&format!("sh '{}'", script.display()));
    let screen = tmux.wait_for("Work in the home folder anyway? [y/N]").await;
    assert!(
        screen.contains("the workspace is your home folder"),
        "{screen}"
    );
    tmux.type_text("n");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("rein exited with").await;
    assert!(screen.contains("not started"), "{screen}");
    assert!(!screen.contains("rein exited with 0"), "{screen}");
    assert!(server.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_and_sighup_end_the_ui_like_quit_and_kill_the_running_command() {
    for (signal, status) in [
        (nix::sys::signal::Signal::SIGTERM, 143),
        (nix::sys::signal::Signal::SIGHUP, 129),
    ] {
        // A terminal of its own for each run.
        let Some(tmux) = Tmux::start() else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let server = mock(
            r#"{"turns": [{"tool_calls": [{"name": "bash", "arguments": {"command": "echo started; sleep 43"}}]}, {"text": "never"}]}"#,
        )
        .await;
        let script = launcher(dir.path(), &server.url(), "--permission-mode bypass");
        tmux.open(&format!("sh '{}'", script.display()));
        tmux.wait_for("/help for commands").await;
        tmux.type_text("run the long thing");
        tmux.keys(&["Enter"]);
        tmux.wait_for("│ started").await;
        let rein = running_in(dir.path(), env!("CARGO_BIN_EXE_rein"));
        let pid: i32 = rein
            .iter()
            .find(|p| !p.contains("sh "))
            .and_then(|p| p.split(':').next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("rein not found: {rein:?}"));
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), signal).unwrap();
        tmux.wait_for(&format!("rein exited with {status}")).await;
        let sleeping = running_in(dir.path(), "sleep 43");
        assert!(
            sleeping.is_empty(),
            "{signal}: the command outlived rein: {sleeping:?}"
        );
        let files = session_files(dir.path());
        assert_eq!(files.len(), 1, "{signal}");
        let saved = std::fs::read_to_string(&files[0]).unwrap();
        assert!(saved.contains("interrupted"), "{signal}: {saved}");
    }
}

#[tokio::test]
async fn model_switching_protocol_while_keeping_the_base_url_warns() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "still here"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args(["--base-url", &server.url()])
        .env("ANTHROPIC_API_KEY", "test")
        .env("OPENAI_API_KEY", "test")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let script = "/model claude-opus-4-5\n/model gpt-5\n/quit\n";
    let out = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut child = cmd.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(script.as_bytes()).unwrap();
        drop(stdin);
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    let warnings: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("was given for anthropic"))
        .collect();
    assert_eq!(
        warnings.len(),
        1,
        "only the switch of protocol warns:\n{stdout}"
    );
    assert!(warnings[0].contains("`gpt-5` → openai"), "{stdout}");
    assert!(warnings[0].contains(&server.url()), "{stdout}");
}

#[tokio::test]
async fn model_switch_notice_is_one_line_naming_the_provider_the_base_url_was_given_for() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "still here"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args(["--base-url", &server.url()])
        .env("ANTHROPIC_API_KEY", "test")
        .env("OPENAI_API_KEY", "test")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    // The base URL was given for the run's provider (anthropic): going to gpt-5 leaves it,
    // coming back to a Claude model returns to it, which needs no notice.
    let script = "/model gpt-5\n/model claude-opus-4-5\n/quit\n";
    let out = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut child = cmd.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(script.as_bytes()).unwrap();
        drop(stdin);
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    let notices: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("guessed from the name, but the base URL"))
        .collect();
    assert_eq!(notices.len(), 1, "one notice, for gpt-5:\n{stdout}");
    assert!(notices[0].contains("`gpt-5` → openai"), "{stdout}");
    assert!(notices[0].contains("was given for anthropic"), "{stdout}");
    let notice = notices[0].trim();
    assert!(!notice.contains("  "), "no runs of spaces: {notice:?}");
}
