//! The task board with 1,000 tasks on disk: each operation (create, get, list, update with a
//! dependency, claim, complete) from the call to the files in place. Budget ≤ 1 ms per
//! operation (median). Run with `cargo bench -p rein-board --bench board`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use rein_board::{Board, NewTask, SetStatus, TaskChange};
use rein_protocol::TaskStatus;

const TASKS: usize = 1_000;
const BUDGET: Duration = Duration::from_millis(1);

fn median(mut times: Vec<Duration>) -> (Duration, Duration) {
    times.sort();
    (times[times.len() / 2], times[times.len() * 9 / 10])
}

fn time<R>(f: impl FnOnce() -> R) -> (Duration, R) {
    let started = Instant::now();
    let out = f();
    (started.elapsed(), out)
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let board = Board::open(&dir.path().join("tasks")).unwrap();
    let mut over = false;
    let mut report = |what: &str, times: Vec<Duration>| {
        let (median, p90) = median(times);
        println!("{what}: median {median:.3?}, p90 {p90:.3?} (budget {BUDGET:?})");
        over |= median > BUDGET;
    };
    let creates: Vec<Duration> = (0..TASKS)
        .map(|n| {
            let new = NewTask {
                subject: format!("task {n}"),
                description: "x".repeat(200),
                ..NewTask::default()
            };
            time(|| board.create(new).unwrap()).0
        })
        .collect();
    report(&format!("create (up to {TASKS} tasks)"), creates);
    let gets = (1..=200).map(|n| time(|| board.get(&(n * 5).to_string()).unwrap()).0);
    report("get", gets.collect());
    let lists = (0..50).map(|_| time(|| board.list().len()).0);
    report(&format!("list ({TASKS} tasks)"), lists.collect());
    let readies = (0..50).map(|_| time(|| board.ready().len()).0);
    report(&format!("ready ({TASKS} tasks)"), readies.collect());
    let links = (2..=201).map(|n: usize| {
        let change = TaskChange {
            add_blocked_by: vec![(n - 1).to_string()],
            ..TaskChange::default()
        };
        time(|| board.update(&n.to_string(), change, "main").unwrap()).0
    });
    report("update: add a dependency (cycle check)", links.collect());
    let claims = (0..200).map(|_| time(|| board.claim("bench").unwrap()).0);
    report("claim", claims.collect());
    let completes = (202..=401).map(|n: usize| {
        let change = TaskChange {
            status: Some(SetStatus::To(TaskStatus::Completed)),
            ..TaskChange::default()
        };
        time(|| board.update(&n.to_string(), change, "bench").unwrap()).0
    });
    report("update: complete", completes.collect());
    let (open, reopened) = time(|| Board::open(&dir.path().join("tasks")).unwrap());
    println!("open ({} tasks on disk): {open:.3?}", reopened.list().len());
    if over {
        println!("OVER BUDGET");
        std::process::exit(1);
    }
}
