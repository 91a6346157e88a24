//! Agents in worktrees: an isolated subagent's edits stay out of the main tree and land on
//! its branch; an unchanged worktree is gone afterwards.

use std::path::Path;

use rein_llm::ProviderKind;
use rein_policy::PermissionMode;
use rein_protocol::RunOutcome;
use serde_json::json;

use crate::subagents::{parent, run_all};
use crate::support::*;

fn git(dir: &Path, args: &[&str]) -> String {
    rein_testkit::git(dir, args).trim().to_string()
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    rein_testkit::committed_repo(dir.path(), &[("a.txt", "one\n")]);
    dir
}

fn isolated_task() -> serde_json::Value {
    json!({"tool_calls": [{"name": "task", "arguments":
        {"description": "edit a", "prompt": "Change a.txt.", "isolation": "worktree"}}]})
}

#[tokio::test]
async fn an_isolated_subagents_edits_stay_on_its_branch() {
    let repo = repo();
    let turns = json!({"turns": [
        isolated_task(),
        {"when": "Change a.txt.", "when_last": "Change a.txt.", "tool_calls": [
            {"name": "write_file", "arguments": {"path": "a.txt", "content": "two\n"}}]},
        {"when": "Change a.txt.", "when_last": "a.txt", "text": "Changed it."},
        {"text": "Done."}
    ]});
    let server = mock(&turns.to_string()).await;
    let mut agent = parent(
        ProviderKind::Anthropic,
        &server,
        repo.path(),
        PermissionMode::Bypass,
    );
    let (summary, _) = run_all(&mut agent, "Have it changed apart.").await;
    assert_eq!(
        summary.outcome,
        RunOutcome::Completed,
        "{:?}",
        summary.error
    );
    assert_eq!(
        std::fs::read_to_string(repo.path().join("a.txt")).unwrap(),
        "one\n"
    );
    assert_eq!(git(repo.path(), &["status", "--porcelain"]), "");
    let branch = git(
        repo.path(),
        &["branch", "--list", "rein/*", "--format=%(refname:short)"],
    );
    assert!(branch.starts_with("rein/agent-"), "{branch}");
    assert_eq!(
        git(repo.path(), &["show", &format!("{branch}:a.txt")]),
        "two"
    );
    let result = tool_results(&agent.transcript()[2]).remove(0).0;
    assert!(result.contains("Changed it."), "{result}");
    assert!(
        result.contains(&format!("on branch {branch} (1 commit)")),
        "{result}"
    );
}

#[tokio::test]
async fn an_unchanged_worktree_is_gone_afterwards() {
    let repo = repo();
    let turns = json!({"turns": [
        isolated_task(),
        {"when": "Change a.txt.", "text": "Nothing to change."},
        {"text": "Done."}
    ]});
    let server = mock(&turns.to_string()).await;
    let mut agent = parent(
        ProviderKind::Anthropic,
        &server,
        repo.path(),
        PermissionMode::Bypass,
    );
    let (summary, _) = run_all(&mut agent, "Look apart.").await;
    assert_eq!(
        summary.outcome,
        RunOutcome::Completed,
        "{:?}",
        summary.error
    );
    assert_eq!(git(repo.path(), &["branch", "--list", "rein/*"]), "");
    let trees = git(repo.path(), &["worktree", "list"]);
    assert_eq!(trees.lines().count(), 1, "{trees}");
    let result = tool_results(&agent.transcript()[2]).remove(0).0;
    assert_eq!(result, "Nothing to change.");
}

#[tokio::test]
async fn isolation_outside_git_is_a_clear_error_for_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let turns = json!({"turns": [isolated_task(), {"text": "Oh."}]});
    let server = mock(&turns.to_string()).await;
    let mut agent = parent(
        ProviderKind::Anthropic,
        &server,
        dir.path(),
        PermissionMode::Bypass,
    );
    run_all(&mut agent, "Try.").await;
    let (result, is_error) = tool_results(&agent.transcript()[2]).remove(0);
    assert!(
        is_error && result.contains("is not inside a git repository"),
        "{result}"
    );
}

