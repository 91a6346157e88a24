//! The cost per call of the view (`cargo test --release -p rein-sandbox --test sandbox
//! timing -- --ignored --nocapture`): 50 calls of `true` under `workspace-write` in a
//! workspace without git and in a repository, with the native helper and with bubblewrap.

use std::process::Command;
use std::time::{Duration, Instant};

use rein_sandbox::Policy;

use crate::support::*;

const CALLS: usize = 50;

#[test]
#[ignore = "a measurement, not a check"]
fn time_fifty_workspace_write_calls() {
    for launch in LAUNCHES {
        for with_repo in ["no repository", "repository"] {
            let fx = fixture();
            let Some(sandbox) = sandbox(&fx, &[], launch, "time_fifty_calls") else {
                continue;
            };
            if with_repo == "repository" {
                let init = Command::new("git")
                    .args(["init", "-q", "."])
                    .current_dir(&fx.ws)
                    .output()
                    .unwrap();
                assert!(init.status.success());
            }
            // The holder starts on the first call.
            run(&sandbox, Policy::WorkspaceWrite, &fx, "true");
            let call = rein_sandbox::Call {
                policy: Policy::WorkspaceWrite,
                workspace: &fx.ws,
                cwd: &fx.ws,
                tmp: &fx.tmp,
                hidden: &[],
            };
            let started = Instant::now();
            for _ in 0..1000 {
                sandbox.wrap(&call).unwrap();
            }
            println!(
                "{launch:?}, {with_repo}: wrap alone {:.1?} a call",
                started.elapsed() / 1000
            );
            let mut samples: Vec<Duration> = (0..CALLS)
                .map(|_| {
                    let started = Instant::now();
                    let output = run(&sandbox, Policy::WorkspaceWrite, &fx, "true");
                    assert!(output.status.success(), "{}", text(&output));
                    started.elapsed()
                })
                .collect();
            samples.sort();
            let total: Duration = samples.iter().sum();
            // On a busy machine the fastest tenth is the steadiest figure.
            println!(
                "{launch:?}, {with_repo}: p10 {:.2?}, median {:.2?}, mean {:.2?} ({CALLS} calls)",
                samples[CALLS / 10],
                samples[CALLS / 2],
                total / CALLS as u32
            );
        }
    }
}
