//! `rein mcp serve`: rein as an MCP server, driven over its stdio by a JSON-RPC client written
//! here (so every message is seen), by rein's own MCP client (rein delegating to rein), and by
//! the MCP Inspector's CLI.
#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{mock, output, rein, text};

/// A JSON-RPC client of `rein mcp serve` over its stdin and stdout.
struct Client {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// Messages read while waiting for another.
    seen: Vec<Value>,
}

impl Client {
    /// Starts `rein mcp serve ARGS` in `dir` and says hello, with the elicitation capability
    /// when `elicits`.
    fn start(dir: &Path, args: &[&str], elicits: bool) -> Self {
        let mut cmd = rein(dir);
        cmd.args(["mcp", "serve"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut client = Self {
            child,
            stdin,
            lines,
            seen: Vec::new(),
        };
        let capabilities = if elicits {
            json!({"elicitation": {}})
        } else {
            json!({})
        };
        client.send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": capabilities,
            "clientInfo": {"name": "test", "version": "0"}}}),
        );
        let hello = client.response(0);
        assert_eq!(hello["result"]["serverInfo"]["name"], "rein", "{hello}");
        client.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        client
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Calls `tool` as request `id`, asking for progress under the token `p<id>`.
    fn call(&mut self, id: u64, tool: &str, arguments: Value) {
        self.send(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": tool, "arguments": arguments, "_meta": {"progressToken": format!("p{id}")}}}),
        );
    }

    /// The next message that `wanted` picks; those before it are kept in `seen`.
    fn until(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => panic!("no {what} in 30 s: {:?}", self.seen),
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("the server closed before {what}: {:?}", self.seen)
                }
            };
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line}"));
            if wanted(&message) {
                return message;
            }
            self.seen.push(message);
        }
    }

    fn response(&mut self, id: u64) -> Value {
        self.until(&format!("response {id}"), |m| {
            m["id"] == id && m.get("method").is_none()
        })
    }

    /// The progress messages seen under `token`.
    fn progress(&self, token: &str) -> Vec<String> {
        (self.seen.iter())
            .filter(|m| m["method"] == "notifications/progress")
            .filter(|m| m["params"]["progressToken"] == token)
            .filter_map(|m| m["params"]["message"].as_str().map(str::to_string))
            .collect()
    }

    fn close(mut self) {
        drop(self.stdin);
        let status = rein_testkit::without_hanging("the server to end with its input", move || {
            self.child.wait().unwrap()
        });
        assert!(status.success(), "{status:?}");
    }
}

/// The answer text and session id of a `tools/call` response.
fn answer(response: &Value) -> (String, String) {
    let result = &response["result"];
    (
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        result["structuredContent"]["session_id"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    )
}

const WRITES: &str = r#"{"turns": [
  {"text": "Writing it.", "tool_calls": [{"name": "write_file", "arguments": {"path": "b.txt", "content": "made\n"}}]},
  {"text": "Wrote b.txt."},
  {"text": "It holds made."}
]}"#;

#[tokio::test]
async fn an_approval_is_asked_through_the_client_and_a_reply_continues_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(WRITES).await;
    let url = server.url();
    let path = dir.path().to_path_buf();
    let (first, second) = tokio::task::spawn_blocking(move || {
        let mut client = Client::start(&path, &["--base-url", &url], true);
        client.call(1, "rein", json!({"prompt": "make b.txt"}));
        let asked = client.until("an elicitation", |m| m["method"] == "elicitation/create");
        let question = asked["params"]["message"].as_str().unwrap_or_default();
        assert!(
            question.contains("rein wants to run write_file: b.txt"),
            "{question}"
        );
        assert!(question.contains("+made"), "the diff is shown: {question}");
        let decision = &asked["params"]["requestedSchema"]["properties"]["decision"];
        let values: Vec<&Value> = (decision["oneOf"].as_array().unwrap().iter())
            .map(|choice| &choice["const"])
            .collect();
        assert_eq!(
            values,
            [
                &json!("allow_once"),
                &json!("allow_session"),
                &json!("deny")
            ]
        );
        client.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {
            "action": "accept", "content": {"decision": "allow_once"}}}));
        let first = client.response(1);
        let progress = client.progress("p1");
        assert!(progress[0].starts_with("session "), "{progress:?}");
        assert!(
            progress.iter().any(|p| p.starts_with("write_file b.txt")),
            "{progress:?}"
        );
        let (_, id) = answer(&first);
        client.call(
            2,
            "rein-reply",
            json!({"session_id": id, "prompt": "what is in it?"}),
        );
        let second = client.response(2);
        client.close();
        (first, second)
    })
    .await
    .unwrap();
    let (text, id) = answer(&first);
    assert_eq!(text, "Wrote b.txt.", "{first}");
    assert_eq!(first["result"]["isError"], false, "{first}");
    assert_eq!(
        first["result"]["content"][1]["text"],
        format!("session_id: {id}")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("b.txt")).unwrap(),
        "made\n"
    );
    let (text, again) = answer(&second);
    assert_eq!(
        (text.as_str(), again.as_str()),
        ("It holds made.", id.as_str())
    );
    // The reply's request carries the whole conversation.
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let last = requests[2].body.to_string();
    assert!(
        last.contains("make b.txt") && last.contains("what is in it?"),
        "{last}"
    );
}

