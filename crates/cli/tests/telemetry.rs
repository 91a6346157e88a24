//! Telemetry end to end: a scripted session (parallel tool calls, a denial, a subagent, a
//! compaction) exported to an OTLP receiver on 127.0.0.1 over HTTP and gRPC, checked span by
//! span; metrics with the right sums; `--trace FILE` and `rein trace`.

use std::collections::HashMap;
use std::path::Path;

use opentelemetry_proto::tonic::trace::v1::Span;
use serde_json::Value;

use crate::otlp::{self, attribute};
use crate::support::*;

/// A long step of the model's own text, so the small window needs compacting.
fn talk(n: u32) -> String {
    let thoughts = format!(
        "step {n}: {}",
        "weighing what the count means. ".repeat(170)
    );
    format!(
        r#"{{"text": "{thoughts}", "tool_calls": [{{"name": "bash", "arguments": {{"command": "echo counted {n}"}}}}]}}"#
    )
}

/// Two reads and a command the rules deny; two subagents at once; four long steps (the window
/// is compacted); the answer.
fn scenario() -> String {
    format!(
        r#"{{"turns": [
          {{"tool_calls": [
             {{"name": "read_file", "arguments": {{"path": "a.txt"}}}},
             {{"name": "read_file", "arguments": {{"path": "b.txt"}}}},
             {{"name": "bash", "arguments": {{"command": "rm -f a.txt"}}}}],
           "usage": {{"input_tokens": 1000, "output_tokens": 50}}}},
          {{"tool_calls": [
             {{"name": "task", "arguments": {{"description": "look", "prompt": "What is in a.txt?"}}}},
             {{"name": "task", "arguments": {{"description": "peek", "prompt": "What is in b.txt?"}}}}]}},
          {{"when": "You are a subagent of rein", "text": "a.txt says hello", "delay_ms": 300,
            "usage": {{"input_tokens": 300, "output_tokens": 7}}}},
          {{"when": "You are a subagent of rein", "text": "b.txt says world", "delay_ms": 300,
            "usage": {{"input_tokens": 300, "output_tokens": 7}}}},
          {}, {}, {}, {},
          {{"text": "all done"}}
        ],
        "summary": {{"text": "SUMMARY: read, asked, counted to 3"}}}}"#,
        talk(1),
        talk(2),
        talk(3),
        talk(4)
    )
}

