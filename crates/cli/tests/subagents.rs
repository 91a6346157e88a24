//! Subagents through the binary: definition files found where Claude Code keeps them (the
//! workspace's only once it is trusted), and their events in the stream-json output.

use serde_json::Value;

use crate::support::*;

const READER: &str =
    "---\nname: reader\ndescription: Reads files\ntools: Read, WebSearch\n---\nYou read files.\n";

fn task_scenario(agent: &str) -> String {
    format!(
        r#"{{"turns": [
          {{"tool_calls": [{{"name": "task", "arguments":
             {{"description": "read it", "prompt": "What is in a.txt?", "agent": "{agent}"}}}}]}},
          {{"tool_calls": [{{"name": "read_file", "arguments": {{"path": "a.txt"}}}}]}},
          {{"text": "a.txt says hello"}},
          {{"text": "It says hello."}}
        ]}}"#
    )
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn a_workspace_agent_runs_with_its_tools_and_its_events_name_the_call() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    let agents = dir.path().join(".claude/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(agents.join("reader.md"), READER).unwrap();
    let server = mock(&task_scenario("reader")).await;
    let mut cmd = exec_in(dir.path(), &server, "default", "go");
    cmd.env("HOME", dir.path().join("home")).args([
        "--trust-workspace",
        "--output-format",
        "stream-json",
    ]);
    let out = output(cmd).await;
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // The tool rein lacks is named once.
    assert_eq!(stderr.matches("WebSearch").count(), 1, "{stderr}");

    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    assert!(tool_names(&requests[0].body).contains(&"task".to_string()));
    assert_eq!(tool_names(&requests[1].body), ["read_file"]);
    assert!(requests[1].body.to_string().contains("You read files."));

    let lines: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let task_id = lines
        .iter()
        .find(|l| l["type"] == "tool_call_start" && l["name"] == "task")
        .map(|l| l["id"].clone())
        .unwrap();
    let nested: Vec<&Value> = lines.iter().filter(|l| l["type"] == "subagent").collect();
    assert!(!nested.is_empty());
    for line in &nested {
        assert_eq!(line["parent_tool_use_id"], task_id);
        assert_eq!(line["agent"], "reader");
    }
    assert!(nested.iter().any(|l| l["event"]["type"] == "tool_call_end"
        && l["event"]["output"].as_str().unwrap().contains("hello")));
    let end = lines
        .iter()
        .find(|l| l["type"] == "tool_call_end" && l["id"] == task_id)
        .unwrap();
    assert_eq!(end["output"], "a.txt says hello");
    assert_eq!(lines.last().unwrap()["text"], "It says hello.");
}

#[tokio::test]
async fn an_untrusted_workspaces_agents_are_held_back_and_the_model_is_told_the_names() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    let agents = dir.path().join(".rein/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(agents.join("reader.md"), READER).unwrap();
    let server = mock(&task_scenario("reader")).await;
    let mut cmd = exec_in(dir.path(), &server, "default", "go");
    cmd.env("HOME", dir.path().join("home"));
    let out = output(cmd).await;
    let stderr = text(&out.stderr);
    assert!(stderr.contains("agent definitions"), "{stderr}");
    // The call names an agent that is not there; the model hears which ones are.
    let result = last_message(&server, 1);
    assert!(
        result.contains("there is no agent `reader`") && result.contains("general, explore"),
        "{result}"
    );
}

#[tokio::test]
async fn the_users_own_agents_load_in_any_workspace() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".claude/agents")).unwrap();
    std::fs::write(home.join(".claude/agents/reader.md"), READER).unwrap();
    let server = mock(&task_scenario("reader")).await;
    let mut cmd = exec_in(dir.path(), &server, "default", "go");
    cmd.env("HOME", &home);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(tool_names(&server.requests()[1].body), ["read_file"]);
    assert_eq!(text(&out.stdout).trim(), "It says hello.");
}

#[tokio::test]
async fn rein_exec_waits_for_a_background_subagent_and_hands_its_answer_to_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "task", "arguments": {"description": "slow",
             "prompt": "take your time", "run_in_background": true}}]},
          {"when": "You are a subagent of rein", "text": "slow answer", "delay_ms": 400},
          {"text": "Waiting for it."},
          {"text": "It said: slow answer."}
        ]}"#,
    )
    .await;
    let mut cmd = exec_in(dir.path(), &server, "default", "go");
    cmd.env("HOME", dir.path().join("home"));
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "It said: slow answer.");
    assert_eq!(server.requests().len(), 4);
}

#[tokio::test]
async fn a_subagents_transcript_is_kept_as_a_side_chain_and_resume_restores_the_parent_only() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    let server = mock(&task_scenario("general")).await;
    let mut cmd = exec_in(dir.path(), &server, "default", "go");
    cmd.env("HOME", dir.path().join("home"))
        .args(["--output-format", "json"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let result: Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    let session = result["session_id"].as_str().unwrap().to_string();

    let files = session_files(dir.path());
    assert_eq!(files.len(), 1);
    let records: Vec<Value> = std::fs::read_to_string(&files[0])
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let chain: Vec<&Value> = records
        .iter()
        .filter(|r| r["type"] == "sidechain")
        .collect();
    // The subagent's prompt, its read_file call, the call's result and its answer.
    let kinds: Vec<&str> = chain
        .iter()
        .map(|r| r["record"]["type"].as_str().unwrap())
        .collect();
    assert!(
        kinds.iter().filter(|k| **k == "message").count() >= 4,
        "{kinds:?}"
    );
    assert!(chain.iter().all(|r| r["agent"] == "general"));
    let task_call = records
        .iter()
        .find_map(|r| {
            r["message"]["content"]
                .as_array()?
                .iter()
                .find(|b| b["type"] == "tool_use" && b["name"] == "task")
                .map(|b| b["id"].clone())
        })
        .unwrap();
    assert!(chain.iter().all(|r| r["agent_id"] == task_call));
    assert!(
        chain
            .iter()
            .any(|r| r["record"].to_string().contains("hello"))
    );

    let next = mock(r#"{"turns": [{"text": "resumed"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.env("HOME", dir.path().join("home")).args([
        "exec",
        "--base-url",
        &next.url(),
        "--resume",
        &session,
        "and now?",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let body = next.requests()[0].body["messages"].to_string();
    assert!(body.contains("a.txt says hello"), "{body}");
    assert!(!body.contains("read_file"), "{body}");
}

#[tokio::test]
async fn the_explore_agent_asks_the_configured_cheaper_model() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    let config = dir.path().join(".rein-test-config/rein");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "explore_model = \"haiku\"\n").unwrap();
    let server = mock(&task_scenario("explore")).await;
    let mut cmd = exec_in(dir.path(), &server, "default", "go");
    cmd.env("HOME", dir.path().join("home"))
        .args(["--model", "claude-sonnet-4-5"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let requests = server.requests();
    assert_eq!(requests[0].body["model"], "claude-sonnet-4-5");
    let sub = requests[1].body["model"].as_str().unwrap();
    assert!(sub.starts_with("claude-haiku"), "{sub}");
    assert_eq!(requests[3].body["model"], "claude-sonnet-4-5");
}