#[tokio::test]
async fn without_elicitation_a_call_that_asks_is_refused_and_the_model_told() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(WRITES).await;
    let url = server.url();
    let path = dir.path().to_path_buf();
    let response = tokio::task::spawn_blocking(move || {
        let mut client = Client::start(&path, &["--base-url", &url], false);
        client.call(1, "rein", json!({"prompt": "make b.txt"}));
        let response = client.response(1);
        assert!(
            !client
                .seen
                .iter()
                .any(|m| m["method"] == "elicitation/create"),
            "{:?}",
            client.seen
        );
        client.close();
        response
    })
    .await
    .unwrap();
    assert_eq!(answer(&response).0, "Wrote b.txt.", "{response}");
    assert!(!dir.path().join("b.txt").exists());
    let told = server.requests()[1].body.to_string();
    assert!(
        told.contains("nobody can approve calls in this run"),
        "{told}"
    );
}

#[tokio::test]
async fn a_call_cannot_widen_the_servers_mode_and_bad_arguments_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(WRITES).await;
    let url = server.url();
    let path = dir.path().to_path_buf();
    let (wider, typo, unknown) = tokio::task::spawn_blocking(move || {
        let mut client = Client::start(&path, &["--base-url", &url], false);
        client.call(
            1,
            "rein",
            json!({"prompt": "make b.txt", "permission_mode": "bypass"}),
        );
        let wider = client.response(1);
        client.call(2, "rein", json!({"prompt": "hi", "mode": "plan"}));
        let typo = client.response(2);
        client.call(3, "codex", json!({"prompt": "hi"}));
        let unknown = client.response(3);
        client.close();
        (wider, typo, unknown)
    })
    .await
    .unwrap();
    assert_eq!(wider["result"]["isError"], true, "{wider}");
    assert_eq!(
        answer(&wider).0,
        "permission_mode bypass: broader than this server's default (its --permission-mode); \
         ask for default or narrower"
    );
    assert!(answer(&typo).0.contains("unknown field `mode`"), "{typo}");
    assert!(answer(&unknown).0.contains("no tool codex"), "{unknown}");
    assert!(server.requests().is_empty(), "no session ran");
    assert!(!dir.path().join("b.txt").exists());
}

#[tokio::test]
async fn a_cancelled_call_cancels_the_turn_and_kills_its_command() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "bash", "arguments": {"command": "touch started; sleep 30; touch finished"}}]},
          {"text": "Still here."}
        ]}"#,
    )
    .await;
    let url = server.url();
    let path = dir.path().to_path_buf();
    let reply = tokio::task::spawn_blocking(move || {
        let mut client = Client::start(
            &path,
            &["--base-url", &url, "--permission-mode", "bypass"],
            false,
        );
        client.call(1, "rein", json!({"prompt": "wait a while"}));
        let id = client.until("the session's id", |m| {
            m["params"]["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("session "))
        })["params"]["message"]
            .as_str()
            .unwrap_or_default()
            .trim_start_matches("session ")
            .to_string();
        let started = path.join("started");
        rein_testkit::without_hanging("the command to start", move || {
            while !started.exists() {
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        client.send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 1, "reason": "the user changed their mind"}}),
        );
        // The session takes the next prompt once the turn is cancelled.
        let mut next = 2;
        let reply = loop {
            client.call(
                next,
                "rein-reply",
                json!({"session_id": id, "prompt": "still there?"}),
            );
            let response = client.response(next);
            if !answer(&response).0.contains("still working on a prompt") {
                break response;
            }
            next += 1;
            std::thread::sleep(Duration::from_millis(20));
        };
        client.close();
        reply
    })
    .await
    .unwrap();
    assert_eq!(answer(&reply).0, "Still here.", "{reply}");
    assert!(
        !dir.path().join("finished").exists(),
        "the command was killed"
    );
}