/// Runs the scripted session with telemetry going to `endpoint` over `protocol`; the
/// stream-json events.
async fn session(dir: &Path, endpoint: &str, protocol: &str, extra: &[&str]) -> Vec<Value> {
    std::fs::write(dir.join("a.txt"), "hello\n").unwrap();
    std::fs::write(dir.join("b.txt"), "world\n").unwrap();
    let server = mock(&scenario()).await;
    let mut cmd = rein(dir);
    cmd.env("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
        .args([
            "exec",
            "--base-url",
            &server.url(),
            "--permission-mode",
            "bypass",
            "--disallowed-tools",
            "Bash(rm *)",
            "--context-window",
            "8192",
            "--output-format",
            "stream-json",
            // A hook on every command, for its span.
            "--settings",
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash",
                "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ])
        .args(extra)
        .arg("read, ask, count");
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn hex(id: &[u8]) -> String {
    id.iter().map(|b| format!("{b:02x}")).collect()
}

/// The spans by name (several per name in start order).
fn by_name(spans: &[Span]) -> HashMap<String, Vec<&Span>> {
    let mut map: HashMap<String, Vec<&Span>> = HashMap::new();
    for span in spans {
        map.entry(span.name.clone()).or_default().push(span);
    }
    for list in map.values_mut() {
        list.sort_by_key(|s| s.start_time_unix_nano);
    }
    map
}

fn one<'a>(spans: &HashMap<String, Vec<&'a Span>>, name: &str) -> &'a Span {
    let found = spans
        .get(name)
        .unwrap_or_else(|| panic!("no span {name}: {:?}", spans.keys()));
    assert_eq!(found.len(), 1, "{name}");
    found[0]
}

fn is_child(child: &Span, parent: &Span) -> bool {
    child.parent_span_id == parent.span_id
}

/// The usage events of the run (the subagent's included), summed by type.
fn usage_sums(events: &[Value]) -> HashMap<&'static str, f64> {
    let mut sums = HashMap::new();
    let mut visit = |event: &Value| {
        if event["type"] == "usage" {
            for (kind, key) in [
                ("input", "input_tokens"),
                ("output", "output_tokens"),
                ("cache_read", "cache_read_input_tokens"),
            ] {
                *sums.entry(kind).or_insert(0.0) += event["usage"][key].as_f64().unwrap_or(0.0);
            }
        }
    };
    for event in events {
        visit(event);
        if event["type"] == "subagent" {
            visit(&event["event"]);
        }
    }
    sums
}

#[tokio::test]
async fn a_session_arrives_over_otlp_http_as_a_span_tree_with_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let (url, received) = otlp::http().await;
    let events = session(dir.path(), &url, "http/protobuf", &[]).await;
    let spans = received.spans();
    let named = by_name(&spans);
    let trace = &spans[0].trace_id;
    assert!(spans.iter().all(|s| &s.trace_id == trace), "one trace");
    let session = one(&named, "rein.session");
    assert!(session.parent_span_id.is_empty());
    let prompt = one(&named, "invoke_agent rein");
    assert!(is_child(prompt, session));
    let session_id = events[0]["session_id"].as_str().unwrap();
    assert_eq!(
        attribute(prompt, "gen_ai.conversation.id").as_deref(),
        Some(session_id)
    );
    assert_eq!(
        attribute(prompt, "rein.outcome").as_deref(),
        Some("completed")
    );
    assert_eq!(
        received.resource().get("service.name").map(String::as_str),
        Some("rein")
    );

    // Model requests: children of the prompt, with the GenAI attributes.
    let chats = &named["chat claude-sonnet-4-5"];
    let main_chats: Vec<&&Span> = chats.iter().filter(|c| is_child(c, prompt)).collect();
    assert_eq!(main_chats.len(), 7, "seven requests of the main agent");
    let first = main_chats[0];
    assert_eq!(
        attribute(first, "gen_ai.operation.name").as_deref(),
        Some("chat")
    );
    assert_eq!(
        attribute(first, "gen_ai.provider.name").as_deref(),
        Some("anthropic")
    );
    assert_eq!(
        attribute(first, "gen_ai.request.model").as_deref(),
        Some("claude-sonnet-4-5")
    );
    assert_eq!(
        attribute(first, "gen_ai.usage.input_tokens").as_deref(),
        Some("1000")
    );
    assert_eq!(
        attribute(first, "gen_ai.usage.output_tokens").as_deref(),
        Some("50")
    );
    assert_eq!(
        attribute(first, "gen_ai.response.finish_reasons").as_deref(),
        Some("tool_use")
    );
    assert_eq!(
        attribute(first, "openinference.span.kind").as_deref(),
        Some("LLM")
    );
    assert!(attribute(first, "rein.cost_usd").is_some());

    // The reads, under the prompt; the denied command says who denied it.
    let reads = &named["execute_tool read_file"];
    assert_eq!(reads.len(), 2);
    assert!(reads.iter().all(|r| is_child(r, prompt)));
    let bashes = &named["execute_tool bash"];
    let denied: Vec<&&Span> = bashes
        .iter()
        .filter(|b| attribute(b, "rein.permission.decision").as_deref() == Some("deny"))
        .collect();
    assert_eq!(denied.len(), 1);
    assert!(
        attribute(denied[0], "rein.permission.reason")
            .unwrap()
            .contains("rm")
    );
    assert_eq!(
        attribute(denied[0], "rein.tool.is_error").as_deref(),
        Some("true")
    );
    let ran = bashes
        .iter()
        .find(|b| attribute(b, "rein.permission.decision").as_deref() == Some("allow"))
        .unwrap();
    assert_eq!(attribute(ran, "rein.tool.exit_code").as_deref(), Some("0"));
    assert!(attribute(ran, "rein.tool.output_bytes").is_some());
    // No content without opting in.
    assert!(
        spans
            .iter()
            .all(|s| attribute(s, "gen_ai.tool.call.arguments").is_none())
    );

    // Two `task` calls at once, each with its subagent under it and the subagent's request
    // under that.
    let tasks = &named["execute_tool task"];
    assert_eq!(tasks.len(), 2);
    assert!(
        tasks[1].start_time_unix_nano < tasks[0].end_time_unix_nano,
        "parallel calls"
    );
    let subs: Vec<&&Span> = named
        .iter()
        .filter(|(name, _)| name.starts_with("invoke_agent ") && *name != "invoke_agent rein")
        .flat_map(|(_, list)| list.iter())
        .collect();
    assert_eq!(subs.len(), 2);
    for task in tasks {
        let sub = subs
            .iter()
            .find(|s| is_child(s, task))
            .expect("a subagent under its call");
        let sub_chat = chats
            .iter()
            .find(|c| is_child(c, sub))
            .expect("its request");
        assert_eq!(
            attribute(sub_chat, "gen_ai.usage.input_tokens").as_deref(),
            Some("300")
        );
    }

    // The hook runs, each with its exit code, under the prompt.
    let hooks = &named["rein.hook PreToolUse"];
    assert!(!hooks.is_empty());
    assert!(hooks.iter().all(|h| is_child(h, prompt)));
    assert_eq!(
        attribute(hooks[0], "rein.hook.exit_code").as_deref(),
        Some("0")
    );

    // The compaction, under the prompt.
    let compaction = one(&named, "rein.compaction");
    assert!(is_child(compaction, prompt));
    assert_eq!(
        attribute(compaction, "rein.compaction.trigger").as_deref(),
        Some("auto")
    );
    assert!(compaction.end_time_unix_nano >= compaction.start_time_unix_nano);

    // Every span's parent is in the trace.
    let ids: Vec<&Vec<u8>> = spans.iter().map(|s| &s.span_id).collect();
    for span in &spans {
        assert!(
            span.parent_span_id.is_empty() || ids.contains(&&span.parent_span_id),
            "{} has a parent outside the trace ({})",
            span.name,
            hex(&span.parent_span_id)
        );
    }

    // Metrics: the token sums are those of the run's usage events.
    let sums = received.sums();
    let model = "model=claude-sonnet-4-5";
    let expected = usage_sums(&events);
    for kind in ["input", "output", "cache_read"] {
        let got = sums[&(
            "rein.token.usage".to_string(),
            format!("{model},type={kind}"),
        )];
        assert_eq!(got, expected[kind], "{kind} tokens");
    }
    assert_eq!(
        sums[&("rein.session.count".to_string(), String::new())],
        1.0
    );
    assert_eq!(
        sums[&(
            "rein.tool.calls".to_string(),
            "decision=allow,tool=read_file".to_string()
        )],
        2.0
    );
    assert_eq!(
        sums[&(
            "rein.tool.calls".to_string(),
            "decision=deny,tool=bash".to_string()
        )],
        1.0
    );
    let requests = events
        .iter()
        .filter(|e| {
            e["type"] == "turn_start"
                || (e["type"] == "subagent" && e["event"]["type"] == "turn_start")
        })
        .count();
    assert_eq!(
        sums[&("rein.model.requests".to_string(), model.to_string())],
        requests as f64
    );
    let cost: f64 = events
        .iter()
        .filter(|e| e["type"] == "result")
        .filter_map(|e| e["cost_usd"].as_f64())
        .sum();
    let billed = sums[&("rein.cost.usage".to_string(), model.to_string())];
    assert!((billed - cost).abs() < 1e-9, "{billed} {cost}");
}

