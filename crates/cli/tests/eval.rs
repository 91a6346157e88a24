//! `rein eval` as a user runs it: task files of real folders and git repositories, the mock
//! as the model, checks run in the sandbox, result files resumed, sliced, merged and compared.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::sandbox::sandbox_ready;
use crate::support::*;

const NAMES: [&str; 6] = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"];

/// Six tasks, each a folder whose `answer.txt` says `wrong`; solved when it says `right`.
fn six_tasks(root: &Path) -> PathBuf {
    let mut lines = String::new();
    for name in NAMES {
        let repo = root.join("repos").join(name);
        std::fs::create_dir_all(&repo).unwrap();
        std::fs::write(repo.join("answer.txt"), "wrong\n").unwrap();
        let task = json!({
            "id": name,
            "repo": format!("repos/{name}"),
            "prompt": format!("Put the right answer in answer.txt for task {name}."),
            "check": "grep -qx right answer.txt",
        });
        lines.push_str(&format!("{task}\n"));
    }
    let tasks = root.join("tasks.jsonl");
    std::fs::write(&tasks, lines).unwrap();
    tasks
}

/// The model: fixes the tasks in `solves` (a write, then an answer: 2,200 tokens in, 150 out),
/// gives up on the others (1,000 in, 100 out).
fn model(solves: &[&str]) -> String {
    let mut turns = Vec::new();
    for name in NAMES {
        let when = format!("for task {name}.");
        if solves.contains(&name) {
            turns.push(json!({"when": when, "tool_calls": [{"name": "write_file",
                "arguments": {"path": "answer.txt", "content": "right\n"}}],
                "usage": {"input_tokens": 1000, "output_tokens": 100}}));
            turns.push(json!({"when": when, "text": "Fixed.",
                "usage": {"input_tokens": 1200, "output_tokens": 50}}));
        } else {
            turns.push(json!({"when": when, "text": "I cannot.",
                "usage": {"input_tokens": 1000, "output_tokens": 100}}));
        }
    }
    json!({ "turns": turns }).to_string()
}

pub(crate) fn eval_cmd(root: &Path, args: &[&str]) -> std::process::Command {
    let mut cmd = rein(root);
    cmd.env("XDG_CACHE_HOME", root.join("cache"));
    cmd.arg("eval").args(args);
    cmd
}

pub(crate) async fn eval(root: &Path, url: &str, args: &[&str]) -> Output {
    let mut all = vec!["--base-url", url];
    all.extend_from_slice(args);
    let out = output(eval_cmd(root, &all)).await;
    assert!(
        out.status.success(),
        "{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    out
}

pub(crate) fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A record without what differs between two runs of the same thing.
fn comparable(mut record: Value) -> Value {
    let object = record.as_object_mut().unwrap();
    object.remove("wall_s");
    object.remove("session_id");
    record
}

/// The summary's `total` row without its time cell.
fn total_row(summary: &str) -> Vec<String> {
    let row = summary.lines().find(|l| l.starts_with("total")).unwrap();
    let cells: Vec<String> = row.split_whitespace().map(str::to_string).collect();
    cells.into_iter().filter(|c| !c.ends_with('s')).collect()
}

#[tokio::test]
async fn four_of_six_solved_with_their_tokens_and_costs() {
    if !sandbox_ready("four_of_six_solved_with_their_tokens_and_costs") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let tasks = six_tasks(root.path());
    let server = mock(&model(&["alpha", "bravo", "delta", "foxtrot"])).await;
    let out_file = root.path().join("results.jsonl");
    let out = eval(
        root.path(),
        &server.url(),
        &[tasks.to_str().unwrap(), "--out", out_file.to_str().unwrap()],
    )
    .await;
    let summary = text(&out.stdout);
    assert!(summary.ends_with("solved 4/6\n"), "{summary}");
    let results = records(&out_file);
    let ids: Vec<&str> = results.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, NAMES, "file order");
    for record in &results {
        let solved =
            ["alpha", "bravo", "delta", "foxtrot"].contains(&record["id"].as_str().unwrap());
        assert_eq!(record["solved"], solved, "{record}");
        assert_eq!(record["ended_by"], "done", "{record}");
        assert_eq!(record["model"], "claude-sonnet-4-5", "{record}");
        assert!(record["session_id"].is_string(), "{record}");
        // Sonnet 4.5: $3 per million tokens in, $15 out.
        let (turns, input, output, cost, tools) = if solved {
            (2, 2200, 150, 0.00885, 1)
        } else {
            (1, 1000, 100, 0.0045, 0)
        };
        assert_eq!(record["turns"], turns, "{record}");
        assert_eq!(record["tool_calls"], tools, "{record}");
        assert_eq!(record["input_tokens"], input, "{record}");
        assert_eq!(record["cached_tokens"], 0, "{record}");
        assert_eq!(record["output_tokens"], output, "{record}");
        let got = record["cost_usd"].as_f64().unwrap();
        assert!((got - cost).abs() < 1e-9, "{record}");
        assert_eq!(
            record["check"],
            if solved { "passed" } else { "failed" },
            "{record}"
        );
    }
    assert_eq!(
        total_row(&summary),
        ["total", "4/6", "10", "4", "10800", "0", "800", "$0.0444"],
        "{summary}"
    );
    // The copies are gone; the task folders are as they were.
    for name in NAMES {
        let answer = root.path().join("repos").join(name).join("answer.txt");
        assert_eq!(std::fs::read_to_string(answer).unwrap(), "wrong\n");
    }
    assert!(text(&out.stderr).contains("rein eval: alpha #1 solved (done, 2 turns"));
}

