//! Subagents against the mock server: what starting one costs before its first request
//! (budget ≤ 5 ms), four in parallel against one alone, each three mock turns of 0.5 s
//! (budget ≤ 1.3×), and the memory each running subagent adds (budget ≤ 2 MB RSS).
//! Run with `cargo bench -p rein-engine --bench subagents`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use rein_engine::subagents::{Subagents, built_in};
use rein_engine::{Agent, AgentConfig};
use rein_llm::{ProviderConfig, ProviderKind};
use rein_policy::PermissionMode;
use rein_protocol::Event;
use rein_testkit::{MockServer, Scenario};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const SETUP_BUDGET: Duration = Duration::from_millis(5);
const PARALLEL_BUDGET: f64 = 1.3;
const RSS_BUDGET: u64 = 2 * 1024 * 1024;
const SETUP_ROUNDS: usize = 30;
const TURN_DELAY_MS: u64 = 500;

/// The parent's first turn calls `task` `n` times; each subagent takes `turns` turns (tool
/// calls, then an answer) of `delay_ms` each; then the parent answers.
fn scenario(n: usize, turns: usize, delay_ms: u64) -> Scenario {
    let calls: Vec<_> = (0..n)
        .map(|i| {
            json!({"name": "task", "arguments":
                {"description": format!("job {i}"), "prompt": format!("do job {i}")}})
        })
        .collect();
    let mut all = vec![json!({ "tool_calls": calls })];
    for turn in 0..turns {
        for _ in 0..n {
            let mut sub = json!({"when": "You are a subagent of rein", "delay_ms": delay_ms});
            if turn + 1 < turns {
                sub["tool_calls"] = json!([{"name": "glob", "arguments": {"pattern": "*.txt"}}]);
            } else {
                sub["text"] = json!("job done");
            }
            all.push(sub);
        }
    }
    all.push(json!({"text": "all done"}));
    Scenario::from_json(&json!({ "turns": all }).to_string()).unwrap()
}

struct Timed {
    /// Each event with when it arrived.
    events: Vec<(Instant, Event)>,
    wall: Duration,
    /// Resident memory sampled while the subagents waited on their first turn, and before.
    rss_during: u64,
    rss_before: u64,
}

async fn run(n: usize, turns: usize, delay_ms: u64) -> Timed {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    let server = MockServer::start(scenario(n, turns, delay_ms))
        .await
        .unwrap();
    let mut provider = ProviderConfig::new(
        ProviderKind::Anthropic,
        server.url(),
        Some("bench-key".into()),
        "BENCH_KEY",
    );
    provider.retry.base_delay = Duration::from_millis(1);
    let mut config = AgentConfig::new("claude-sonnet-4-5", dir.path().to_path_buf());
    config.policy.mode = PermissionMode::Bypass;
    config.subagents = Some(Subagents::new(built_in(None)));
    let mut agent = Agent::new(
        rein_llm::connect(provider),
        rein_tools::ToolRegistry::builtin(),
        config,
    )
    .unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let collector = tokio::spawn(async move {
        let mut events = Vec::new();
        let mut rss_during = 0;
        let mut started = 0;
        while let Some(event) = rx.recv().await {
            if let Event::Subagent { event: inner, .. } = &event
                && matches!(inner.as_ref(), Event::TurnStart { turn: 1 })
            {
                started += 1;
                if started == n {
                    // Every subagent is waiting on its first answer now.
                    tokio::time::sleep(Duration::from_millis(delay_ms / 2)).await;
                    rss_during = rss();
                }
            }
            events.push((Instant::now(), event));
        }
        (events, rss_during)
    });
    let rss_before = rss();
    let started = Instant::now();
    let summary = agent.run("go", &tx, CancellationToken::new()).await;
    let wall = started.elapsed();
    drop(tx);
    assert_eq!(summary.text, "all done", "{summary:?}");
    let (events, rss_during) = collector.await.unwrap();
    Timed {
        events,
        wall,
        rss_during,
        rss_before,
    }
}

/// From the first `task` call's start to its subagent's first request.
fn setup_time(timed: &Timed) -> Duration {
    let start = timed
        .events
        .iter()
        .find(|(_, e)| matches!(e, Event::ToolCallStart { name, .. } if name == "task"))
        .map(|(at, _)| *at)
        .unwrap();
    let first_request = timed
        .events
        .iter()
        .find(|(_, e)| {
            matches!(e, Event::Subagent { event, .. }
                if matches!(event.as_ref(), Event::TurnStart { .. }))
        })
        .map(|(at, _)| *at)
        .unwrap();
    first_request - start
}

/// From the first `task` call's start to the last one's end.
fn tasks_time(timed: &Timed) -> Duration {
    let at = |pick: fn(&Event) -> bool| {
        timed
            .events
            .iter()
            .filter(|(_, e)| pick(e))
            .map(|(at, _)| *at)
            .collect::<Vec<_>>()
    };
    let starts = at(|e| matches!(e, Event::ToolCallStart { name, .. } if name == "task"));
    let ends = at(|e| matches!(e, Event::ToolCallEnd { name, .. } if name == "task"));
    *ends.iter().max().unwrap() - *starts.iter().min().unwrap()
}

/// This process's resident memory in bytes.
fn rss() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut over = false;
        // Warm-up: the first run pays for lazily built tables (tokenizer, schemas).
        run(1, 1, 0).await;
        let mut setups: Vec<Duration> = Vec::new();
        for _ in 0..SETUP_ROUNDS {
            setups.push(setup_time(&run(1, 1, 0).await));
        }
        setups.sort();
        let setup = setups[SETUP_ROUNDS / 2];
        println!(
            "subagent start to first request: median {setup:.2?}, p90 {:.2?} (budget {SETUP_BUDGET:?})",
            setups[SETUP_ROUNDS * 9 / 10]
        );
        over |= setup > SETUP_BUDGET;

        let one = run(1, 3, TURN_DELAY_MS).await;
        let four = run(4, 3, TURN_DELAY_MS).await;
        let (t1, t4) = (tasks_time(&one), tasks_time(&four));
        let ratio = t4.as_secs_f64() / t1.as_secs_f64();
        println!(
            "one subagent (3 turns of {TURN_DELAY_MS} ms): {t1:.2?}; four in parallel: {t4:.2?} \
             ({ratio:.3}x, budget {PARALLEL_BUDGET}x); whole runs {:.2?} / {:.2?}",
            one.wall, four.wall
        );
        over |= ratio > PARALLEL_BUDGET;

        let per = four.rss_during.saturating_sub(four.rss_before) / 4;
        println!(
            "resident memory: {:.1} MB before, {:.1} MB with four subagents waiting: {:.2} MB each \
             (budget {} MB)",
            four.rss_before as f64 / 1e6,
            four.rss_during as f64 / 1e6,
            per as f64 / 1e6,
            RSS_BUDGET / (1024 * 1024)
        );
        over |= per > RSS_BUDGET;
        if over {
            eprintln!("OVER BUDGET");
            std::process::exit(1);
        }
    });
}