#[tokio::test]
async fn the_same_spans_go_over_grpc_and_into_a_trace_file() {
    let dir = tempfile::tempdir().unwrap();
    let (url, received) = otlp::grpc().await;
    let file = dir.path().join("trace.jsonl");
    session(
        dir.path(),
        &url,
        "grpc",
        &["--trace", file.to_str().unwrap()],
    )
    .await;
    let spans = received.spans();
    assert!(spans.iter().any(|s| s.name == "rein.compaction"));
    let lines: Vec<Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines.len(),
        spans.len(),
        "the file holds the spans the collector got"
    );
    for span in &spans {
        let id = hex(&span.span_id);
        let line = lines.iter().find(|l| l["span_id"] == id.as_str()).unwrap();
        assert_eq!(line["name"], span.name.as_str());
    }
    let mut tree = rein(dir.path());
    tree.args(["trace", file.to_str().unwrap()]);
    let out = output(tree).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    assert!(printed.starts_with("rein.session  "), "{printed}");
    assert!(printed.contains("└─ invoke_agent rein"), "{printed}");
    assert!(
        printed.contains("execute_tool bash") && printed.contains("deny"),
        "{printed}"
    );
    assert!(printed.contains("rein.compaction"), "{printed}");
}

#[tokio::test]
async fn content_is_attached_when_asked_with_provider_keys_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let (url, received) = otlp::http().await;
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "bash", "arguments": {"command": "echo $ANTHROPIC_API_KEY-seen"}}]},
          {"text": "done"}]}"#,
    )
    .await;
    let mut cmd = rein(dir.path());
    cmd.env("OTEL_EXPORTER_OTLP_ENDPOINT", &url)
        .env("OTEL_LOG_USER_PROMPTS", "1")
        .env("ANTHROPIC_API_KEY", "sk-ant-secret-123456")
        .args([
            "exec",
            "--base-url",
            &server.url(),
            "--permission-mode",
            "bypass",
            "try the key sk-ant-secret-123456 here",
        ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let spans = received.spans();
    let bash = spans
        .iter()
        .find(|s| s.name == "execute_tool bash")
        .unwrap();
    let arguments = attribute(bash, "gen_ai.tool.call.arguments").unwrap();
    assert!(arguments.contains("echo"), "{arguments}");
    let prompt = spans
        .iter()
        .find(|s| s.name == "invoke_agent rein")
        .unwrap();
    let asked = attribute(prompt, "gen_ai.input.messages").unwrap();
    assert!(asked.starts_with("try the key "), "{asked}");
    let chat = spans.iter().find(|s| s.name.starts_with("chat ")).unwrap();
    assert!(attribute(chat, "gen_ai.output.messages").is_some());
    let all: String = spans
        .iter()
        .flat_map(|s| s.attributes.iter().map(otlp::text))
        .collect();
    assert!(
        !all.contains("sk-ant-secret-123456"),
        "a key reached the collector"
    );
}

#[tokio::test]
async fn a_dead_collector_costs_at_most_the_bounded_flush_and_says_what_was_lost() {
    let dir = tempfile::tempdir().unwrap();
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = mock(r#"{"turns": [{"text": "done"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.env(
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        format!("http://127.0.0.1:{port}"),
    )
    .args(["exec", "--base-url", &server.url(), "go"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "done\n");
    assert!(
        text(&out.stderr).contains("spans did not reach the collector"),
        "{}",
        text(&out.stderr)
    );
}

#[tokio::test]
async fn a_trace_file_alone_needs_no_collector() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi"}}]},
          {"text": "done"}]}"#,
    )
    .await;
    let file = dir.path().join("trace.jsonl");
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--permission-mode",
        "bypass",
        "--trace",
        file.to_str().unwrap(),
        "go",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "done\n");
    let names: Vec<String> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["name"].to_string())
        .collect();
    assert!(
        names.iter().any(|n| n.contains("execute_tool bash")),
        "{names:?}"
    );
    assert!(
        names.iter().any(|n| n.contains("rein.session")),
        "{names:?}"
    );
}
