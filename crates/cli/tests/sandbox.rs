//! The OS sandbox through `rein exec`: `auto` mode runs the model's commands without asking,
//! confined; what the sandbox refuses reaches the model as such; leaving it asks.

use std::net::TcpListener;

use crate::support::*;

/// The sandbox rein builds here: its native helper (else bubblewrap).
fn detect() -> Result<rein_sandbox::Sandbox, rein_sandbox::Unavailable> {
    let rein = std::path::Path::new(env!("CARGO_BIN_EXE_rein"));
    rein_sandbox::Sandbox::detect_with_helper(rein_sandbox::Settings::default(), rein)
}

/// Whether rein can sandbox here (else the test is skipped visibly, or fails under CI=true).
pub(crate) fn sandbox_ready(test: &str) -> bool {
    match detect() {
        Ok(_) => true,
        Err(why) => {
            rein_testkit::skip(test, &why.to_string());
            false
        }
    }
}

#[tokio::test]
async fn auto_mode_confines_commands_and_tells_the_model_what_the_sandbox_refused() {
    if !sandbox_ready("auto_mode_confines_commands") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let scenario = format!(
        r#"{{"turns": [
            {{"tool_calls": [{{"name": "bash", "arguments": {{"command": "touch ../outside"}}}}]}},
            {{"tool_calls": [{{"name": "bash", "arguments": {{"command": "curl -sS --max-time 5 http://127.0.0.1:{port}/"}}}}]}},
            {{"tool_calls": [{{"name": "bash", "arguments": {{"command": "echo made > inside.txt"}}}}]}},
            {{"text": "done"}}
        ]}}"#
    );
    let server = mock(&scenario).await;
    let out = output(exec_in(&ws, &server, "auto", "try things")).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Neither escape took effect; the command inside the workspace did, without asking.
    assert!(!root.path().join("outside").exists());
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "curl reached the server");
    assert_eq!(
        std::fs::read_to_string(ws.join("inside.txt")).unwrap(),
        "made\n"
    );
    for (turn, what) in [(1, "touch"), (2, "curl")] {
        // The newest message: this turn's tool result alone.
        let sent = last_message(&server, turn);
        assert!(
            sent.contains("workspace-write sandbox"),
            "the {what} result does not say the sandbox refused it: {sent}"
        );
    }
}

#[tokio::test]
async fn leaving_the_sandbox_asks_with_the_models_reason() {
    if !sandbox_ready("leaving_the_sandbox_asks") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi > escaped.txt", "unsandboxed": "needs the network to fetch crates"}}]},
            {"text": "done"}
        ]}"#,
    )
    .await;
    let out = output(exec_in(dir.path(), &server, "auto", "go")).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    // A headless run cannot ask: refused, with the reason the policy gave.
    assert!(!dir.path().join("escaped.txt").exists());
    let sent = last_message(&server, 1);
    assert!(sent.contains("outside the sandbox"), "{sent}");
    assert!(sent.contains("needs the network to fetch crates"), "{sent}");
}

#[tokio::test]
async fn auto_refuses_to_start_without_a_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "never"}]}"#).await;
    let mut cmd = rein(dir.path());
    // No native helper, and no bubblewrap on this PATH.
    cmd.env("REIN_SANDBOX_HELPER", "off")
        .env("PATH", dir.path().join("empty-bin"))
        .args([
            "exec",
            "--base-url",
            &server.url(),
            "--permission-mode",
            "auto",
        ])
        .arg("go");
    let out = output(cmd).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let said = text(&out.stderr);
    assert!(
        said.contains("bubblewrap") && said.contains("accept-edits"),
        "{said}"
    );
    assert!(server.requests().is_empty(), "a request went out");
}

#[tokio::test]
async fn sandbox_check_says_what_this_machine_supports() {
    let dir = tempfile::tempdir().unwrap();
    let out = output({
        let mut cmd = rein(dir.path());
        cmd.args(["sandbox", "check"]);
        cmd
    })
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    let available = detect().ok();
    if let Some(sandbox) = available {
        assert!(said.contains("sandbox: available"), "{said}");
        if let rein_sandbox::Launcher::Helper(_) = sandbox.launcher() {
            assert!(said.contains("native helper"), "{said}");
        }
        assert!(said.contains("network: off"), "{said}");
        // The workspace has no `.git`: an empty read-only one is bound there.
        assert!(
            said.contains("git, read-only (made empty first when missing): .git"),
            "{said}"
        );
        assert!(!dir.path().join(".git").exists(), "a check creates nothing");
    } else {
        assert!(said.contains("sandbox: unavailable"), "{said}");
    }
    assert!(said.contains("configured policy: off"), "{said}");
}

