//! A rate limit that asks for a long wait (LiteLLM's `llm_provider-retry-after: 60`): the wait
//! is shown and Ctrl-C ends it; past `max_retry_wait_secs` the run fails saying how long the
//! provider asked. Nothing here sleeps through the wait.

use std::io::{BufRead, BufReader, Read};
use std::process::Stdio;
use std::sync::mpsc;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

use crate::support::*;

/// A proxy's `rpm` limit: 429 asking for a minute, then an answer that must never be read.
const LIMITED: &str = r#"{"turns": [
    {"fault": {"http": {"status": 429, "headers": {"llm_provider-retry-after": "60"}}}},
    {"text": "never"}
]}"#;

/// Every line of `pipe`, as it comes.
fn lines(pipe: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

/// The lines of `from` up to the first that `wanted` accepts (that one included), and the
/// lines still to come.
fn until(
    from: mpsc::Receiver<String>,
    wanted: fn(&str) -> bool,
) -> (Vec<String>, mpsc::Receiver<String>) {
    rein_testkit::without_hanging("the retry notice", move || {
        let mut seen = Vec::new();
        for line in from.iter() {
            let done = wanted(&line);
            seen.push(line);
            if done {
                break;
            }
        }
        (seen, from)
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_rate_limit_wait_is_shown_and_ctrl_c_cancels_it() {
    for format in ["stream-json", "text"] {
        let dir = tempfile::tempdir().unwrap();
        let server = mock(LIMITED).await;
        let mut cmd = exec_in(dir.path(), &server, "bypass", "go");
        cmd.args(["--output-format", format])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let stdout = lines(child.stdout.take().unwrap());
        let stderr = lines(child.stderr.take().unwrap());
        let (seen, rest) = if format == "text" {
            until(stderr, |line| line.contains("failed, waiting"))
        } else {
            until(stdout, |line| line.contains(r#""type":"retry""#))
        };
        let notice = seen.last().cloned().unwrap_or_default();
        if format == "text" {
            assert!(
                notice.starts_with(
                    "rein: attempt 1 failed, waiting 60 s as asked before retrying (Ctrl-C \
                     cancels): anthropic: rate limited"
                ),
                "{seen:?}"
            );
        } else {
            let event: Value = serde_json::from_str(&notice).unwrap();
            assert_eq!(event["delay_ms"], 60_000, "{notice}");
            assert_eq!(event["attempt"], 1, "{notice}");
        }

        kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
        let status =
            rein_testkit::without_hanging("rein to stop waiting", move || child.wait().unwrap());
        assert_eq!(status.code(), Some(130), "{format}: 128 + SIGINT");
        assert_eq!(server.requests().len(), 1, "{format}: not sent again");
        let recorded = std::fs::read_to_string(&session_files(dir.path())[0]).unwrap();
        assert!(!recorded.contains("never"), "{format}: {recorded}");
        let rest: Vec<String> = rest.iter().collect();
        if format == "text" {
            assert!(
                rest.iter().any(|l| l.contains("cancelling the turn")),
                "{rest:?}"
            );
        } else {
            let result: Value = serde_json::from_str(rest.last().unwrap()).unwrap();
            assert_eq!(result["outcome"], "cancelled", "{rest:?}");
        }
    }
}

#[tokio::test]
async fn a_wait_past_max_retry_wait_secs_fails_at_once_saying_how_long_was_asked() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join(".rein-test-config/rein");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "max_retry_wait_secs = 10\n").unwrap();
    let server = mock(LIMITED).await;
    let out = output(exec_in(dir.path(), &server, "bypass", "go")).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "rate limited: mock fault: HTTP 429 Too Many Requests; the provider asked to wait \
             60 s before trying again, longer than rein waits (10 s, `max_retry_wait_secs` in \
             config) (HTTP 429"
        ),
        "{stderr}"
    );
    assert_eq!(server.requests().len(), 1);
}
