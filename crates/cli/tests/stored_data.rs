//! What rein stores: private whatever the umask, narrowed when an older store was not,
//! removed when asked or when too old, and free of the provider key.
#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::support::*;

/// Every folder and file under `root` with its permission bits.
fn modes(root: &Path) -> Vec<(PathBuf, u32, bool)> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(path) = stack.pop() {
        let meta = std::fs::symlink_metadata(&path).unwrap();
        found.push((
            path.clone(),
            meta.permissions().mode() & 0o777,
            meta.is_dir(),
        ));
        if meta.is_dir() {
            for entry in std::fs::read_dir(&path).unwrap() {
                stack.push(entry.unwrap().path());
            }
        }
    }
    found
}

/// `rein` with `args`, started by a shell that first sets `umask 0000` (same environment as
/// [`rein`]).
fn rein_with_umask(workspace: &Path, args: &[&str]) -> std::process::Command {
    let direct = rein(workspace);
    let mut shell = std::process::Command::new("sh");
    for (key, value) in direct.get_envs() {
        match value {
            Some(value) => shell.env(key, value),
            None => shell.env_remove(key),
        };
    }
    shell
        .current_dir(workspace)
        .args(["-c", "umask 0000; exec \"$@\"", "sh"])
        .arg(direct.get_program())
        .args(args);
    shell
}

#[tokio::test]
async fn everything_stored_is_private_under_a_permissive_umask_and_holds_no_key() {
    let dir = tempfile::tempdir().unwrap();
    let key = "sk-gw-private-0123456789abcdef";
    // A key in a local file the model reads through a command, with output long enough to be
    // saved in full.
    std::fs::write(dir.path().join("settings.txt"), format!("token={key}\n")).unwrap();
    let server = mock(
        r#"{"turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "cat settings.txt; seq 1 20000; cat settings.txt"}}]},
            {"text": "done"}
        ]}"#,
    )
    .await;
    let url = server.url();
    let mut cmd = rein_with_umask(
        dir.path(),
        &[
            "exec",
            "--base-url",
            &url,
            "--api-key-env",
            "MY_GATEWAY_KEY",
            "--permission-mode",
            "bypass",
            "go",
        ],
    );
    cmd.env("MY_GATEWAY_KEY", key);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let trust = output(rein_with_umask(dir.path(), &["trust"])).await;
    assert!(trust.status.success(), "{}", text(&trust.stderr));

    let data = dir.path().join(".rein-test-data/rein");
    let stored = modes(&data);
    let kinds = |needle: &str| {
        stored
            .iter()
            .any(|(p, _, _)| p.to_string_lossy().contains(needle))
    };
    assert!(
        kinds("sessions") && kinds("outputs") && kinds("trust.json"),
        "{stored:?}"
    );
    for (path, mode, is_dir) in &stored {
        let wanted = if *is_dir { 0o700 } else { 0o600 };
        assert_eq!(*mode, wanted, "{} is {mode:o}", path.display());
        if !is_dir {
            let bytes = std::fs::read(path).unwrap();
            let holds = bytes.windows(key.len()).any(|w| w == key.as_bytes());
            assert!(!holds, "{} holds the key", path.display());
        }
    }
    // The model's next request holds no copy either, but says what was there.
    let second = server.requests()[1].body.to_string();
    assert!(!second.contains(key), "the key was sent to the model");
    assert!(second.contains("[redacted: $MY_GATEWAY_KEY]"), "{second}");
    // The workspace's own files keep their modes.
    let mode = std::fs::metadata(dir.path().join("settings.txt"))
        .unwrap()
        .permissions()
        .mode();
    assert_ne!(mode & 0o077, 0);
}

#[tokio::test]
async fn a_store_readable_by_others_is_narrowed_once_with_a_notice() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join(".rein-test-data/rein/sessions/old");
    std::fs::create_dir_all(&sessions).unwrap();
    let old = sessions.join("s.jsonl");
    std::fs::write(&old, "{}\n").unwrap();
    for path in [dir.path().join(".rein-test-data/rein"), sessions.clone()] {
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o644)).unwrap();
    let server = mock(r#"{"turns": [{"text": "hi"}, {"text": "hi"}]}"#).await;
    let run = || {
        let mut cmd = rein(dir.path());
        cmd.args(["exec", "--base-url", &server.url(), "hello"]);
        cmd
    };
    let first = output(run()).await;
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert!(
        text(&first.stderr).contains("readable by other users; narrowed"),
        "{}",
        text(&first.stderr)
    );
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!((mode(&sessions), mode(&old)), (0o700, 0o600));
    let second = output(run()).await;
    assert!(
        !text(&second.stderr).contains("narrowed"),
        "{}",
        text(&second.stderr)
    );
}

#[tokio::test]
async fn sessions_can_be_pruned_by_age_and_deleted_by_id() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "a"}, {"text": "b"}, {"text": "c"}]}"#).await;
    for _ in 0..3 {
        let mut cmd = rein(dir.path());
        cmd.args(["exec", "--base-url", &server.url(), "hello"]);
        assert!(output(cmd).await.status.success());
    }
    let mut files = session_files(dir.path());
    files.sort();
    assert_eq!(files.len(), 3);
    let id = |p: &PathBuf| p.file_stem().unwrap().to_string_lossy().into_owned();
    let now = std::time::SystemTime::now();
    let day = std::time::Duration::from_secs(86_400);
    for (file, days) in files.iter().zip([0u32, 12, 45]) {
        std::fs::File::options()
            .write(true)
            .open(file)
            .unwrap()
            .set_modified(now - day * days)
            .unwrap();
    }
    let prune = output({
        let mut cmd = rein(dir.path());
        cmd.args(["sessions", "--prune", "--older-than", "10"]);
        cmd
    })
    .await;
    let said = text(&prune.stdout);
    assert!(prune.status.success(), "{}", text(&prune.stderr));
    assert!(
        said.contains(&id(&files[1])) && said.contains(&id(&files[2])),
        "{said}"
    );
    assert!(!said.contains(&id(&files[0])), "{said}");
    assert!(said.contains("Removed 2 sessions"), "{said}");
    assert_eq!(session_files(dir.path()), [files[0].clone()]);

    let delete = output({
        let mut cmd = rein(dir.path());
        cmd.args(["sessions", "--delete", &id(&files[0])]);
        cmd
    })
    .await;
    assert!(delete.status.success(), "{}", text(&delete.stderr));
    assert!(session_files(dir.path()).is_empty());
    let again = output({
        let mut cmd = rein(dir.path());
        cmd.args(["sessions", "--delete", &id(&files[0])]);
        cmd
    })
    .await;
    assert_eq!(again.status.code(), Some(2));
    assert!(
        text(&again.stderr).contains("no session"),
        "{}",
        text(&again.stderr)
    );
}