#[tokio::test]
async fn rein_delegates_a_task_to_rein_through_its_own_mcp_client() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    let server = mock(
        r#"{"turns": [
          {"text": "Asking a helper.", "tool_calls": [{"name": "mcp__rein__rein", "arguments": {"prompt": "inner task: what does a.txt say?"}}]},
          {"when_last": "inner task", "text": "Reading.", "tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
          {"when_last": "hello", "text": "a.txt says hello."},
          {"text": "The helper says a.txt says hello."}
        ]}"#,
    )
    .await;
    let config = json!({"mcpServers": {"rein": {
        "command": env!("CARGO_BIN_EXE_rein"),
        "args": ["mcp", "serve", "--base-url", server.url()]
    }}})
    .to_string();
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--base-url",
        &server.url(),
        "--allowed-tools",
        "mcp__rein__rein",
        "--mcp-config",
        &config,
        "--output-format",
        "stream-json",
        "ask the helper",
    ]);
    let out = output(cmd).await;
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    let result: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(result["text"], "The helper says a.txt says hello.");
    let tool_end = stdout
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|event| event["type"] == "tool_call_end")
        .unwrap();
    let output = tool_end["output"].as_str().unwrap_or_default();
    assert!(
        output.starts_with("a.txt says hello.\nsession_id: "),
        "{output}"
    );
    assert_eq!(server.requests().len(), 4);
}

#[tokio::test]
async fn the_mcp_inspector_lists_and_calls_reins_tools() {
    let test = "the_mcp_inspector_lists_and_calls_reins_tools";
    let Some(inspector) = rein_testkit::node_program("mcp-inspector", test) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "Hello from rein."}]}"#).await;
    let inspect = |method: &[&str]| {
        let mut cmd = Command::new(&inspector);
        // rein's environment (its folders in the test's, no real keys), and a home of the
        // test's for the Inspector's own catalog file.
        for (key, value) in rein(dir.path()).get_envs() {
            match value {
                Some(value) => cmd.env(key, value),
                None => cmd.env_remove(key),
            };
        }
        cmd.current_dir(dir.path())
            .env("HOME", dir.path())
            .args([
                "--cli",
                env!("CARGO_BIN_EXE_rein"),
                "mcp",
                "serve",
                "--base-url",
            ])
            .arg(server.url())
            .args(method);
        cmd
    };
    let listed = output(inspect(&["--method", "tools/list"])).await;
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let names: Vec<&str> = (listed["tools"].as_array().unwrap().iter())
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(names, ["rein", "rein-reply"]);
    assert_eq!(
        listed["tools"][0]["inputSchema"]["required"],
        json!(["prompt"])
    );
    let called = output(inspect(&[
        "--method",
        "tools/call",
        "--tool-name",
        "rein",
        "--tool-arg",
        "prompt=say hello",
    ]))
    .await;
    assert!(called.status.success(), "{}", text(&called.stderr));
    let called: Value = serde_json::from_slice(&called.stdout).unwrap();
    assert_eq!(called["content"][0]["text"], "Hello from rein.", "{called}");
    assert_eq!(called["structuredContent"]["outcome"], "completed");
    assert_eq!(called["isError"], false);
}

#[tokio::test]
async fn a_served_sessions_spans_reach_the_collector_when_the_server_ends() {
    let dir = tempfile::tempdir().unwrap();
    let (collector, received) = crate::otlp::http().await;
    crate::support::write_user_config(
        dir.path(),
        &format!("[telemetry]\nendpoint = \"{collector}\"\n"),
    );
    let server = mock(r#"{"turns": [{"text": "hello"}]}"#).await;
    let url = server.url();
    let path = dir.path().to_path_buf();
    tokio::task::spawn_blocking(move || {
        let mut client = Client::start(&path, &["--base-url", &url], false);
        client.call(1, "rein", json!({"prompt": "say hi"}));
        client.response(1);
        client.close();
    })
    .await
    .unwrap();
    // The session was still open when the server ended: its spans went out with the exit.
    let names: Vec<String> = received.spans().iter().map(|s| s.name.clone()).collect();
    assert!(names.contains(&"rein.session".to_string()), "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("chat ")), "{names:?}");
}
