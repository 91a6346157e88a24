//! rein's own git runs on the repository it means, whatever `GIT_*` variables rein was started
//! with (a git hook, an editor's terminal): a worktree is made in the workspace's repository,
//! never in the one `GIT_DIR` names.

use crate::support::*;

#[tokio::test]
async fn a_worktree_is_made_in_the_workspaces_repository_whatever_git_dir_says() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let other = dir.path().join("other");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    rein_testkit::committed_repo(&ws, &[("a.txt", "one\n")]);
    rein_testkit::committed_repo(&other, &[("b.txt", "two\n")]);
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "enter_worktree", "arguments": {"name": "feature"}}]},
          {"text": "Entered."}]}"#,
    )
    .await;
    let mut cmd = rein(&ws);
    cmd.env("GIT_DIR", other.join(".git"))
        .env("GIT_WORK_TREE", &other)
        .args([
            "exec",
            "--base-url",
            &server.url(),
            "--permission-mode",
            "bypass",
            "work on a feature",
        ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let result = server.requests()[1].body.to_string();
    assert!(result.contains("Entered the worktree"), "{result}");
    let ws = std::fs::canonicalize(&ws).unwrap();
    assert!(
        ws.join(".rein/worktrees/feature/a.txt").is_file(),
        "{result}"
    );
    let listed = rein_testkit::git(&other, &["worktree", "list"]);
    assert_eq!(
        listed.lines().count(),
        1,
        "the other repository got none: {listed}"
    );
}
