//! Checkpoints: what keeping a file's earlier state costs per edit of a 1 MB file (the
//! `before` and `after` entries dispatch writes around the call), the store's size after 1,000
//! edits of one file, and a git snapshot of a 10,000-file, 200 MB work tree. Run with
//! `cargo bench -p rein-checkpoint --bench checkpoint`.
#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rein_checkpoint::{Checkpoints, DEFAULT_CAP_BYTES};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn tree_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| {
            let meta = e.metadata().unwrap();
            if meta.is_dir() {
                tree_size(&e.path())
            } else {
                meta.len()
            }
        })
        .sum()
}

/// Text of about `bytes` bytes whose line `edit` says `edit`.
fn text(bytes: usize, edit: usize) -> String {
    let lines = bytes / 64;
    (0..lines)
        .map(|n| {
            if n == edit % lines {
                format!("{:<63}\n", format!("edited {edit}"))
            } else {
                format!(
                    "{:<63}\n",
                    format!("line {n} of the file, some text to fill it")
                )
            }
        })
        .collect()
}

fn edits(dir: &Path, bytes: usize, count: usize) -> (Vec<Duration>, u64) {
    let store = dir.join(format!("store-{bytes}"));
    let cp = Checkpoints::open(&store, DEFAULT_CAP_BYTES);
    let file: PathBuf = dir.join(format!("file-{bytes}.txt"));
    std::fs::write(&file, text(bytes, 0)).unwrap();
    cp.begin_turn("edit the file").unwrap();
    let paths = [file.clone()];
    let mut costs = Vec::with_capacity(count);
    for n in 1..=count {
        let next = text(bytes, n);
        let started = Instant::now();
        cp.before(&format!("c{n}"), &paths).unwrap();
        let before = started.elapsed();
        std::fs::write(&file, next).unwrap();
        let started = Instant::now();
        cp.after(&format!("c{n}"), &paths).unwrap();
        costs.push(before + started.elapsed());
    }
    (costs, tree_size(&store))
}

fn git(dir: &Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=b",
            "-c",
            "user.email=b@b",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .status()
        .unwrap();
    assert!(status.success());
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let (costs, _) = edits(dir.path(), 1024 * 1024, 51);
    println!(
        "checkpoint cost per edit of a 1 MB file (before + after, median of 51): {:.2} ms",
        median(costs).as_secs_f64() * 1000.0
    );
    for kb in [10, 100] {
        let (_, size) = edits(dir.path(), kb * 1024, 1000);
        println!(
            "store after 1,000 edits of a {kb} KB file: {:.1} MB (each distinct content kept whole)",
            size as f64 / (1024.0 * 1024.0)
        );
    }

    let repo = dir.path().join("repo");
    for n in 0..10_000 {
        let sub = repo.join(format!("src/m{}", n / 100));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(format!("f{n}.rs")), text(21 * 1024, n)).unwrap();
    }
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "files"]);
    // Files changed within a tick of a snapshot are read again by the next one (git's "racy"
    // rule, rein's 2 s margin): a work tree is not all written a moment before a prompt.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let cp =
        Checkpoints::open(&dir.path().join("store-git"), DEFAULT_CAP_BYTES).with_workspace(&repo);
    cp.begin_turn("p").unwrap();
    let started = Instant::now();
    cp.snapshot(rein_checkpoint::TurnEdge::Start).unwrap();
    println!(
        "first git snapshot of the 10,000-file work tree (a new session): {:.1} ms",
        started.elapsed().as_secs_f64() * 1000.0
    );
    let mut snaps = Vec::new();
    for n in 0..7 {
        cp.begin_turn("p").unwrap();
        // A few files changed each turn, as a build or a formatter would.
        for k in 0..10 {
            std::fs::write(
                repo.join(format!("src/m{k}/f{}.rs", k * 100)),
                text(21 * 1024, n * 10 + k + 1),
            )
            .unwrap();
        }
        let started = Instant::now();
        cp.snapshot(rein_checkpoint::TurnEdge::Start).unwrap();
        snaps.push(started.elapsed());
    }
    println!(
        "git snapshot of a 10,000-file, {} MB work tree (10 files changed, median of 7): {:.1} ms",
        tree_size(&repo.join("src")) / (1024 * 1024),
        median(snaps).as_secs_f64() * 1000.0
    );
}
