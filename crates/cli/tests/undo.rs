//! `rein undo` on real workspaces, with and without git: what the file tools (and, in git,
//! shell commands) of headless runs changed goes back to the earlier bytes and modes, a file
//! the user changed since is kept until forced, the user's git state is untouched, the resumed
//! session tells the model, and the checkpoints go with the session.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use rein_testkit::git;

use crate::support::*;

/// A first run (Claude's tools) creates `new.txt`, edits `script.sh`, and through `bash`
/// creates `shell.txt` and appends to `kept.txt`; a second (an OpenAI model's `apply_patch`)
/// deletes `b.txt` and edits `script.sh` again; then a third run's answer.
const SCENARIO: &str = r#"{"turns": [
    {"tool_calls": [
        {"name": "write_file", "arguments": {"path": "new.txt", "content": "made by rein\n"}},
        {"name": "edit_file", "arguments": {"path": "script.sh", "old_string": "echo one", "new_string": "echo two"}},
        {"name": "bash", "arguments": {"command": "printf 'by shell\\n' > shell.txt && printf 'more\\n' >> kept.txt"}}
    ]},
    {"text": "done"},
    {"tool_calls": [
        {"name": "apply_patch", "arguments": {"patch": "*** Begin Patch\n*** Delete File: b.txt\n*** Update File: script.sh\n@@\n-echo two\n+echo three\n*** End Patch"}}
    ]},
    {"text": "done"},
    {"text": "noted"}
]}"#;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// `rein exec` of `prompt` in `ws` against `server`, every call allowed.
async fn exec_bypass(ws: &Path, server: &rein_testkit::MockServer, prompt: &str) -> (bool, String) {
    let url = server.url();
    run(
        ws,
        &[
            "exec",
            "--base-url",
            &url,
            "--permission-mode",
            "bypass",
            prompt,
        ],
    )
    .await
}

async fn run(ws: &Path, args: &[&str]) -> (bool, String) {
    let mut cmd = rein(ws);
    cmd.args(args);
    let out = output(cmd).await;
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    (out.status.success(), said)
}

/// The user's git state: status (but rein's test data folders), stash, HEAD, the index file.
fn git_state(ws: &Path) -> (String, String, String, Vec<u8>) {
    let status = git(ws, &["status", "--porcelain", "--untracked-files=all"])
        .lines()
        .filter(|l| !l.contains(".rein-test-"))
        .collect::<Vec<_>>()
        .join("\n");
    (
        status,
        git(ws, &["stash", "list"]),
        git(ws, &["rev-parse", "--symbolic-full-name", "HEAD", "HEAD"]),
        std::fs::read(ws.join(".git/index")).unwrap(),
    )
}

#[tokio::test]
async fn undo_takes_back_each_file_tool_and_keeps_what_the_user_changed() {
    undo_a_session(false).await;
}

#[tokio::test]
async fn in_git_undo_takes_back_shell_changes_too_and_leaves_the_users_git_alone() {
    if !rein_testkit::has_git("in_git_undo_takes_back_shell_changes_too") {
        return;
    }
    undo_a_session(true).await;
}

