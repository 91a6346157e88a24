//! What running a command in a pseudo-terminal (`bash` with `tty: true`) adds to a plain
//! `bash` call: the same short command through the registry both ways, and one exchange with
//! a running session (`write_stdin` to `cat`). Run with `cargo bench -p rein-tools --bench
//! terminal`; the figures go in the note (no budget is asserted here).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use rein_tools::{ToolContext, ToolRegistry, WorkspaceGuard};
use serde_json::json;

const RUNS: usize = 41;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let registry = ToolRegistry::builtin();
    registry.terminals().set_max_open(RUNS + 2);
    let ctx = ToolContext::new(WorkspaceGuard::new(dir.path()).unwrap());
    let call = |name: &str, args: serde_json::Value| {
        let started = Instant::now();
        let out = runtime.block_on(registry.call(name, args, &ctx));
        assert!(!out.is_error, "{}", out.text);
        (started.elapsed(), out.text)
    };
    let mut plain = Vec::new();
    let mut tty = Vec::new();
    for _ in 0..RUNS {
        plain.push(call("bash", json!({"command": "echo hi"})).0);
        let (t, text) = call("bash", json!({"command": "echo hi", "tty": true}));
        assert!(text.contains("ended: exit code 0"), "{text}");
        tty.push(t);
    }
    let (_, started) = call(
        "bash",
        json!({"command": "cat", "tty": true, "yield_ms": 200}),
    );
    let id = started
        .split("write_stdin {\"id\": ")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .unwrap()
        .to_string();
    let id: u64 = id.parse().unwrap();
    let mut typed = Vec::new();
    for n in 0..RUNS {
        let (t, text) = call(
            "write_stdin",
            json!({"id": id, "chars": format!("line {n}\n"), "yield_ms": 2000}),
        );
        assert!(text.contains(&format!("line {n}")), "{text}");
        typed.push(t);
    }
    let (plain, tty, typed) = (median(plain), median(tty), median(typed));
    println!(
        "bash `echo hi`            {:>8.2} ms",
        plain.as_secs_f64() * 1e3
    );
    println!(
        "bash `echo hi`, tty: true {:>8.2} ms  (+{:.2} ms)",
        tty.as_secs_f64() * 1e3,
        (tty.as_secs_f64() - plain.as_secs_f64()) * 1e3
    );
    println!(
        "write_stdin to `cat`      {:>8.2} ms  (the answer, then 200 ms of quiet)",
        typed.as_secs_f64() * 1e3,
    );
}
