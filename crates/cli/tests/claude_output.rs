//! `--output-dialect claude` against what Claude Code 2.1.197 printed headless for the same
//! four-step task (`../shared/conformance/claude-stream-json/`: read a file, fix a typo with
//! an edit, run it, answer): the same events in the same order, with the same keys and value
//! types (ids, times and costs differ, and rein's model and paths are its own).

use serde_json::Value;

use crate::support::*;

/// The recorded task, as the mock plays it: a text and a read, an edit, a run, the answer.
const FIX_TYPO: &str = r#"{"turns": [
  {"text": "Let me look.", "tool_calls": [{"name": "read_file", "arguments": {"path": "hello.py"}}]},
  {"tool_calls": [{"name": "edit_file", "arguments": {"path": "hello.py", "old_string": "Helo", "new_string": "Hello"}}]},
  {"tool_calls": [{"name": "bash", "arguments": {"command": "cat hello.py"}}]},
  {"text": "Fixed the greeting; it prints Hello, world!"}
]}"#;

fn fixture(name: &str) -> Option<String> {
    rein_testkit::conformance_file(&format!("claude-stream-json/{name}")).unwrap()
}

/// The JSON type of a value, as the comparison sees it.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Checks that `ours` has every key `theirs` has, with a value of the same type, down to
/// `depth` levels of objects; `at` names the place in failures.
fn same_shape(ours: &Value, theirs: &Value, at: &str, depth: usize) {
    assert_eq!(kind(ours), kind(theirs), "{at}: {ours} vs {theirs}");
    let (Value::Object(ours), Value::Object(theirs)) = (ours, theirs) else {
        return;
    };
    for (key, recorded) in theirs {
        // Keyed by the model's name, which is rein's own here.
        if key == "modelUsage" {
            let first = |usage: Option<&Value>| {
                let by_model = usage
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                by_model.values().next().cloned().unwrap_or_default()
            };
            same_shape(
                &first(ours.get(key)),
                &first(Some(recorded)),
                &format!("{at}.{key}"),
                1,
            );
            continue;
        }
        let Some(value) = ours.get(key) else {
            panic!("{at}: no {key:?} (Claude Code has {recorded})");
        };
        // A cost Claude Code computed as a float may be a whole number here, and back.
        if depth > 0 && !matches!(key.as_str(), "input") {
            same_shape(value, recorded, &format!("{at}.{key}"), depth - 1);
        }
    }
}

/// The first content block of an event's message, if any.
fn first_block(event: &Value) -> &Value {
    &event["message"]["content"][0]
}

#[tokio::test]
async fn claude_dialect_prints_what_claude_code_prints() {
    let (Some(recorded), Some(single)) = (fixture("fix-typo.jsonl"), fixture("fix-typo.json"))
    else {
        return;
    };
    let recorded: Vec<Value> = recorded
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (format, expected) in [
        ("stream-json", recorded.clone()),
        (
            "json",
            vec![serde_json::from_str::<Value>(&single).unwrap()],
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("hello.py"), "print(\"Helo, world!\")\n").unwrap();
        let server = mock(FIX_TYPO).await;
        let mut cmd = rein(dir.path());
        cmd.args([
            "-p",
            "--base-url",
            &server.url(),
            "--dangerously-skip-permissions",
            "--output-format",
            format,
            "--verbose",
            "--output-dialect",
            "claude",
            "Fix the typo in hello.py and run it.",
        ]);
        let out = output(cmd).await;
        assert!(out.status.success(), "{}", text(&out.stderr));
        let ours: Vec<Value> = text(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let kinds = |events: &[Value]| -> Vec<(String, String)> {
            events
                .iter()
                .map(|e| {
                    let block = first_block(e)["type"].as_str().unwrap_or_default();
                    (e["type"].to_string(), format!("{}{block}", e["subtype"]))
                })
                .collect()
        };
        assert_eq!(
            kinds(&ours),
            kinds(&expected),
            "{format}: the same events in order"
        );
        for (n, (ours, theirs)) in ours.iter().zip(&expected).enumerate() {
            let at = format!("{format} event {n} ({})", theirs["type"]);
            same_shape(ours, theirs, &at, 3);
            same_shape(
                first_block(ours),
                first_block(theirs),
                &format!("{at} block"),
                1,
            );
            if theirs["type"] == "assistant" && first_block(theirs)["type"] == "tool_use" {
                assert_eq!(
                    first_block(ours)["name"],
                    first_block(theirs)["name"],
                    "{at}: Claude Code's tool name"
                );
            }
        }
        assert_eq!(
            std::fs::read_to_string(dir.path().join("hello.py")).unwrap(),
            "print(\"Hello, world!\")\n"
        );
    }
}

#[tokio::test]
async fn refused_calls_are_listed_as_permission_denials() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.sh"), "echo hello world\n").unwrap();
    let server = mock(DEMO).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "-p",
        "--base-url",
        &server.url(),
        "--output-format",
        "json",
        "--output-dialect",
        "claude",
        "make hello.sh greet rein",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let result: Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(result["type"], "result");
    assert_eq!(result["subtype"], "success");
    let denials = result["permission_denials"].as_array().unwrap();
    let commands: Vec<&str> = denials
        .iter()
        .map(|d| {
            assert_eq!(d["tool_name"], "Bash", "{d}");
            assert!(d["tool_use_id"].is_string(), "{d}");
            d["tool_input"]["command"].as_str().unwrap()
        })
        .collect();
    assert_eq!(
        commands,
        ["sed -i 's/world/rein/' hello.sh", "bash hello.sh"]
    );
}

#[tokio::test]
async fn the_dialect_can_be_configured_and_a_bad_name_is_located() {
    let dir = tempfile::tempdir().unwrap();
    write_user_config(dir.path(), "output_dialect = \"claude\"\n");
    let server = mock(r#"{"turns": [{"text": "hi"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "-p",
        "--base-url",
        &server.url(),
        "--output-format",
        "stream-json",
        "hi",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let first: Value = serde_json::from_str(text(&out.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(
        (first["type"].as_str(), first["subtype"].as_str()),
        (Some("system"), Some("init"))
    );
    // Every tool in Claude Code's spelling (one table), the protocol's version and rein's.
    let tools: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(tools.len() > 10, "{tools:?}");
    for tool in &tools {
        assert!(
            tool.starts_with(|c: char| c.is_ascii_uppercase()) || tool.starts_with("mcp__"),
            "{tool} is in rein's spelling: {tools:?}"
        );
    }
    assert_eq!(first["claude_code_version"], "2.1.197");
    assert_eq!(first["rein_version"], env!("CARGO_PKG_VERSION"));
    // The flag wins over the file.
    let server = mock(r#"{"turns": [{"text": "hi"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args([
        "-p",
        "--base-url",
        &server.url(),
        "--output-format",
        "stream-json",
        "--output-dialect",
        "rein",
        "hi",
    ]);
    let out = output(cmd).await;
    let first: Value = serde_json::from_str(text(&out.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(first["type"], "session_start");
    write_user_config(dir.path(), "output_dialect = \"claud\"\n");
    let mut cmd = rein(dir.path());
    cmd.args(["-p", "hi"]);
    let out = output(cmd).await;
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("config.toml:1: output_dialect: expected \"rein\" or \"claude\""),
        "{stderr}"
    );
}
