//! Background shells on real processes: started at once, read in pieces, waited for without
//! polling, filtered, killed with everything they started, and gone with the session.

use serde_json::json;

use crate::support::{Workspace, assert_all_die, pids};

fn job_id(started: &str) -> String {
    let id = started
        .split_whitespace()
        .find(|w| w.starts_with("bg_"))
        .unwrap_or_else(|| panic!("no job id in {started:?}"));
    id.trim_end_matches(';').to_string()
}

#[tokio::test]
async fn a_job_is_read_in_pieces_and_kill_shell_ends_its_whole_group() {
    let ws = Workspace::new();
    let started = ws
        .call(
            "bash",
            json!({"command": "echo first; while [ ! -e go ]; do sleep 0.02; done; echo second; \
                   sleep 60 & echo child=$!; wait", "run_in_background": true}),
        )
        .await;
    assert!(!started.is_error, "{}", started.text);
    let id = job_id(&started.text);
    assert_eq!(id, "bg_1");

    let first = ws
        .call("bash_output", json!({"id": id, "block": true}))
        .await;
    assert_eq!(first.text, "first\n[bg_1: running]");
    let nothing = ws.call("bash_output", json!({"id": id})).await;
    assert_eq!(nothing.text, "(no new output)\n[bg_1: running]");

    std::fs::write(ws.root.join("go"), "").unwrap();
    let mut second = String::new();
    while !second.contains("child=") {
        let out = ws
            .call("bash_output", json!({"id": id, "block": true}))
            .await;
        second.push_str(&out.text);
    }
    assert!(second.contains("second\n"), "{second}");
    let child = pids(&second.replace("[bg_1: running]", ""), "child");
    assert_eq!(child.len(), 1);

    let killed = ws.call("kill_shell", json!({"id": id})).await;
    assert_eq!(killed.text, "bg_1 killed");
    assert_all_die(&child).await;
    let after = ws.call("bash_output", json!({"id": id})).await;
    assert_eq!(after.text, "(no new output)\n[bg_1: killed]");
    // Told once: the model saw it end.
    assert!(
        ws.ctx
            .services
            .get::<rein_tools::Jobs>()
            .take_ended()
            .is_empty()
    );
}

#[tokio::test]
async fn a_filter_keeps_matching_lines_and_an_ended_job_is_told_once() {
    let ws = Workspace::new();
    let started = ws
        .call(
            "bash",
            json!({"command": "printf 'a1\\nb1\\na2\\n'; exit 3", "run_in_background": true}),
        )
        .await;
    let id = job_id(&started.text);
    // Wait for the end without reading the output.
    for _ in 0..500 {
        if ws
            .ctx
            .services
            .get::<rein_tools::Jobs>()
            .poll(&id)
            .unwrap()
            .0
            != rein_tools::JobStatus::Running
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let notices = ws.ctx.services.get::<rein_tools::Jobs>().take_ended();
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        notices[0].contains("bg_1") && notices[0].contains("exited with code 3"),
        "{notices:?}"
    );
    assert!(
        ws.ctx
            .services
            .get::<rein_tools::Jobs>()
            .take_ended()
            .is_empty()
    );
    let out = ws
        .call("bash_output", json!({"id": id, "filter": "^a"}))
        .await;
    assert_eq!(out.text, "a1\na2\n[bg_1: exited with code 3]");
}

#[tokio::test]
async fn jobs_end_with_the_session_and_unknown_ids_are_named() {
    let ws = Workspace::new();
    let unknown = ws.call("bash_output", json!({"id": "bg_9"})).await;
    assert!(unknown.is_error);
    assert!(
        unknown.text.contains("none was started"),
        "{}",
        unknown.text
    );
    let started = ws
        .call(
            "bash",
            json!({"command": "sleep 60 & echo child=$!; wait", "run_in_background": true}),
        )
        .await;
    let id = job_id(&started.text);
    let out = ws
        .call("bash_output", json!({"id": id, "block": true}))
        .await;
    let child = pids(&out.text, "child");
    assert_eq!(child.len(), 1, "{}", out.text);
    let bad = ws.call("kill_shell", json!({"id": "bg_2"})).await;
    assert!(
        bad.is_error && bad.text.contains("the jobs are: bg_1"),
        "{}",
        bad.text
    );
    // The session's context (and so its job table) goes away.
    drop(ws);
    assert_all_die(&child).await;
}

#[tokio::test]
async fn a_blocking_read_returns_when_its_timeout_passes() {
    let ws = Workspace::new();
    let started = ws
        .call(
            "bash",
            json!({"command": "sleep 60", "run_in_background": true}),
        )
        .await;
    let id = job_id(&started.text);
    let out = ws
        .call(
            "bash_output",
            json!({"id": id, "block": true, "timeout_ms": 100}),
        )
        .await;
    assert_eq!(out.text, "(no new output)\n[bg_1: running]");
}

#[tokio::test]
async fn the_users_view_of_a_job_shows_its_end_and_leaves_the_models_reading_alone() {
    let ws = Workspace::new();
    let started = ws
        .call(
            "bash",
            json!({"command": "for i in $(seq 1 2000); do echo line-$i; done; echo KEY=value-1",
                   "run_in_background": true}),
        )
        .await;
    let id = job_id(&started.text);
    let hidden = rein_tools::HiddenEnv::with(["REIN_TEST_TAIL_KEY".to_string()]);
    let mut tail = String::new();
    for _ in 0..200 {
        tail = ws
            .ctx
            .services
            .get::<rein_tools::Jobs>()
            .tail(&id, 100, &hidden)
            .unwrap();
        if tail.contains("KEY=") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // The last 100 bytes, from a whole line on.
    assert!(tail.starts_with("line-"), "{tail:?}");
    assert!(tail.ends_with("KEY=value-1\n"), "{tail:?}");
    assert!(tail.len() <= 100);
    // The model still reads from the start.
    let read = ws.call("bash_output", json!({"id": id})).await;
    assert!(
        read.text.starts_with("line-1\nline-2\n"),
        "{}",
        &read.text[..40]
    );
    let unknown = ws
        .ctx
        .services
        .get::<rein_tools::Jobs>()
        .tail("bg_9", 100, &hidden);
    assert!(
        unknown
            .unwrap_err()
            .to_string()
            .contains("no background job bg_9")
    );
}
