//! `kill -9` at random moments of a multi-turn run with parallel tool calls: every result a
//! front end was told of is in the session file, no call is reported as having run or not run
//! against the facts, and the session resumes into a request every provider accepts.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;

use crate::support::*;

/// One turn: parallel reads around two appending commands (calls 3 and 5 of the turn), whose
/// lines are `<mark>-3` and `<mark>-5`.
fn turn(mark: &str) -> String {
    r#"{"tool_calls": [
        {"name": "read_file", "arguments": {"path": "a.txt"}},
        {"name": "read_file", "arguments": {"path": "b.txt"}},
        {"name": "bash", "arguments": {"command": "sleep 0.08; echo MARK-3 >> log.txt"}},
        {"name": "grep", "arguments": {"pattern": "x", "path": "."}},
        {"name": "bash", "arguments": {"command": "sleep 0.05; echo MARK-5 >> log.txt"}}
    ]}"#
    .replace("MARK", mark)
}

/// Every `(tool_use_id, content)` of the tool results in a session file.
fn recorded_results(file: &std::path::Path) -> HashMap<String, String> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let mut results = HashMap::new();
    for line in text.lines() {
        let Ok(record) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        for block in record["message"]["content"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if block["type"] == "tool_result" {
                let id = block["tool_use_id"].as_str().unwrap_or("").to_string();
                let content = block["content"].as_str().unwrap_or("").to_string();
                results.insert(id, content);
            }
        }
    }
    results
}

#[tokio::test]
async fn a_kill_at_any_moment_loses_no_finished_result_and_resumes_cleanly() {
    let seed = fastrand::u64(..);
    let mut rng = fastrand::Rng::with_seed(seed);
    for round in 0..10 {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "alpha\n").unwrap();
        std::fs::write(dir.path().join("b.txt"), "beta x\n").unwrap();
        let turns: Vec<String> = (1..=3).map(|t| turn(&format!("r{round}t{t}"))).collect();
        let scenario = format!(r#"{{"turns": [{}, {{"text": "done"}}]}}"#, turns.join(", "));
        let server = mock(&scenario).await;
        let mut cmd = exec_in(dir.path(), &server, "bypass", "go");
        cmd.args(["--output-format", "stream-json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let delay = Duration::from_millis(rng.u64(20..700));
        // Read the events until the kill; what was printed is what a front end saw.
        let reader = std::thread::spawn(move || {
            let mut ended = Vec::new();
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let Ok(event) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                if event["type"] == "tool_call_end" {
                    ended.push(event["id"].as_str().unwrap_or("").to_string());
                }
            }
            ended
        });
        tokio::time::sleep(delay).await;
        let _ = child.kill();
        let _ = child.wait();
        let shown = reader.join().unwrap();
        let context = format!("seed {seed}, round {round}, killed after {delay:?}");

        let files = session_files(dir.path());
        let Some(file) = files.first() else {
            assert!(shown.is_empty(), "{context}: results shown but no session");
            continue;
        };
        let recorded = recorded_results(file);
        for id in &shown {
            let content = recorded
                .get(id)
                .unwrap_or_else(|| panic!("{context}: {id} lost"));
            assert!(
                !content.contains("may have run"),
                "{context}: {id}: {content}"
            );
        }
        // A command recorded as finished did write its line; one whose line is there is
        // never said not to have run.
        let log = std::fs::read_to_string(dir.path().join("log.txt")).unwrap_or_default();
        for t in 1..=3 {
            for n in [3, 5] {
                let id = format!("call_{t}_{n}");
                let line = format!("r{round}t{t}-{n}");
                let wrote = log.lines().any(|l| l == line);
                match recorded.get(&id) {
                    Some(content) if content.contains("before this tool call ran") => {
                        assert!(!wrote, "{context}: {id} ran but is reported as not run");
                    }
                    Some(content) if !content.contains("may have run") => {
                        assert!(wrote, "{context}: {id} recorded as done without its effect");
                    }
                    _ => {}
                }
            }
        }

        // The session resumes into a well-formed request.
        let resume = mock(r#"{"turns": [{"text": "resumed"}]}"#).await;
        let mut cmd = rein(dir.path());
        cmd.args(["exec", "--base-url", &resume.url(), "--continue", "go on"]);
        let out = output(cmd).await;
        assert!(out.status.success(), "{context}: {}", text(&out.stderr));
        let body = &resume.requests()[0].body;
        let mut open: HashSet<String> = HashSet::new();
        for message in body["messages"].as_array().unwrap() {
            for block in message["content"].as_array().into_iter().flatten() {
                match block["type"].as_str() {
                    Some("tool_use") => {
                        assert!(open.is_empty() || message["role"] == "assistant");
                        open.insert(block["id"].as_str().unwrap().to_string());
                    }
                    Some("tool_result") => {
                        let id = block["tool_use_id"].as_str().unwrap();
                        assert!(open.remove(id), "{context}: orphan result {id}");
                    }
                    _ => {}
                }
            }
            if message["role"] == "user" {
                assert!(open.is_empty(), "{context}: unanswered calls {open:?}");
            }
        }
        for id in &shown {
            let sent = body.to_string();
            assert!(
                sent.contains(id.as_str()),
                "{context}: {id} missing on resume"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_and_sighup_cancel_kill_the_commands_save_and_exit_conventionally() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    for (signal, status) in [(Signal::SIGTERM, 143), (Signal::SIGHUP, 129)] {
        let dir = tempfile::tempdir().unwrap();
        let server = mock(
            r#"{"turns": [
                {"tool_calls": [{"name": "bash", "arguments": {"command": "touch started; sleep 41; touch finished"}}]},
                {"text": "never"}
            ]}"#,
        )
        .await;
        let mut cmd = exec_in(dir.path(), &server, "bypass", "go");
        cmd.stdout(Stdio::null()).stderr(Stdio::piped());
        let child = cmd.spawn().unwrap();
        let started = dir.path().join("started");
        rein_testkit::without_hanging("the command to start", move || {
            while !started.exists() {
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        kill(Pid::from_raw(child.id() as i32), signal).unwrap();
        let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
            .await
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(status),
            "{signal}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains("session saved"),
            "{}",
            text(&out.stderr)
        );
        // The command was killed with its group, not left to finish.
        std::thread::sleep(Duration::from_millis(100));
        let sleeping = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(Result::ok)
            .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
            .any(|cmdline| String::from_utf8_lossy(&cmdline).contains("sleep\u{0}41"));
        assert!(!sleeping, "{signal}: the command outlived rein");
        // The call and its interruption are in the session.
        let files = session_files(dir.path());
        let recorded = recorded_results(&files[0]);
        assert_eq!(recorded.len(), 1, "{signal}: {recorded:?}");
        assert!(
            recorded.values().all(|c| c.contains("interrupted")),
            "{recorded:?}"
        );
    }
}