async fn undo_a_session(in_git: bool) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    std::fs::write(ws.join("script.sh"), "#!/bin/sh\necho one\n").unwrap();
    std::fs::set_permissions(ws.join("script.sh"), PermissionsExt::from_mode(0o754)).unwrap();
    std::fs::write(ws.join("b.txt"), "bee\n").unwrap();
    std::fs::write(ws.join("kept.txt"), "kept\n").unwrap();
    let user_git = in_git.then(|| {
        git(ws, &["init", "-q", "-b", "main"]);
        git(ws, &["add", "script.sh", "b.txt", "kept.txt"]);
        git(ws, &["commit", "-q", "-m", "first"]);
        // The user's own state: a stash and a staged file.
        std::fs::write(ws.join("b.txt"), "stashed\n").unwrap();
        git(ws, &["stash", "-q"]);
        std::fs::write(ws.join("staged.txt"), "staged\n").unwrap();
        git(ws, &["add", "staged.txt"]);
        git_state(ws)
    });
    let server = mock(SCENARIO).await;
    let url = server.url();
    let exec = [
        "exec",
        "--base-url",
        url.as_str(),
        "--permission-mode",
        "bypass",
    ];
    let (ok, said) = run(ws, &[&exec[..], &["change things"]].concat()).await;
    assert!(ok, "{said}");
    let openai = format!("{url}/v1");
    let patch = [
        "exec",
        "--continue",
        "--model",
        "gpt-5",
        "--base-url",
        openai.as_str(),
        "--permission-mode",
        "bypass",
        "patch things",
    ];
    let (ok, said) = run(ws, &patch).await;
    assert!(ok, "{said}");
    assert_eq!(
        std::fs::read_to_string(ws.join("new.txt")).unwrap(),
        "made by rein\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("script.sh")).unwrap(),
        "#!/bin/sh\necho three\n"
    );
    assert!(!ws.join("b.txt").exists());
    assert!(ws.join("shell.txt").exists());
    if let Some((_, stash, head, index)) = &user_git {
        // The snapshots left the user's index, stash and HEAD as they were.
        let (_, stash_now, head_now, index_now) = git_state(ws);
        assert_eq!((stash, head), (&stash_now, &head_now));
        assert!(*index == index_now, "the index changed");
    }
    // The user changes a file rein made.
    std::fs::write(ws.join("new.txt"), "the user's words\n").unwrap();

    let (ok, said) = run(ws, &["undo", "--turns", "2", "--dry-run"]).await;
    assert!(ok, "{said}");
    assert!(said.contains("turn 1: change things"), "{said}");
    assert!(said.contains("turn 2: patch things"), "{said}");
    assert!(said.contains("restore  script.sh"), "{said}");
    assert!(said.contains("recreate b.txt"), "{said}");
    assert!(said.contains("keep     new.txt: changed since"), "{said}");
    assert!(!ws.join("b.txt").exists(), "a dry run changed a file");
    if in_git {
        assert!(said.contains("delete   shell.txt"), "{said}");
        assert!(said.contains("restore  kept.txt"), "{said}");
        assert!(
            !said.contains(".rein-test-"),
            "rein's own data in the plan: {said}"
        );
    } else {
        assert!(said.contains("not in a git work tree"), "{said}");
        assert!(!said.contains("shell.txt"), "{said}");
    }

    let (ok, said) = run(ws, &["undo", "--turns", "2"]).await;
    assert!(ok, "{said}");
    assert_eq!(
        std::fs::read_to_string(ws.join("script.sh")).unwrap(),
        "#!/bin/sh\necho one\n"
    );
    assert_eq!(mode(&ws.join("script.sh")), 0o754);
    assert_eq!(std::fs::read_to_string(ws.join("b.txt")).unwrap(), "bee\n");
    assert_eq!(
        std::fs::read_to_string(ws.join("new.txt")).unwrap(),
        "the user's words\n"
    );
    assert!(
        said.contains("kept     new.txt: changed since rein wrote it"),
        "{said}"
    );
    assert!(said.contains("rein undo --force"), "{said}");

    let (ok, said) = run(ws, &["undo", "--turns", "2", "--force"]).await;
    assert!(ok, "{said}");
    assert!(said.contains("deleted  new.txt"), "{said}");
    assert!(!ws.join("new.txt").exists());
    let (ok, said) = run(ws, &["undo"]).await;
    assert!(ok && said.contains("Nothing to undo"), "{said}");
    if let Some(before) = &user_git {
        assert!(!ws.join("shell.txt").exists());
        assert_eq!(
            std::fs::read_to_string(ws.join("kept.txt")).unwrap(),
            "kept\n"
        );
        assert_eq!(git_state(ws).0, before.0);
        assert_eq!(git_state(ws).1, before.1);
    } else {
        assert_eq!(
            std::fs::read_to_string(ws.join("kept.txt")).unwrap(),
            "kept\nmore\n"
        );
    }

    // The resumed session's next request tells the model which files were put back.
    let (ok, said) = run(ws, &[&exec[..], &["--continue", "go on"]].concat()).await;
    assert!(ok, "{said}");
    let request = server.requests()[4].body.to_string();
    assert!(request.contains("The user took back changes"), "{request}");
    for file in ["script.sh", "b.txt", "new.txt"] {
        assert!(request.contains(file), "{file}: {request}");
    }

    // Removing the session removes its checkpoints.
    let checkpoints = ws.join(".rein-test-data/rein/checkpoints");
    let kept = |root: &Path| {
        std::fs::read_dir(root)
            .into_iter()
            .flatten()
            .flatten()
            .flat_map(|key| std::fs::read_dir(key.path()).unwrap().flatten())
            // The workspace's snapshot repository is not a session's folder.
            .filter(|entry| !entry.file_name().to_string_lossy().starts_with('.'))
            .count()
    };
    assert_eq!(kept(&checkpoints), 1);
    let id = session_files(ws)[0]
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let (ok, said) = run(ws, &["sessions", "--delete", &id]).await;
    assert!(ok, "{said}");
    assert_eq!(kept(&checkpoints), 0);
    if in_git {
        // The snapshots were never the user's repository's, and their private repository
        // goes with the last session that kept one.
        assert!(!git(ws, &["for-each-ref"]).contains("refs/rein/"));
        let stores: Vec<_> = std::fs::read_dir(&checkpoints)
            .unwrap()
            .flatten()
            .flat_map(|key| std::fs::read_dir(key.path()).unwrap().flatten())
            .map(|entry| entry.file_name())
            .collect();
        assert!(stores.is_empty(), "{stores:?}");
    }
}