/// Run as root, rein's helper keeps every capability in its namespaces without trying; run
/// as anyone else it must keep the ones it needs across `exec` itself. CI runs as root, so
/// this runs rein as `nobody` (skipped visibly when the test itself is not root).
#[tokio::test]
async fn a_user_other_than_root_gets_the_same_sandbox() {
    use std::os::unix::process::CommandExt;
    const NOBODY: u32 = 65534;
    if !sandbox_ready("a_user_other_than_root_gets_the_same_sandbox") {
        return;
    }
    if !nix::unistd::geteuid().is_root() {
        rein_testkit::skip(
            "a_user_other_than_root_gets_the_same_sandbox",
            "not root: cannot run rein as another user (the other tests run as this one)",
        );
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    for dir in [root.path(), &ws] {
        std::os::unix::fs::chown(dir, Some(NOBODY), Some(NOBODY)).unwrap();
    }
    let mut check = rein(&ws);
    check.args(["sandbox", "check"]).uid(NOBODY).gid(NOBODY);
    let said = text(&output(check).await.stdout);
    assert!(said.contains("sandbox: available (native helper"), "{said}");
    let server = mock(
        r#"{"turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "touch ../outside"}}]},
            {"tool_calls": [{"name": "bash", "arguments": {"command": "echo made > inside.txt; grep CapEff /proc/self/status > caps.txt"}}]},
            {"text": "done"}
        ]}"#,
    )
    .await;
    let mut cmd = exec_in(&ws, &server, "auto", "try things");
    cmd.uid(NOBODY).gid(NOBODY);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!root.path().join("outside").exists());
    assert_eq!(
        std::fs::read_to_string(ws.join("inside.txt")).unwrap(),
        "made\n"
    );
    let caps = std::fs::read_to_string(ws.join("caps.txt")).unwrap();
    assert!(caps.contains("0000000000000000"), "{caps}");
    let sent = last_message(&server, 1);
    assert!(sent.contains("workspace-write sandbox"), "{sent}");
}

/// A timeout kills the call's processes even when one left the process group and cleared its
/// environment (the two ways rein finds them unconfined): in the sandbox the call's mount
/// namespace finds it.
#[tokio::test]
async fn a_timeout_kills_what_the_command_hid_from_rein() {
    if !sandbox_ready("a_timeout_kills_what_the_command_hid_from_rein") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "env -i setsid sh -c 'sleep 1; echo late > late.txt' >/dev/null 2>&1 < /dev/null & sleep 30", "timeout_ms": 300}}]},
            {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 1.5; test -e late.txt && echo LATE-WRITTEN || echo nothing-late"}}]},
            {"text": "done"}
        ]}"#,
    )
    .await;
    let out = output(exec_in(dir.path(), &server, "auto", "go")).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let first = last_message(&server, 1);
    assert!(
        first.contains("timed out") || first.contains("killed"),
        "{first}"
    );
    let second = last_message(&server, 2);
    assert!(second.contains("nothing-late"), "{second}");
    assert!(!dir.path().join("late.txt").exists());
}

#[tokio::test]
async fn an_added_folder_is_read_only_to_sandboxed_commands_and_its_secrets_are_hidden() {
    if !sandbox_ready("an_added_folder_is_read_only_to_sandboxed_commands") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    let other = root.path().join("other");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "shared notes\n").unwrap();
    std::fs::write(other.join(".env"), "KEY=hunter2\n").unwrap();
    // Names the policy cannot see in the line: the sandbox must hide the secret itself.
    let command = "cd ../other && for f in $(ls -A); do cat \"$f\"; done; echo x > w.txt";
    let scenario = serde_json::json!({"turns": [
        {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]},
        {"text": "done"}
    ]})
    .to_string();
    let server = mock(&scenario).await;
    let mut cmd = exec_in(&ws, &server, "auto", "look around");
    cmd.args(["--add-dir", "../other"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let sent = last_message(&server, 1);
    assert!(sent.contains("shared notes"), "{sent}");
    assert!(
        !sent.contains("hunter2"),
        "the secret reached the model: {sent}"
    );
    assert!(sent.contains("Read-only file system"), "{sent}");
    assert!(!other.join("w.txt").exists());
}

#[tokio::test]
async fn an_interactive_session_runs_in_reins_own_sandbox_helper() {
    if !sandbox_ready("an_interactive_session_runs_in_reins_own_sandbox_helper") {
        return;
    }
    // rein's helper is rein itself (`/proc/self/exe`), which `setsid` must not take for
    // itself; a proven read-only line runs in the read-only sandbox, another in `auto`'s.
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let scenario = format!(
        r#"{{"turns": [
            {{"tool_calls": [{{"name": "bash", "arguments":
                {{"command": "echo first; sleep 0.2; echo second", "tty": true, "yield_ms": 5000}}}}]}},
            {{"tool_calls": [{{"name": "bash", "arguments":
                {{"command": "echo in > in.txt; echo out > {}/out.txt; [ -t 0 ] && [ -t 1 ] && echo on-a-terminal", "tty": true, "yield_ms": 5000}}}}]}},
            {{"text": "done"}}
        ]}}"#,
        root.path().display()
    );
    let server = mock(&scenario).await;
    let out = output(exec_in(&ws, &server, "auto", "try a terminal")).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let first = last_message(&server, 1);
    assert!(
        first.contains("first") && first.contains("second") && first.contains("exit code 0"),
        "{first}"
    );
    let second = last_message(&server, 2);
    assert!(second.contains("on-a-terminal"), "{second}");
    assert!(ws.join("in.txt").exists(), "{second}");
    assert!(!root.path().join("out.txt").exists(), "{second}");
}
