//! The OS sandbox's cost per shell call: the `bash` tool running `true` 100 times unconfined
//! and 100 times under each policy, through the registry as the agent calls it. Budget: the
//! median under `workspace-write` at most 3 ms above the unconfined median. Run with
//! `cargo bench -p rein-tools --bench sandbox`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use rein_sandbox::{Policy, Sandbox, Settings};
use rein_tools::{ToolContext, ToolRegistry, WorkspaceGuard};
use serde_json::json;

const RUNS: usize = 100;

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
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let sandbox = match Sandbox::detect(Settings::with_home(home.as_deref())) {
        Ok(sandbox) => Arc::new(sandbox),
        Err(why) => {
            println!("no sandbox here: {why}");
            return;
        }
    };
    let registry = ToolRegistry::builtin();
    let base = ToolContext::new(WorkspaceGuard::new(dir.path()).unwrap());
    let time = |policy: Policy| {
        let ctx = ToolContext {
            sandbox: (policy != Policy::Off).then(|| Arc::clone(&sandbox)),
            sandbox_policy: policy,
            ..base.clone()
        };
        // `true; :` is not proven read-only, so the session's policy applies.
        let samples = (0..RUNS)
            .map(|_| {
                let started = Instant::now();
                let out =
                    runtime.block_on(registry.call("bash", json!({"command": "true; :"}), &ctx));
                assert!(!out.is_error, "{}", out.text);
                started.elapsed()
            })
            .collect();
        median(samples)
    };
    // Interleaved rounds, so drift on a busy machine hits every policy alike.
    let mut off = Vec::new();
    let mut write = Vec::new();
    let mut read = Vec::new();
    for _ in 0..3 {
        off.push(time(Policy::Off));
        write.push(time(Policy::WorkspaceWrite));
        read.push(time(Policy::ReadOnly));
    }
    let (off, write, read) = (median(off), median(write), median(read));
    println!("bash `true` per call (median of {RUNS}, best of 3 rounds' medians):");
    println!("  unconfined:       {off:>9.2?}");
    println!(
        "  workspace-write:  {write:>9.2?}  (+{:.2?})",
        write.saturating_sub(off)
    );
    println!(
        "  read-only:        {read:>9.2?}  (+{:.2?})",
        read.saturating_sub(off)
    );
}
