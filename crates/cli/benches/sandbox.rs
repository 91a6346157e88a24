//! The OS sandbox's cost per shell call: the `bash` tool running `true` 100 times unconfined
//! and 100 times under each policy, through the registry as the agent calls it, with rein's
//! native helper (this package's `rein` binary, as `rein __sandbox`) and with bubblewrap for
//! comparison: in an empty folder, and in a git repository of 1,000 folders holding 10,000
//! files, ten of them `.env` files at depth (each sandboxed call there also holds git's files
//! still and hides what the guard refuses at every depth). Budget: the median under
//! `workspace-write` at most 3 ms above the unconfined median. Run with `cargo bench -p rein-cli --bench sandbox`.
#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rein_sandbox::{Launcher, Policy, Sandbox, Settings};
use rein_tools::{ToolContext, ToolRegistry, WorkspaceGuard};
use serde_json::json;

const RUNS: usize = 100;
const ROUNDS: usize = 3;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// A git repository in `root`: 1,000 folders, ten files each, one `.env` in every hundredth.
fn tree(root: &Path) {
    let status = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(root)
        .status()
        .unwrap();
    assert!(status.success());
    for n in 0..1_000 {
        let folder = root.join(format!("d{}/e{}", n / 10, n % 10));
        std::fs::create_dir_all(&folder).unwrap();
        for f in 0..10 {
            let name = if n % 100 == 7 && f == 0 {
                ".env".to_string()
            } else {
                format!("f{f}.rs")
            };
            std::fs::write(folder.join(name), "x").unwrap();
        }
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let empty = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    tree(repo.path());
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let settings = Settings::with_home(home.as_deref());
    let rein = Path::new(env!("CARGO_BIN_EXE_rein"));
    let helper = match Sandbox::detect_with_helper(settings.clone(), rein) {
        Ok(sandbox) if matches!(sandbox.launcher(), Launcher::Helper(_)) => Some(Arc::new(sandbox)),
        Ok(_) => {
            println!("the native helper fails here (bubblewrap works)");
            None
        }
        Err(why) => {
            println!("no native helper here: {why}");
            None
        }
    };
    let bwrap = match Sandbox::detect(settings) {
        Ok(sandbox) => Some(Arc::new(sandbox)),
        Err(why) => {
            println!("no bubblewrap here: {why}");
            None
        }
    };
    let registry = ToolRegistry::builtin();
    for (name, dir) in [
        ("an empty folder", empty.path()),
        ("a git repository of 10,000 files", repo.path()),
    ] {
        println!("in {name}:");
        let base = ToolContext::new(WorkspaceGuard::new(dir).unwrap());
        let time = |sandbox: Option<&Arc<Sandbox>>, policy: Policy| {
            let ctx = ToolContext {
                sandbox: sandbox.filter(|_| policy != Policy::Off).cloned(),
                sandbox_policy: policy,
                ..base.clone()
            };
            // `true; :` is not proven read-only, so the session's policy applies.
            let samples = (0..RUNS)
                .map(|_| {
                    let started = Instant::now();
                    let out = runtime.block_on(registry.call(
                        "bash",
                        json!({"command": "true; :"}),
                        &ctx,
                    ));
                    assert!(!out.is_error, "{}", out.text);
                    started.elapsed()
                })
                .collect();
            median(samples)
        };
        // Interleaved rounds, so drift on a busy machine hits every configuration alike.
        let configs = [
            ("unconfined", None, Policy::Off),
            ("workspace-write", helper.as_ref(), Policy::WorkspaceWrite),
            ("read-only", helper.as_ref(), Policy::ReadOnly),
            (
                "bwrap workspace-write",
                bwrap.as_ref(),
                Policy::WorkspaceWrite,
            ),
            ("bwrap read-only", bwrap.as_ref(), Policy::ReadOnly),
        ];
        let mut medians = vec![Vec::new(); configs.len()];
        for _ in 0..ROUNDS {
            for (i, (_, sandbox, policy)) in configs.iter().enumerate() {
                if *policy == Policy::Off || sandbox.is_some() {
                    medians[i].push(time(*sandbox, *policy));
                }
            }
        }
        println!("bash `true` per call (median of {RUNS}, median of {ROUNDS} rounds):");
        let off = median(medians[0].clone());
        for ((name, _, _), samples) in configs.iter().zip(medians) {
            if samples.is_empty() {
                continue;
            }
            let value = median(samples);
            if *name == "unconfined" {
                println!("  {:<23}{value:>9.2?}", format!("{name}:"));
            } else {
                let extra = value.saturating_sub(off);
                println!("  {:<23}{value:>9.2?}  (+{extra:.2?})", format!("{name}:"));
            }
        }
    }
}
