//! Teams and worktrees: starting a teammate, from its `task` call to its first request
//! (budget ≤ 10 ms, the model excluded); the resident memory an idle teammate keeps (budget
//! ≤ 1 MB); and making a worktree of a 10,000-file repository, with git's own share.
//! Run with `cargo bench -p rein-engine --bench team`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::time::{Duration, Instant};

use rein_engine::subagents::{Subagents, built_in};
use rein_engine::{Agent, AgentConfig};
use rein_llm::{ProviderConfig, ProviderKind};
use rein_policy::PermissionMode;
use rein_protocol::Event;
use rein_testkit::{MockServer, Scenario};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const START_BUDGET: Duration = Duration::from_millis(10);
const IDLE_RSS_BUDGET: u64 = 1024 * 1024;
const ROUNDS: usize = 30;
const IDLE_TEAMMATES: usize = 16;
const FILES: usize = 10_000;

/// The lead starts `n` teammates in one reply; each answers once and goes idle; the lead
/// answers every idle notice.
fn scenario(n: usize) -> Scenario {
    let calls: Vec<_> = (0..n)
        .map(|i| {
            json!({"name": "task", "arguments":
                {"description": "wait", "prompt": "Wait for work.", "name": format!("t{i}")}})
        })
        .collect();
    let mut turns = vec![json!({ "tool_calls": calls }), json!({"text": "started"})];
    for _ in 0..n {
        turns.push(json!({"when_last": "Wait for work.", "text": "ready"}));
    }
    for _ in 0..n * 2 {
        turns.push(json!({"when_last": "is idle", "text": "noted"}));
    }
    Scenario::from_json(&json!({ "turns": turns }).to_string()).unwrap()
}

async fn lead(server: &MockServer, dir: &Path) -> Agent {
    let mut provider = ProviderConfig::new(
        ProviderKind::Anthropic,
        server.url(),
        Some("bench-key".into()),
        "BENCH_KEY",
    );
    provider.retry.base_delay = Duration::from_millis(1);
    let mut config = AgentConfig::new("claude-sonnet-4-5", dir.to_path_buf());
    config.policy.mode = PermissionMode::Bypass;
    let mut subagents = Subagents::new(built_in(None));
    subagents.max_teammates = IDLE_TEAMMATES;
    config.subagents = Some(subagents);
    Agent::new(
        rein_llm::connect(provider),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap()
}

/// Runs the lead with `n` teammates; the events with their times, and the lead (whose
/// teammates are still alive, idle).
async fn run(n: usize, dir: &Path) -> (Vec<(Instant, Event)>, Agent, MockServer) {
    let server = MockServer::start(scenario(n)).await.unwrap();
    let mut agent = lead(&server, dir).await;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let collector = {
        let seen = std::sync::Arc::clone(&seen);
        tokio::spawn(async move {
            while let Some(event) = rx.recv().await {
                seen.lock().unwrap().push((Instant::now(), event));
            }
        })
    };
    let summary = agent.run("go", &tx, CancellationToken::new()).await;
    assert!(summary.error.is_none(), "{summary:?}");
    drop(tx);
    // The teammates' forwarders keep the channel open: take what came so far.
    tokio::time::sleep(Duration::from_millis(50)).await;
    collector.abort();
    let events = std::mem::take(&mut *seen.lock().unwrap());
    (events, agent, server)
}

fn start_time(events: &[(Instant, Event)]) -> Option<Duration> {
    let start = events
        .iter()
        .find(|(_, e)| matches!(e, Event::ToolCallStart { name, .. } if name == "task"))?
        .0;
    let first = events
        .iter()
        .find(|(_, e)| {
            matches!(e, Event::Subagent { event, .. } if matches!(event.as_ref(), Event::TurnStart { .. }))
        })?
        .0;
    Some(first - start)
}

fn rss() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = (statm.split_whitespace().nth(1))
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

fn git(dir: &Path, args: &[&str]) {
    rein_testkit::git(dir, args);
}

/// A repository of `FILES` committed files; the time `worktree::create` takes on it, and
/// what `git worktree add` alone takes.
fn worktree_times() -> (Duration, Duration) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    git(repo, &["init", "-q", "-b", "main"]);
    for n in 0..FILES {
        let sub = repo.join(format!("d{}", n % 100));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(format!("f{n}.txt")), format!("file {n}\n")).unwrap();
    }
    git(repo, &["add", "."]);
    git(
        repo,
        &[
            "-c",
            "user.name=b",
            "-c",
            "user.email=b@b",
            "commit",
            "-q",
            "-m",
            "files",
        ],
    );
    // Plain git before and after ours, so neither gets a warmer page cache than the other.
    let plain = |name: &str| {
        let path = repo.join(name);
        let started = Instant::now();
        git(
            repo,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                name,
                &path.to_string_lossy(),
                "HEAD",
            ],
        );
        started.elapsed()
    };
    let first = plain("plain-1");
    let started = Instant::now();
    let tree = rein_engine::worktree::create(repo, "bench", Default::default()).unwrap();
    let ours = started.elapsed();
    assert!(tree.path.join("d0/f0.txt").exists());
    let second = plain("plain-2");
    (ours, (first + second) / 2)
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut over = false;
    runtime.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        // Warm-up: lazily built tables (schemas, the HTTP client).
        run(1, dir.path()).await;
        let mut starts: Vec<Duration> = Vec::new();
        for _ in 0..ROUNDS {
            let (events, agent, _server) = run(1, dir.path()).await;
            starts.extend(start_time(&events));
            drop(agent);
        }
        starts.sort();
        let median = starts[starts.len() / 2];
        println!(
            "teammate start to its first request: median {median:.2?}, p90 {:.2?} (budget \
             {START_BUDGET:?})",
            starts[starts.len() * 9 / 10]
        );
        over |= median > START_BUDGET;

        let before = rss();
        let (_, agent, _server) = run(IDLE_TEAMMATES, dir.path()).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let after = rss();
        let per = after.saturating_sub(before) / IDLE_TEAMMATES as u64;
        println!(
            "resident memory: {:.1} MB before, {:.1} MB with {IDLE_TEAMMATES} idle teammates: \
             {:.0} KB each (budget {} KB)",
            before as f64 / 1e6,
            after as f64 / 1e6,
            per as f64 / 1e3,
            IDLE_RSS_BUDGET / 1024
        );
        over |= per > IDLE_RSS_BUDGET;
        drop(agent);
    });
    let (ours, plain) = worktree_times();
    println!(
        "worktree of a {FILES}-file repository: {ours:.1?} (git worktree add alone, mean of one \
         before and one after: {plain:.1?}, {:.0}% of it)",
        100.0 * plain.as_secs_f64() / ours.as_secs_f64()
    );
    if over {
        println!("OVER BUDGET");
        std::process::exit(1);
    }
}
