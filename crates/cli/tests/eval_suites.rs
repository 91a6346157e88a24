//! Task sets made from real bugs: the built-in suite (`eval/suite`) and a SWE-bench-style
//! dataset converted by `scripts/eval/swebench-to-tasks`.
#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment

use std::path::Path;

use serde_json::json;

use crate::eval::{eval, records};
use crate::sandbox::sandbox_ready;
use crate::support::*;

/// The programs the built-in suite's checks run.
fn suite_programs_ready(test: &str) -> bool {
    for program in ["python3", "node", "cargo"] {
        let found = std::process::Command::new(program)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            rein_testkit::skip(test, &format!("{program} is not installed"));
            return false;
        }
    }
    sandbox_ready(test)
}

#[tokio::test]
async fn the_builtin_suite_is_solved_by_the_upstream_fixes_and_not_without_them() {
    let test = "the_builtin_suite_is_solved_by_the_upstream_fixes_and_not_without_them";
    if !suite_programs_ready(test) {
        return;
    }
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../eval/suite");
    let tasks = suite.join("tasks.jsonl");
    let count = std::fs::read_to_string(&tasks).unwrap().lines().count();
    let root = tempfile::tempdir().unwrap();
    // The scripted model applies each task's upstream fix (eval/suite/mock.json).
    let fixes = std::fs::read_to_string(suite.join("mock.json")).unwrap();
    let server = mock(&fixes).await;
    let file = root.path().join("fixed.jsonl");
    let args = [
        tasks.to_str().unwrap(),
        "--out",
        file.to_str().unwrap(),
        "--jobs",
        "2",
    ];
    let out = eval(root.path(), &server.url(), &args).await;
    let summary = text(&out.stdout);
    assert!(
        summary.ends_with(&format!("solved {count}/{count}\n")),
        "{summary}"
    );
    // A model that changes nothing solves none: every check sees its bug.
    let nothing = json!({"turns": vec![json!({"text": "No idea."}); count]}).to_string();
    let server = mock(&nothing).await;
    let file = root.path().join("nothing.jsonl");
    let args = [
        tasks.to_str().unwrap(),
        "--out",
        file.to_str().unwrap(),
        "--jobs",
        "2",
    ];
    let out = eval(root.path(), &server.url(), &args).await;
    let summary = text(&out.stdout);
    assert!(
        summary.ends_with(&format!("solved 0/{count}\n")),
        "{summary}"
    );
    for record in records(&file) {
        assert_eq!(record["check"], "failed", "{record}");
    }
}

/// A SWE-bench-shaped instance of a local repository `acme/calc` whose `add` subtracts; its
/// test patch adds the test that catches it to the existing test file.
fn swebench_instance(mirrors: &Path) -> serde_json::Value {
    let repo = mirrors.join("acme/calc.git");
    std::fs::create_dir_all(&repo).unwrap();
    crate::eval_runs::git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("calc.py"), "def add(a, b):\n    return a - b\n").unwrap();
    let old_test = "import unittest\n\nimport calc\n\n\nclass Calc(unittest.TestCase):\n    def test_exists(self):\n        self.assertTrue(calc.add)\n";
    std::fs::write(repo.join("test_calc.py"), old_test).unwrap();
    crate::eval_runs::git(&repo, &["add", "."]);
    crate::eval_runs::git(&repo, &["commit", "-qm", "base"]);
    let base = std::process::Command::new("git")
        .arg("-C")
        .arg(&repo)
        .args(["rev-parse", "HEAD"])
        .output()
        .unwrap();
    let new_test = format!(
        "{old_test}\n    def test_add(self):\n        self.assertEqual(calc.add(2, 3), 5)\n"
    );
    std::fs::write(repo.join("test_calc.py"), new_test).unwrap();
    let patch = std::process::Command::new("git")
        .arg("-C")
        .arg(&repo)
        .arg("diff")
        .output()
        .unwrap();
    crate::eval_runs::git(&repo, &["checkout", "-q", "--", "test_calc.py"]);
    json!({
        "instance_id": "acme__calc-1",
        "repo": "acme/calc",
        "base_commit": text(&base.stdout).trim(),
        "problem_statement": "calc.add subtracts instead of adding (acme calc instance).",
        "hints_text": "",
        "test_patch": text(&patch.stdout),
        "FAIL_TO_PASS": "[\"test_calc\"]",
        "PASS_TO_PASS": "[]",
    })
}

#[tokio::test]
async fn a_swebench_instance_converts_to_a_task_whose_check_applies_the_test_patch() {
    let test = "a_swebench_instance_converts_to_a_task_whose_check_applies_the_test_patch";
    if !suite_programs_ready(test) {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let mirrors = root.path().join("mirrors");
    let dataset = root.path().join("lite.jsonl");
    std::fs::write(&dataset, format!("{}\n", swebench_instance(&mirrors))).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/eval/swebench-to-tasks");
    let converted = std::process::Command::new("python3")
        .arg(&script)
        .arg(&dataset)
        .arg("--repo-base")
        .arg(format!("file://{}/", mirrors.display()))
        .args([
            "--test-cmd",
            "python3 -m unittest -q {tests}",
            "--timeout",
            "120",
        ])
        .output()
        .unwrap();
    assert!(converted.status.success(), "{}", text(&converted.stderr));
    let tasks = root.path().join("tasks.jsonl");
    std::fs::write(&tasks, &converted.stdout).unwrap();
    let task: serde_json::Value = serde_json::from_slice(&converted.stdout).unwrap();
    assert_eq!(task["id"], "acme__calc-1");
    // Both models empty the test file, as a model gaming the check might: the check puts it
    // back before the test patch applies. Only the first also fixes `add`.
    let tamper =
        json!({"name": "write_file", "arguments": {"path": "test_calc.py", "content": "\n"}});
    let fix = json!({"name": "edit_file", "arguments": {"path": "calc.py",
        "old_string": "a - b", "new_string": "a + b"}});
    for (calls, solved) in [(vec![tamper.clone(), fix], true), (vec![tamper], false)] {
        let server =
            mock(&json!({"turns": [{"tool_calls": calls}, {"text": "Done."}]}).to_string()).await;
        let file = root.path().join(format!("r-{solved}.jsonl"));
        let args = [tasks.to_str().unwrap(), "--out", file.to_str().unwrap()];
        eval(root.path(), &server.url(), &args).await;
        let record = &records(&file)[0];
        assert_eq!(record["solved"], solved, "{record}");
        assert_eq!(record["tool_calls"], if solved { 2 } else { 1 }, "{record}");
    }
}
