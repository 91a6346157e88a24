//! The real `rein` binary in a workspace whose files are not what they seem: `AGENTS.md` a
//! FIFO, `.claude/settings.json` a link to `/dev/zero`, `.git/HEAD` a link to `/dev/zero`, the
//! user's config a 10 MB file. It starts promptly, skips each with a warning, and answers.
//! Also: a session file stored under another id is refused, and left as it is.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::*;

#[tokio::test]
async fn rein_starts_and_warns_past_a_fifo_memory_file_and_a_settings_link_to_dev_zero() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    nix::unistd::mkfifo(&ws.join("AGENTS.md"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    std::fs::create_dir_all(ws.join(".claude")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", ws.join(".claude/settings.json")).unwrap();
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", ws.join(".git/HEAD")).unwrap();
    let user_config = ws.join(".rein-test-config/rein/config.toml");
    std::fs::create_dir_all(user_config.parent().unwrap()).unwrap();
    std::fs::File::create(&user_config)
        .unwrap()
        .set_len(10 * 1024 * 1024)
        .unwrap();
    let server = mock(r#"{"turns": [{"text": "hello"}]}"#).await;

    let mut cmd = rein(ws);
    cmd.args(["exec", "--base-url", &server.url(), "hi"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let (out, hung) = tokio::task::spawn_blocking(move || {
        // A hang would hold the test forever: a safety net kills rein past a generous limit.
        let deadline = Instant::now() + rein_testkit::HANG_LIMIT;
        let mut hung = false;
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                hung = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        (child.wait_with_output().unwrap(), hung)
    })
    .await
    .unwrap();
    assert!(!hung, "rein hung on a special file");
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(text(&out.stdout).trim(), "hello");
    let d = ws.display();
    for warning in [
        format!(
            "rein: config file not read: {d}/.rein-test-config/rein/config.toml is larger than \
             1 MiB"
        ),
        format!(
            "rein: config file not read: {d}/.claude/settings.json is a character device, not a \
             regular file"
        ),
        format!("rein: memory file not read: {d}/AGENTS.md is a FIFO, not a regular file"),
        format!("rein: git branch not read: {d}/.git/HEAD is a character device"),
    ] {
        assert!(
            stderr.contains(&warning),
            "missing {warning:?} in:\n{stderr}"
        );
    }
}

#[tokio::test]
async fn resuming_a_session_file_stored_under_another_id_is_refused_and_it_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "noted"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args(["exec", "--base-url", &server.url(), "remember 4217"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let original = session_files(dir.path()).remove(0);
    let renamed = original.with_file_name("planted-id.jsonl");
    std::fs::copy(&original, &renamed).unwrap();
    let before = std::fs::read(&renamed).unwrap();

    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--resume",
        "planted-id",
        "go on",
    ]);
    let out = output(cmd).await;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("but it is stored as session planted-id of"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&renamed).unwrap(), before, "nothing lost");
    assert_eq!(session_files(dir.path()).len(), 2, "no new session started");
}