#[tokio::test]
async fn jobs_4_give_the_same_results_as_jobs_1() {
    if !sandbox_ready("jobs_4_give_the_same_results_as_jobs_1") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let tasks = six_tasks(root.path());
    let solves = ["alpha", "charlie", "echo"];
    let mut results = Vec::new();
    for jobs in ["1", "4"] {
        let server = mock(&model(&solves)).await;
        let out_file = root.path().join(format!("jobs-{jobs}.jsonl"));
        let args = [
            tasks.to_str().unwrap(),
            "--jobs",
            jobs,
            "--out",
            out_file.to_str().unwrap(),
        ];
        eval(root.path(), &server.url(), &args).await;
        results.push(
            records(&out_file)
                .into_iter()
                .map(comparable)
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(results[0], results[1]);
    assert_eq!(results[0].len(), 6);
}

#[tokio::test]
async fn a_second_run_resumes_and_skips_the_runs_already_done() {
    if !sandbox_ready("a_second_run_resumes_and_skips_the_runs_already_done") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let tasks = six_tasks(root.path());
    let out_file = root.path().join("results.jsonl");
    let all = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"];
    let first = mock(&model(&all)).await;
    let args = [tasks.to_str().unwrap(), "--out", out_file.to_str().unwrap()];
    eval(root.path(), &first.url(), &args).await;
    let complete = records(&out_file);
    // As if the first run had been cut off after three tasks, in the middle of a line.
    let kept: Vec<String> = complete[..3].iter().map(Value::to_string).collect();
    std::fs::write(&out_file, format!("{}\n{{\"id\": \"del", kept.join("\n"))).unwrap();
    let second = mock(&model(&all)).await;
    let out = eval(root.path(), &second.url(), &args).await;
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("3 runs of 6 tasks to do (3 already in"),
        "{stderr}"
    );
    assert!(stderr.contains("unfinished line"), "{stderr}");
    // Only delta, echo and foxtrot asked the model: two requests each.
    let asked: Vec<String> = second
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    assert_eq!(asked.len(), 6);
    for name in ["alpha", "bravo", "charlie"] {
        assert!(
            !asked
                .iter()
                .any(|b| b.contains(&format!("for task {name}.")))
        );
    }
    let resumed: Vec<Value> = records(&out_file).into_iter().map(comparable).collect();
    let expected: Vec<Value> = complete.into_iter().map(comparable).collect();
    assert_eq!(resumed, expected);
    assert!(text(&out.stdout).ends_with("solved 6/6\n"));
}

#[tokio::test]
async fn three_shards_merge_into_the_totals_of_one_run() {
    if !sandbox_ready("three_shards_merge_into_the_totals_of_one_run") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let tasks = six_tasks(root.path());
    let solves = ["bravo", "charlie", "foxtrot"];
    let whole = root.path().join("whole.jsonl");
    let server = mock(&model(&solves)).await;
    let one = eval(
        root.path(),
        &server.url(),
        &[tasks.to_str().unwrap(), "--out", whole.to_str().unwrap()],
    )
    .await;
    let mut shards = Vec::new();
    for (i, solved) in [(1, "0/2"), (2, "1/2"), (3, "2/2")] {
        let server = mock(&model(&solves)).await;
        let file = root.path().join(format!("shard-{i}.jsonl"));
        let shard = format!("{i}/3");
        let args = [
            tasks.to_str().unwrap(),
            "--shard",
            &shard,
            "--out",
            file.to_str().unwrap(),
        ];
        let out = eval(root.path(), &server.url(), &args).await;
        let summary = text(&out.stdout);
        assert!(
            summary.ends_with(&format!("solved {solved}\n")),
            "{summary}"
        );
        shards.push(file.to_str().unwrap().to_string());
    }
    let ids: Vec<Value> = records(Path::new(&shards[0]))
        .iter()
        .map(|r| r["id"].clone())
        .collect();
    assert_eq!(ids, ["alpha", "delta"], "tasks 0 and 3 are slice 1 of 3");
    let mut report = eval_cmd(root.path(), &["report"]);
    report.args(&shards);
    let merged = output(report).await;
    assert!(merged.status.success(), "{}", text(&merged.stderr));
    let (merged, one) = (text(&merged.stdout), text(&one.stdout));
    assert_eq!(total_row(&merged), total_row(&one), "{merged}\n{one}");
    assert!(merged.ends_with("solved 3/6\n"), "{merged}");
}

#[tokio::test]
async fn compare_shows_per_task_which_file_solved_it() {
    if !sandbox_ready("compare_shows_per_task_which_file_solved_it") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let tasks = six_tasks(root.path());
    let mut files = Vec::new();
    for (name, solves) in [
        ("a", &["alpha", "bravo"][..]),
        ("b", &["bravo", "charlie", "delta"][..]),
    ] {
        let server = mock(&model(solves)).await;
        let file = root.path().join(format!("{name}.jsonl"));
        let args = [tasks.to_str().unwrap(), "--out", file.to_str().unwrap()];
        eval(root.path(), &server.url(), &args).await;
        files.push(file.to_str().unwrap().to_string());
    }
    let out = output(eval_cmd(root.path(), &["compare", &files[0], &files[1]])).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    let row = |id: &str| -> Vec<String> {
        let line = table
            .lines()
            .find(|l| l.split_whitespace().next() == Some(id))
            .unwrap();
        line.split_whitespace().map(str::to_string).collect()
    };
    assert_eq!(row("alpha"), ["alpha", "1/1", "0/1", "worse"], "{table}");
    assert_eq!(row("bravo"), ["bravo", "1/1", "1/1"], "{table}");
    assert_eq!(
        row("charlie"),
        ["charlie", "0/1", "1/1", "better"],
        "{table}"
    );
    assert_eq!(row("solved"), ["solved", "2/6", "3/6"], "{table}");
}
