//! `apply_patch` against portable scenario suites: the peers' conformance suite in
//! `../shared/conformance/apply-patch` (skipped with a message when absent) and our own in
//! `tests/fixtures/apply-patch`. A case passes when the whole tree after the patch equals
//! `expected/` byte for byte, whether the tool succeeded or refused.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::support::Workspace;

/// Every file under `dir`, by path relative to it.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&next) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in files(from) {
        let dest = to.join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::write(dest, bytes).unwrap();
    }
}

/// Runs every case folder under `suite`; returns the names of the failures with why.
async fn run_suite(suite: &Path) -> (usize, Vec<String>) {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(suite)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("patch.txt").is_file())
        .collect();
    cases.sort();
    let mut failures = Vec::new();
    for case in &cases {
        let ws = Workspace::new();
        copy_tree(&case.join("input"), &ws.root);
        let patch = std::fs::read_to_string(case.join("patch.txt")).unwrap();
        let out = ws.call("apply_patch", json!({"patch": patch})).await;
        let got = files(&ws.root);
        let want = files(&case.join("expected"));
        if got != want {
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            let show = |m: &BTreeMap<String, Vec<u8>>| -> Vec<(String, String)> {
                m.iter()
                    .map(|(k, v)| (k.clone(), String::from_utf8_lossy(v).into_owned()))
                    .collect()
            };
            failures.push(format!(
                "{name}: tool said {:?}\n  got:  {:?}\n  want: {:?}",
                out.text,
                show(&got),
                show(&want)
            ));
        }
    }
    (cases.len(), failures)
}

#[tokio::test]
async fn the_shared_conformance_suite_passes() {
    let suite = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/conformance/apply-patch/scenarios");
    if !suite.is_dir() {
        eprintln!(
            "skipped: the shared apply-patch conformance suite is not at {}",
            suite.display()
        );
        return;
    }
    let (count, failures) = run_suite(&suite).await;
    assert!(
        failures.is_empty(),
        "{} of {count} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(count >= 23, "only {count} cases found");
}

#[tokio::test]
async fn our_own_scenarios_pass() {
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/apply-patch");
    let (count, failures) = run_suite(&suite).await;
    assert!(
        failures.is_empty(),
        "{} of {count} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(count >= 10, "only {count} cases found");
}