#[tokio::test]
async fn enter_worktree_moves_the_guard_and_exit_worktree_brings_it_back() {
    let repo = repo();
    let root = std::fs::canonicalize(repo.path()).unwrap();
    let outside = root.join("a.txt").display().to_string();
    let call = |name: &str, args: serde_json::Value| json!({"tool_calls": [{"name": name, "arguments": args}]});
    let turns = json!({"turns": [
        call("enter_worktree", json!({"name": "feature"})),
        call("write_file", json!({"path": "b.txt", "content": "new\n"})),
        call("write_file", json!({"path": outside, "content": "clobbered\n"})),
        call("bash", json!({"command": "pwd"})),
        call("exit_worktree", json!({"action": "remove"})),
        call("exit_worktree", json!({"action": "keep"})),
        call("bash", json!({"command": "pwd"})),
        {"text": "Done."}
    ]});
    let server = mock(&turns.to_string()).await;
    let mut agent = parent(
        ProviderKind::Anthropic,
        &server,
        repo.path(),
        PermissionMode::Bypass,
    );
    let (summary, _) = run_all(&mut agent, "Work in a worktree.").await;
    assert_eq!(
        summary.outcome,
        RunOutcome::Completed,
        "{:?}",
        summary.error
    );
    let tree = root.join(".rein/worktrees/feature");
    let results: Vec<(String, bool)> = (1..=7)
        .map(|turn| tool_results(&agent.transcript()[turn * 2]).remove(0))
        .collect();
    assert!(
        results[0]
            .0
            .starts_with(&format!("Entered the worktree {}", tree.display())),
        "{:?}",
        results[0]
    );
    assert!(!results[1].1, "{:?}", results[1]);
    assert!(tree.join("b.txt").exists() && !root.join("b.txt").exists());
    assert!(
        results[2].1,
        "a write to the old tree is refused: {:?}",
        results[2]
    );
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "one\n"
    );
    assert!(
        results[3].0.starts_with(&tree.display().to_string()),
        "{:?}",
        results[3]
    );
    // Removing it refuses: b.txt is uncommitted work.
    assert!(
        results[4].1 && results[4].0.contains("1 uncommitted file"),
        "{:?}",
        results[4]
    );
    assert!(results[5].0.contains("are kept"), "{:?}", results[5]);
    assert_eq!(results[6].0.trim(), root.display().to_string());
    assert!(tree.join("b.txt").exists());
}

#[tokio::test]
async fn a_resumed_session_continues_in_the_worktree_it_was_in() {
    use rein_engine::session::SessionStore;
    use rein_protocol::SessionRecord;
    let (repo, data) = (repo(), tempfile::tempdir().unwrap());
    let root = std::fs::canonicalize(repo.path()).unwrap();
    let store = SessionStore::new(data.path(), &root);
    let first = json!({"turns": [
        {"tool_calls": [{"name": "enter_worktree", "arguments": {"name": "long"}}]},
        {"text": "In."}
    ]});
    let server = mock(&first.to_string()).await;
    let mut agent = parent(
        ProviderKind::Anthropic,
        &server,
        &root,
        PermissionMode::Bypass,
    );
    let id = agent.session_id().to_string();
    let meta = SessionRecord::Meta {
        session_id: id.clone(),
        created_at: "2026-11-27T02:00:00Z".into(),
        cwd: root.display().to_string(),
        model: "claude-sonnet-4-5".into(),
        provider: "anthropic".into(),
        forked_from: None,
    };
    agent.record_to(store.create(meta).unwrap());
    run_all(&mut agent, "Go into a worktree.").await;
    drop(agent);
    let loaded = store.load(&id).unwrap();
    let second = json!({"turns": [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "pwd"}}]},
        {"text": "Still there."}
    ]});
    let server = mock(&second.to_string()).await;
    let mut agent = parent(
        ProviderKind::Anthropic,
        &server,
        &root,
        PermissionMode::Bypass,
    );
    agent.record_to(store.append_to(&id).unwrap());
    agent.resume_from(loaded);
    run_all(&mut agent, "Where are we?").await;
    let transcript = agent.transcript();
    let (pwd, _) = tool_results(&transcript[transcript.len() - 2]).remove(0);
    assert_eq!(
        pwd.trim(),
        root.join(".rein/worktrees/long").display().to_string()
    );
}

#[tokio::test]
async fn a_worktree_outside_the_workspace_cannot_be_entered() {
    let top = tempfile::tempdir().unwrap();
    let repo = top.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    rein_testkit::committed_repo(&repo, &[("a.txt", "one\n")]);
    git(
        &repo,
        &["worktree", "add", "-q", "-b", "side", "../outside"],
    );
    let turns = json!({"turns": [
        {"tool_calls": [{"name": "enter_worktree", "arguments": {"path": "../outside"}}]},
        {"text": "Refused."}
    ]});
    let server = mock(&turns.to_string()).await;
    let mut agent = parent(
        ProviderKind::Anthropic,
        &server,
        &repo,
        PermissionMode::Bypass,
    );
    run_all(&mut agent, "Go next door.").await;
    let (result, is_error) = tool_results(&agent.transcript()[2]).remove(0);
    assert!(
        is_error && result.contains("is outside this workspace"),
        "{result}"
    );
}
