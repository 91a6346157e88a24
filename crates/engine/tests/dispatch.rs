//! Concurrent dispatch: read-only calls overlap, mutating calls run alone, results keep call
//! order, each call has its own timeout.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use pretty_assertions::assert_eq;
use rein_engine::{Agent, AgentConfig, DispatchLimits};
use rein_llm::ProviderKind;
use rein_protocol::{ContentBlock, RunOutcome};
use rein_tools::{Effect, ToolContext, ToolOutput, ToolRegistry, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use crate::support::*;

/// When each probe call ran.
#[derive(Debug, Clone)]
struct Span {
    label: String,
    start: Instant,
    end: Instant,
}

type Log = Arc<Mutex<Vec<Span>>>;

/// Arguments of `probe`.
#[derive(Deserialize, JsonSchema)]
struct ProbeArgs {
    /// Name to log and return.
    label: String,
    /// How long to take.
    ms: u64,
    /// Whether the call declares itself read-only.
    read_only: bool,
}

/// A tool that takes a set time and logs when it ran.
struct Probe(Log);

#[async_trait]
impl TypedTool for Probe {
    type Args = ProbeArgs;
    const NAME: &'static str = "probe";

    fn description(&self) -> String {
        "Waits, then answers with its label.".into()
    }

    fn effect(&self, args: &ProbeArgs) -> Effect {
        if args.read_only {
            Effect::ReadOnly
        } else {
            Effect::Mutating
        }
    }

    async fn run(&self, args: ProbeArgs, ctx: &ToolContext) -> ToolOutput {
        let start = Instant::now();
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(args.ms)) => {}
            () = ctx.cancel.cancelled() => return ToolOutput::error("cancelled"),
        }
        self.0.lock().unwrap().push(Span {
            label: args.label.clone(),
            start,
            end: Instant::now(),
        });
        ToolOutput::ok(args.label)
    }
}

fn call(label: &str, ms: u64, read_only: bool) -> String {
    format!(
        r#"{{"name": "probe", "arguments": {{"label": "{label}", "ms": {ms}, "read_only": {read_only}}}}}"#
    )
}

async fn run_calls(calls: &[String], limits: DispatchLimits) -> (Agent, Vec<Span>) {
    let scenario = format!(
        r#"{{"turns": [{{"tool_calls": [{}]}}, {{"text": "done"}}]}}"#,
        calls.join(",")
    );
    let server = mock(&scenario).await;
    let dir = tempfile::tempdir().unwrap();
    let log: Log = Arc::default();
    let mut tools = ToolRegistry::new();
    tools.register(rein_tools::typed(Probe(Arc::clone(&log))));
    let mut config = AgentConfig::new("claude-sonnet-4-5", dir.path().to_path_buf());
    config.dispatch = limits;
    config.policy.mode = rein_policy::PermissionMode::Bypass;
    let mut agent = Agent::new(client(ProviderKind::Anthropic, &server), tools, config).unwrap();
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let summary = agent.run("go", &tx, CancellationToken::new()).await;
    assert_eq!(summary.outcome, RunOutcome::Completed, "{summary:?}");
    assert_transcript_valid(agent.transcript());
    let spans = log.lock().unwrap().clone();
    (agent, spans)
}

/// The tool results of the first turn, as (text, is_error).
fn results(agent: &Agent) -> Vec<(String, bool)> {
    agent.transcript()[2]
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolResult {
                content, is_error, ..
            } => Some((content.clone(), *is_error)),
            _ => None,
        })
        .collect()
}

fn overlap(a: &Span, b: &Span) -> bool {
    a.start < b.end && b.start < a.end
}

#[tokio::test]
async fn eight_read_only_calls_run_at_once_and_answer_in_order() {
    let calls: Vec<String> = (0..8).map(|n| call(&format!("r{n}"), 300, true)).collect();
    let (agent, spans) = run_calls(&calls, DispatchLimits::default()).await;
    assert_eq!(spans.len(), 8);
    let first_end = spans.iter().map(|s| s.end).min().unwrap();
    assert!(
        spans.iter().all(|s| s.start < first_end),
        "every call started before any finished"
    );
    let labels: Vec<String> = results(&agent).into_iter().map(|(t, _)| t).collect();
    assert_eq!(labels, ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"]);
}

#[tokio::test]
async fn a_mutating_call_never_overlaps_its_neighbours() {
    let calls = [
        call("read-a", 150, true),
        call("read-b", 150, true),
        call("write", 100, false),
        call("read-c", 150, true),
        call("read-d", 10, true),
    ];
    let (agent, spans) = run_calls(&calls, DispatchLimits::default()).await;
    let span = |label: &str| spans.iter().find(|s| s.label == label).unwrap().clone();
    let write = span("write");
    for other in ["read-a", "read-b", "read-c", "read-d"] {
        assert!(!overlap(&write, &span(other)), "write overlaps {other}");
    }
    assert!(overlap(&span("read-a"), &span("read-b")));
    assert!(overlap(&span("read-c"), &span("read-d")));
    let labels: Vec<String> = results(&agent).into_iter().map(|(t, _)| t).collect();
    assert_eq!(labels, ["read-a", "read-b", "write", "read-c", "read-d"]);
}

#[tokio::test]
async fn concurrency_is_bounded() {
    let calls: Vec<String> = (0..6).map(|n| call(&format!("r{n}"), 100, true)).collect();
    let limits = DispatchLimits {
        max_parallel: 2,
        ..DispatchLimits::default()
    };
    let (agent, spans) = run_calls(&calls, limits).await;
    // Every call ran, each answered with its own result, in order.
    let mut ran: Vec<&str> = spans.iter().map(|s| s.label.as_str()).collect();
    ran.sort_unstable();
    assert_eq!(ran, ["r0", "r1", "r2", "r3", "r4", "r5"]);
    let labels: Vec<String> = results(&agent).into_iter().map(|(t, _)| t).collect();
    assert_eq!(labels, ["r0", "r1", "r2", "r3", "r4", "r5"]);
    // Two at a time did run together: the bound is not a queue of one.
    assert!(
        spans
            .iter()
            .any(|a| spans.iter().any(|b| a.label != b.label && overlap(a, b))),
        "no two calls overlapped"
    );
    // At any call's start, at most two calls (itself included) are running.
    for span in &spans {
        let at_once = spans
            .iter()
            .filter(|s| s.start <= span.start && span.start < s.end)
            .count();
        assert!(
            at_once <= 2,
            "{} started with {at_once} running",
            span.label
        );
    }
}

#[tokio::test]
async fn a_call_over_its_timeout_is_stopped_and_the_others_finish() {
    let calls = [call("slow", 10_000, true), call("quick", 10, true)];
    let limits = DispatchLimits {
        call_timeout: Duration::from_millis(200),
        ..DispatchLimits::default()
    };
    let (agent, spans) = run_calls(&calls, limits).await;
    // The slow call never reached its end: it was stopped, not waited for.
    let finished: Vec<&str> = spans.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(finished, ["quick"]);
    let results = results(&agent);
    assert_eq!(results[0].1, true);
    assert!(
        results[0].0.contains("timed out after 0.2 s"),
        "{}",
        results[0].0
    );
    assert_eq!(results[1], ("quick".to_string(), false));
}
