//! `edit_file` on a 100,000-line file, through the registry as the agent calls it (read, match,
//! write atomically, diff). Budget: ≤ 20 ms per edit. Run with `cargo bench -p rein-tools`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use rein_tools::{ToolContext, ToolRegistry, WorkspaceGuard};
use serde_json::json;

const LINES: usize = 100_000;
const RUNS: usize = 21;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let body: String = (0..LINES)
        .map(|n| format!("    let value_{n} = compute({n}, \"item {n}\");\n"))
        .collect();
    std::fs::write(dir.path().join("big.rs"), &body).unwrap();
    let registry = ToolRegistry::builtin();
    let ctx = ToolContext::new(WorkspaceGuard::new(dir.path()).unwrap());
    let call = |args: serde_json::Value| {
        let started = Instant::now();
        let out = runtime.block_on(registry.call("edit_file", args, &ctx));
        (started.elapsed(), out)
    };

    let mut exact = Vec::new();
    let mut tolerant = Vec::new();
    let mut missing = Vec::new();
    for run in 0..RUNS {
        let target = 50_000 + run;
        let (t, out) = call(json!({
            "path": "big.rs",
            "old_string": format!("let value_{target} = compute({target}, \"item {target}\");"),
            "new_string": format!("let value_{target} = compute({target}, \"edited\");"),
        }));
        assert!(!out.is_error, "{}", out.text);
        exact.push(t);
        let target = 70_000 + 2 * run;
        let (t, out) = call(json!({
            "path": "big.rs",
            "old_string": format!("let value_{target} = compute({target}, \"item {target}\");\n  let value_{} = compute({}, \"item {}\");", target + 1, target + 1, target + 1),
            "new_string": "let replaced = 1;",
        }));
        assert!(
            !out.is_error && out.text.contains("ignoring indentation"),
            "{}",
            out.text
        );
        tolerant.push(t);
        let (t, out) = call(json!({
            "path": "big.rs",
            "old_string": format!("let value_{} = compute(1, \"nowhere\");", 90_000 + run),
            "new_string": "x",
        }));
        assert!(
            out.is_error && out.text.contains("most similar region"),
            "{}",
            out.text
        );
        missing.push(t);
    }
    println!("edit_file on a {LINES}-line file (median of {RUNS}):");
    println!(
        "  exact match, write and diff:        {:>8.2?}",
        median(exact)
    );
    println!(
        "  indentation-tolerant match:         {:>8.2?}",
        median(tolerant)
    );
    println!(
        "  not found, closest region reported: {:>8.2?}",
        median(missing)
    );
}