#[tokio::test]
async fn undo_says_plainly_when_there_is_nothing_to_take_back() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, said) = run(dir.path(), &["undo"]).await;
    assert!(!ok && said.contains("no stored session"), "{said}");
    let server = mock(r#"{"turns": [{"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi > shell.txt"}}]}, {"text": "done"}]}"#).await;
    let (ok, said) = exec_bypass(dir.path(), &server, "hi").await;
    assert!(ok, "{said}");
    let (ok, said) = run(dir.path(), &["undo"]).await;
    assert!(ok, "{said}");
    assert!(
        said.contains("Nothing to undo") && said.contains("shell commands"),
        "{said}"
    );
    let (ok, said) = run(dir.path(), &["undo", "--session", "nope"]).await;
    assert!(!ok && said.contains("no session nope"), "{said}");
}

#[tokio::test]
async fn a_session_open_in_another_rein_is_not_undone_under_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "a\n"}}]}, {"text": "done"}]}"#).await;
    let (ok, said) = exec_bypass(dir.path(), &server, "write").await;
    assert!(ok, "{said}");
    // Another rein holds the session file's lock, as a running session does.
    let held = std::fs::File::open(&session_files(dir.path())[0]).unwrap();
    held.lock().unwrap();
    let (ok, said) = run(dir.path(), &["undo"]).await;
    assert!(
        !ok && said.contains("open in another rein process"),
        "{said}"
    );
    assert!(dir.path().join("a.txt").exists());
    held.unlock().unwrap();
    let (ok, said) = run(dir.path(), &["undo"]).await;
    assert!(ok && said.contains("deleted  a.txt"), "{said}");
}

