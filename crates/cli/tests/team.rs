//! Teams and worktrees from the command line: `rein exec` runs a team to completion and
//! prints its events, Ctrl-C stops every teammate, `rein worktree list`/`prune` show and
//! tidy the worktrees isolated agents left.

use serde_json::{Value, json};

use crate::support::*;

fn call(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

fn teammate(name: &str, prompt: &str) -> Value {
    call(
        "task",
        json!({"description": "help", "prompt": prompt, "name": name}),
    )
}

#[tokio::test]
async fn exec_runs_a_team_to_completion_and_prints_its_events() {
    let dir = tempfile::tempdir().unwrap();
    let create = |s: &str| call("task_create", json!({"subject": s, "description": s}));
    let mut turns = vec![
        json!({"tool_calls": [create("one"), create("two")]}),
        json!({"tool_calls": [teammate("ann", "Take tasks."), teammate("ben", "Take tasks.")]}),
        json!({"text": "Team started."}),
        json!({"when_last": "Take tasks.", "text": "Ready."}),
        json!({"when_last": "Take tasks.", "text": "Ready."}),
    ];
    for id in ["1", "2"] {
        turns.push(
            json!({"when_last": format!("You claimed task #{id} from"), "tool_calls": [
                call("task_update", json!({"taskId": id, "status": "completed"})),
                call("send_message", json!({"to": "main", "message": format!("finished {id}")}))
            ]}),
        );
        turns.push(json!({"when_last": format!("Updated #{id} [completed]"), "text": "Done."}));
    }
    for _ in 0..12 {
        turns.push(json!({"when_last": "[teammate ", "text": "Noted."}));
        turns.push(json!({"when_last": "<message from=", "text": "Noted."}));
    }
    let server = mock(&json!({"turns": turns}).to_string()).await;
    let mut cmd = exec_in(dir.path(), &server, "bypass", "Split the work.");
    cmd.args(["--output-format", "stream-json"]);
    let out = output(cmd).await;
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let events: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds = |kind: &str| events.iter().filter(|e| e["type"] == kind).count();
    assert!(kinds("teammate") >= 4, "{stdout}");
    assert_eq!(kinds("team_message"), 2, "{stdout}");
    let last = events.last().unwrap();
    assert_eq!(last["type"], "result");
    // Both tasks ended completed on the board the run's last `tasks` event shows (a
    // teammate's comes wrapped in a `subagent` event under its name).
    let board = events
        .iter()
        .rev()
        .map(|e| {
            if e["type"] == "subagent" {
                &e["event"]
            } else {
                e
            }
        })
        .find(|e| e["type"] == "tasks")
        .unwrap();
    let statuses: Vec<&str> = board["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["completed", "completed"]);
    // What each teammate spent is named under the session.
    let listed = output({
        let mut cmd = rein(dir.path());
        cmd.arg("sessions");
        cmd
    })
    .await;
    let listed = text(&listed.stdout);
    let line = listed
        .lines()
        .find(|l| l.contains("teammates:"))
        .unwrap_or_default();
    assert!(
        line.contains("ann $0.") && line.contains("ben $0."),
        "{listed}"
    );
}

#[tokio::test]
async fn ctrl_c_stops_every_teammate() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let dir = tempfile::tempdir().unwrap();
    let turns = json!({"turns": [
        {"tool_calls": [teammate("slow", "Work slowly.")]},
        {"text": "Waiting for slow."},
        // Longer than the hang limit: a rein that waited for it would fail as hung.
        {"when_last": "Work slowly.", "text": "never", "delay_ms": 600000}
    ]});
    let server = mock(&turns.to_string()).await;
    let mut cmd = exec_in(dir.path(), &server, "bypass", "Go.");
    cmd.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().unwrap();
    until("the teammate's request", || server.requests().len() >= 3).await;
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let out = tokio::task::spawn_blocking(move || {
        rein_testkit::without_hanging("rein after Ctrl-C, its teammate still asking", move || {
            child.wait_with_output().unwrap()
        })
    })
    .await
    .unwrap();
    assert!(
        text(&out.stderr).contains("cancelling the turn"),
        "{}",
        text(&out.stderr)
    );
}

#[tokio::test]
async fn worktree_list_and_prune_show_and_tidy_what_isolated_agents_left() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    rein_testkit::committed_repo(
        repo,
        &[(".gitignore", ".rein-test-*\n"), ("a.txt", "one\n")],
    );
    let turns = json!({"turns": [
        {"tool_calls": [call("task", json!({"description": "edit", "prompt": "Change a.txt.",
            "isolation": "worktree"}))]},
        {"when": "Change a.txt.", "when_last": "Change a.txt.", "tool_calls": [
            call("write_file", json!({"path": "a.txt", "content": "two\n"}))]},
        {"when": "Change a.txt.", "when_last": "a.txt", "text": "Changed."},
        {"text": "Done."}
    ]});
    let server = mock(&turns.to_string()).await;
    let out = output(exec_in(repo, &server, "bypass", "Change it apart.")).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    // One more, empty, as a session that entered a worktree and left it would.
    rein_testkit::git(
        repo,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "rein/empty",
            ".rein/worktrees/empty",
        ],
    );
    let listed = output({
        let mut cmd = rein(repo);
        cmd.args(["worktree", "list"]);
        cmd
    })
    .await;
    let listed = text(&listed.stdout);
    assert_eq!(listed.lines().count(), 2, "{listed}");
    assert!(
        listed.contains("rein/agent-") && listed.contains("(1 commit)"),
        "{listed}"
    );
    assert!(listed.contains("rein/empty  (no changes)"), "{listed}");
    let pruned = output({
        let mut cmd = rein(repo);
        cmd.args(["worktree", "prune"]);
        cmd
    })
    .await;
    let pruned = text(&pruned.stdout);
    assert!(
        pruned.contains("removed") && pruned.contains("(rein/empty)"),
        "{pruned}"
    );
    assert!(
        pruned.contains("kept") && pruned.contains(": 1 commit"),
        "{pruned}"
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("a.txt")).unwrap(),
        "one\n"
    );
    assert!(!rein_testkit::git(repo, &["branch"]).contains("rein/empty"));
}
