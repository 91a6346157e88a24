//! Check-then-use races: while the file tools run, another thread keeps exchanging a workspace
//! file or folder with a symlink that leads out (`renameat2` with `RENAME_EXCHANGE`, as an
//! attacker's process would). The guard may see either; whatever it saw, no call may read the
//! outside secret or change anything outside.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use nix::fcntl::{AT_FDCWD, RenameFlags, renameat2};
use serde_json::{Value, json};

use crate::support::Workspace;

/// Calls per test: enough for the old path-based tools to escape many times over.
const CALLS: usize = 3_000;
/// On a busy machine the swapper can keep the path on the wrong side of the guard for most
/// calls; calls go on past [`CALLS`], up to this many, until one reaches the open.
const MAX_CALLS: usize = 30_000;
const SECRET: &str = "RACE-SECRET-51c9";

/// A thread exchanging two names in a folder until dropped.
struct Swapper {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<u64>>,
}

impl Swapper {
    fn start(dir: &Path, a: &str, b: &str) -> Self {
        let (a, b) = (dir.join(a), dir.join(b));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = std::thread::spawn({
            let stop = Arc::clone(&stop);
            move || {
                let mut swaps = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    renameat2(AT_FDCWD, &a, AT_FDCWD, &b, RenameFlags::RENAME_EXCHANGE).unwrap();
                    swaps += 1;
                }
                swaps
            }
        });
        Self {
            stop,
            thread: Some(thread),
        }
    }

    /// Stops the thread; how many exchanges it made.
    fn stop(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().unwrap().join().unwrap()
    }
}

impl Drop for Swapper {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Every file below `dir` with its contents, sorted.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push((path.clone(), std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

/// A workspace with `d/f.txt` (holding `inside`) and `dbait`, a symlink to the outside folder,
/// which holds `f.txt` with the secret.
fn folder_tree(inside: &str) -> Workspace {
    let ws = Workspace::new();
    ws.write("d/f.txt", inside);
    std::fs::write(ws.outside.join("f.txt"), format!("alpha\n{SECRET}\n")).unwrap();
    std::os::unix::fs::symlink(&ws.outside, ws.root.join("dbait")).unwrap();
    ws
}

/// How the calls of one run ended.
struct Tally {
    /// Calls that succeeded.
    succeeded: usize,
    /// Calls refused at the open because a symlink had been swapped in after the check.
    caught: usize,
}

impl Tally {
    /// Whether any call got past the guard to the open, where the race is.
    fn reached_the_open(&self) -> bool {
        self.succeeded + self.caught > 0
    }
}

/// Runs `CALLS` calls of `tool` (arguments by call number) while `a` and `b` in the workspace
/// are exchanged; no result shows the secret and the outside folder is as it was.
async fn nothing_escapes(
    ws: &Workspace,
    (a, b): (&str, &str),
    tool: &str,
    args: impl Fn(usize) -> Value,
) -> Tally {
    let before = snapshot(&ws.outside);
    let swapper = Swapper::start(&ws.root, a, b);
    let mut tally = Tally {
        succeeded: 0,
        caught: 0,
    };
    let mut calls = 0;
    while calls < CALLS || (!tally.reached_the_open() && calls < MAX_CALLS) {
        let i = calls;
        calls += 1;
        let out = ws.call(tool, args(i)).await;
        assert!(
            !out.text.contains(SECRET),
            "{tool} call {i} showed the outside secret: {}",
            out.text
        );
        tally.succeeded += usize::from(!out.is_error);
        tally.caught += usize::from(out.text.contains("the path changed"));
    }
    let swaps = swapper.stop();
    eprintln!(
        "{tool}: {calls} calls, {} succeeded, {} caught mid-swap; {swaps} swaps",
        tally.succeeded, tally.caught
    );
    assert!(swaps > 0, "the swapper never ran");
    assert_eq!(
        snapshot(&ws.outside),
        before,
        "{tool} changed the outside folder"
    );
    assert!(
        tally.reached_the_open(),
        "{tool}: no call got past the guard"
    );
    tally
}

const FOLDERS: (&str, &str) = ("d", "dbait");

#[tokio::test]
async fn read_file_never_returns_an_outside_file_swapped_in_for_a_workspace_file() {
    let ws = Workspace::new();
    ws.write("victim.txt", "inside\n");
    std::fs::write(ws.outside.join("secret.txt"), SECRET).unwrap();
    std::os::unix::fs::symlink(ws.outside.join("secret.txt"), ws.root.join("bait")).unwrap();
    let args = |_| json!({"path": "victim.txt"});
    nothing_escapes(&ws, ("victim.txt", "bait"), "read_file", args).await;
}

#[tokio::test]
async fn read_file_never_reads_through_a_folder_swapped_for_a_symlink() {
    let ws = folder_tree("alpha\n");
    nothing_escapes(&ws, FOLDERS, "read_file", |_| json!({"path": "d/f.txt"})).await;
}

#[tokio::test]
async fn write_file_never_writes_through_a_folder_swapped_for_a_symlink() {
    let ws = folder_tree("alpha\n");
    nothing_escapes(
        &ws,
        FOLDERS,
        "write_file",
        |i| json!({"path": "d/f.txt", "content": format!("written {i}\n")}),
    )
    .await;
}

#[tokio::test]
async fn edit_file_never_edits_through_a_folder_swapped_for_a_symlink() {
    let ws = folder_tree("alpha\n");
    // "alpha" is in the file after every edit, and in the outside file too: each call that got
    // through would succeed, wherever it read.
    nothing_escapes(
        &ws,
        FOLDERS,
        "edit_file",
        |_| json!({"path": "d/f.txt", "old_string": "alpha", "new_string": "alpha+"}),
    )
    .await;
}

#[tokio::test]
async fn apply_patch_never_patches_through_a_folder_swapped_for_a_symlink() {
    let ws = folder_tree("alpha\n");
    nothing_escapes(&ws, FOLDERS, "apply_patch", |i| {
        let (old, new) = if i % 2 == 0 {
            ("alpha", "beta")
        } else {
            ("beta", "alpha")
        };
        let patch = format!(
            "*** Begin Patch\n*** Update File: d/f.txt\n@@\n-{old}\n+{new}\n*** Add File: \
             d/new-{i}.txt\n+new\n*** End Patch\n"
        );
        json!({ "patch": patch })
    })
    .await;
}