/// A repository that runs a program at any git command that reads its files: a filter for
/// every file (config and attributes) and an fsmonitor, each leaving a marker in `markers`.
fn hostile_repository(ws: &Path, markers: &Path) {
    git(ws, &["init", "-q"]);
    std::fs::write(ws.join("a.txt"), "a\n").unwrap();
    let monitor = markers.parent().unwrap().join("fsmonitor.sh");
    std::fs::write(
        &monitor,
        format!("#!/bin/sh\ntouch {}/fsmonitor\n", markers.display()),
    )
    .unwrap();
    std::fs::set_permissions(&monitor, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut config = std::fs::read_to_string(ws.join(".git/config")).unwrap();
    config.push_str(&format!(
        "[filter \"x\"]\n\tclean = touch {m}/clean; cat\n\tprocess = touch {m}/process\n\
         [core]\n\tfsmonitor = {}\n",
        monitor.display(),
        m = markers.display()
    ));
    std::fs::write(ws.join(".git/config"), config).unwrap();
    std::fs::write(ws.join(".gitattributes"), "* filter=x\n").unwrap();
}

#[tokio::test]
async fn a_hostile_repository_runs_nothing_at_a_plan_mode_prompt_nor_at_undo() {
    if !rein_testkit::has_git("a_hostile_repository_runs_nothing") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let markers = dir.path().join("markers");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&markers).unwrap();
    hostile_repository(&ws, &markers);
    // A text-only answer in plan mode, in a workspace never trusted: the start-of-prompt
    // snapshot is all rein does with the tree.
    let server = mock(r#"{"turns": [{"text": "just words"}]}"#).await;
    let url = server.url();
    let (ok, said) = run(
        &ws,
        &[
            "exec",
            "--base-url",
            &url,
            "--permission-mode",
            "plan",
            "explain",
        ],
    )
    .await;
    assert!(ok, "{said}");
    // A command that changes a file, then an undo.
    let server = mock(r#"{"turns": [{"tool_calls": [{"name": "bash", "arguments": {"command": "echo changed > a.txt"}}]}, {"text": "done"}]}"#).await;
    let (ok, said) = exec_bypass(&ws, &server, "change it").await;
    assert!(ok, "{said}");
    let (ok, said) = run(&ws, &["undo"]).await;
    assert!(ok, "{said}");
    assert_eq!(
        std::fs::read_to_string(ws.join("a.txt")).unwrap(),
        "a\n",
        "{said}"
    );
    let ran: Vec<_> = std::fs::read_dir(&markers)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(ran.is_empty(), "the repository's programs ran: {ran:?}");
}

#[tokio::test]
async fn undo_attributes_files_to_their_turns_skips_unchanged_turns_and_finds_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    let server = mock(
        r#"{"turns": [
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "a\n"}}]},
        {"text": "wrote a"},
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "b.txt", "content": "b\n"}}]},
        {"text": "wrote b"},
        {"tool_calls": [{"name": "edit_file", "arguments": {"path": "a.txt", "old_string": "not there", "new_string": "x"}}]},
        {"text": "could not"},
        {"text": "just chatting"}
    ]}"#,
    )
    .await;
    let url = server.url();
    for (prompt, more) in [("write a", false), ("write b", true), ("edit a", true)] {
        let mut args = vec!["exec", "--base-url", &url, "--permission-mode", "bypass"];
        if more {
            args.push("--continue");
        }
        args.push(prompt);
        let (ok, said) = run(ws, &args).await;
        assert!(ok, "{said}");
    }
    // A later session that changed nothing.
    let (ok, said) = exec_bypass(ws, &server, "hello").await;
    assert!(ok, "{said}");

    let (ok, said) = run(ws, &["undo", "--turns", "2", "--dry-run"]).await;
    assert!(ok, "{said}");
    assert!(
        said.contains("changed no file; undoing in the latest one that did"),
        "{said}"
    );
    // The failed edit's turn (3) changed nothing: turns 1 and 2, each file under its own.
    let turn1 = said.find("turn 1: write a").expect(&said);
    let turn2 = said.find("turn 2: write b").expect(&said);
    let a = said.find("changed a.txt").expect(&said);
    let b = said.find("changed b.txt").expect(&said);
    assert!(turn1 < a && a < turn2 && turn2 < b, "{said}");
    assert!(!said.contains("turn 3"), "{said}");
    let (ok, said) = run(ws, &["undo"]).await;
    assert!(ok && said.contains("deleted  b.txt"), "{said}");
    assert!(ws.join("a.txt").exists() && !ws.join("b.txt").exists());
}
