//! The control issue's end-to-end checks, through `rein exec` and config files: hooks block,
//! rewrite and continue; plan mode refuses an edit; read-only calls overlap.

use serde_json::Value;

use crate::support::*;

fn workspace(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("keep.txt"), "precious\n").unwrap();
    std::fs::create_dir_all(dir.path().join(".rein")).unwrap();
    std::fs::write(dir.path().join(".rein/config.toml"), config).unwrap();
    dir
}

fn bash_turn(command: &str) -> String {
    format!(
        r#"{{"tool_calls": [{{"name": "bash", "arguments": {{"command": {}}}}}]}}"#,
        serde_json::to_string(command).unwrap()
    )
}

async fn exec(
    dir: &tempfile::TempDir,
    turns: &[String],
    extra: &[&str],
) -> (std::process::Output, Vec<String>) {
    let server = mock(&format!(r#"{{"turns": [{}]}}"#, turns.join(","))).await;
    let mut cmd = rein(dir.path());
    cmd.args(["exec", "--trust-workspace", "--base-url", &server.url()])
        .args(extra)
        .arg("go");
    let out = output(cmd).await;
    let bodies = server
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    (out, bodies)
}

#[tokio::test]
async fn a_pre_tool_use_hook_exiting_2_blocks_and_the_model_gets_the_reason() {
    let dir = workspace(
        r#"permission_mode = "bypass"
[[hooks.PreToolUse]]
matcher = "Bash"
hooks = [{ type = "command", command = "echo 'rm is not allowed here' >&2; exit 2" }]
"#,
    );
    let (out, bodies) = exec(
        &dir,
        &[bash_turn("rm keep.txt"), r#"{"text": "ok"}"#.into()],
        &[],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(dir.path().join("keep.txt").exists());
    assert!(bodies[1].contains("rm is not allowed here"));
    assert!(text(&out.stderr).contains("PreToolUse hook blocked: rm is not allowed here"));
}

#[tokio::test]
async fn updated_input_from_a_hook_changes_what_runs() {
    let dir = workspace(
        r#"permission_mode = "bypass"
[[hooks.PreToolUse]]
command = '''echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "echo safer"}}}' '''
"#,
    );
    let (out, bodies) = exec(
        &dir,
        &[bash_turn("echo risky"), r#"{"text": "ok"}"#.into()],
        &[],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        bodies[1].contains(r#""content":"safer\n""#),
        "{}",
        bodies[1]
    );
}

#[tokio::test]
async fn a_stop_hook_exiting_2_makes_the_agent_continue_once_more() {
    let dir = workspace(
        r#"[[hooks.Stop]]
command = "grep -q '\"stop_hook_active\":false' && { echo 'also update the changelog' >&2; exit 2; }; exit 0"
"#,
    );
    let turns = [
        r#"{"text": "done"}"#.to_string(),
        r#"{"text": "changelog updated"}"#.to_string(),
    ];
    let (out, bodies) = exec(&dir, &turns, &[]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(bodies.len(), 2);
    assert!(bodies[1].contains("also update the changelog"));
    assert_eq!(text(&out.stdout), "changelog updated\n");
}

#[tokio::test]
async fn plan_mode_refuses_an_edit() {
    let dir = workspace("permission_mode = \"plan\"\n");
    let write = r#"{"tool_calls": [{"name": "write_file", "arguments": {"path": "keep.txt", "content": "changed"}}]}"#;
    let (out, bodies) = exec(
        &dir,
        &[write.into(), r#"{"text": "here is my plan"}"#.into()],
        &[],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("keep.txt")).unwrap(),
        "precious\n"
    );
    assert!(bodies[1].contains("plan mode"), "{}", bodies[1]);
}

#[tokio::test]
async fn exec_in_plan_mode_prints_the_plan_as_its_answer() {
    let dir = workspace("");
    let plan = r###"{"text": "Looked around.", "tool_calls": [{"name": "exit_plan_mode", "arguments": {"plan": "## Plan\n- change keep.txt"}}]}"###;
    let (out, bodies) = exec(&dir, &[plan.into()], &["--permission-mode", "plan"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "## Plan\n- change keep.txt");
    assert_eq!(bodies.len(), 1, "the run ends with the plan");
    assert!(bodies[0].contains("exit_plan_mode"));
}

#[tokio::test]
async fn eight_read_only_calls_overlap_in_time() {
    let dir = workspace("");
    let calls: Vec<String> = (0..8)
        .map(|_| r#"{"name": "bash", "arguments": {"command": "sleep 0.3"}}"#.to_string())
        .collect();
    let turn = format!(r#"{{"tool_calls": [{}]}}"#, calls.join(","));
    let (out, _) = exec(
        &dir,
        &[turn, r#"{"text": "ok"}"#.into()],
        &["--output-format", "stream-json"],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let kinds: Vec<String> = text(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["type"].as_str().map(str::to_string))
        .filter(|t| t == "tool_call_start" || t == "tool_call_end")
        .collect();
    assert_eq!(kinds.len(), 16);
    assert!(
        kinds[..8].iter().all(|k| k == "tool_call_start"),
        "all eight started before any ended: {kinds:?}"
    );
    let durations: Vec<u64> = text(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "result")
        .filter_map(|v| v["duration_ms"].as_u64())
        .collect();
    assert!(
        durations[0] < 2_000,
        "sequential would take 2.4 s: {durations:?}"
    );
}
