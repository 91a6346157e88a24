use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;

use super::*;

fn spec(event: HookEvent, matcher: Option<&str>, command: &str) -> HookSpec {
    HookSpec {
        event,
        matcher: matcher.map(str::to_string),
        command: command.to_string(),
        timeout: Duration::from_secs(10),
        source: "test".into(),
    }
}

/// The names of a call of `tool` as dispatch gives them (the tool's own facts).
fn facts(tool: &str) -> rein_tools::CallFacts {
    let guard = rein_tools::WorkspaceGuard::new(&std::env::temp_dir()).unwrap();
    rein_tools::ToolRegistry::builtin().facts(tool, &json!({}), &guard)
}

async fn outcome(
    dir: &std::path::Path,
    specs: Vec<HookSpec>,
    event: HookEvent,
    tool: Option<&str>,
) -> (HookOutcome, Vec<Event>) {
    let hooks = Hooks::new(specs, dir.to_path_buf(), "sess-1".into());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut fields = Map::new();
    let tool = tool.map(facts);
    if let Some(tool) = &tool {
        fields.insert("tool_name".into(), json!(tool.claude_name));
        fields.insert("tool_input".into(), json!({"command": "ls"}));
    }
    let outcome = hooks
        .run(event, tool.as_ref(), "default", fields, &tx)
        .await;
    let mut events = Vec::new();
    while let Ok(e) = rx.try_recv() {
        events.push(e);
    }
    (outcome, events)
}

#[test]
fn matchers_select_tools_by_claude_code_or_rein_names() {
    let cases = [
        (None, "bash", true),
        (Some(""), "edit_file", true),
        (Some("*"), "grep", true),
        (Some("Bash"), "bash", true),
        (Some("bash"), "bash", true),
        (Some("Bash"), "read_file", false),
        (Some("Edit|Write"), "edit_file", true),
        (Some("Edit|Write"), "write_file", true),
        (Some("Edit|Write"), "read_file", false),
        (Some("mcp__github__.*"), "mcp__github__create_issue", true),
        (Some("Bas"), "bash", false),
        (Some("(unclosed"), "bash", false),
    ];
    for (matcher, tool, expected) in cases {
        assert_eq!(
            matcher_matches(matcher, &facts(tool)),
            expected,
            "{matcher:?} vs {tool}"
        );
    }
}

#[tokio::test]
async fn the_hook_gets_the_documented_json_on_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let (_, _) = outcome(
        dir.path(),
        vec![spec(
            HookEvent::PreToolUse,
            Some("Bash"),
            "cat > input.json",
        )],
        HookEvent::PreToolUse,
        Some("bash"),
    )
    .await;
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("input.json")).unwrap())
            .unwrap();
    assert_eq!(input["session_id"], "sess-1");
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["permission_mode"], "default");
    assert_eq!(input["cwd"], dir.path().display().to_string());
    assert_eq!(input["tool_name"], "Bash");
    assert_eq!(input["tool_input"]["command"], "ls");
    assert!(input.get("transcript_path").is_some());
}

#[tokio::test]
async fn exit_2_blocks_with_stderr_as_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (out, events) = outcome(
        dir.path(),
        vec![spec(
            HookEvent::PreToolUse,
            None,
            "echo 'no rm here' >&2; exit 2",
        )],
        HookEvent::PreToolUse,
        Some("bash"),
    )
    .await;
    assert_eq!(out.block.as_deref(), Some("no rm here"));
    assert!(matches!(
        &events[0],
        Event::HookRun {
            blocked: true,
            exit_code: Some(2),
            ..
        }
    ));
}

#[tokio::test]
async fn json_output_decides_rewrites_and_adds_context() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"cat <<'EOF'
{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
 "permissionDecisionReason": "double-check", "updatedInput": {"command": "ls -la"},
 "additionalContext": "the repo uses make"}, "systemMessage": "checked"}
EOF"#;
    let denier = r#"echo '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "not today"}}'"#;
    let (out, _) = outcome(
        dir.path(),
        vec![spec(HookEvent::PreToolUse, None, script)],
        HookEvent::PreToolUse,
        Some("bash"),
    )
    .await;
    assert_eq!(
        out.permission,
        Some((PermissionVerdict::Ask, "double-check".into()))
    );
    assert_eq!(out.updated_input, Some(json!({"command": "ls -la"})));
    assert_eq!(out.context, ["the repo uses make"]);
    let (both, _) = outcome(
        dir.path(),
        vec![
            spec(HookEvent::PreToolUse, None, script),
            spec(HookEvent::PreToolUse, None, denier),
        ],
        HookEvent::PreToolUse,
        Some("bash"),
    )
    .await;
    assert_eq!(
        both.permission,
        Some((PermissionVerdict::Deny, "not today".into())),
        "deny wins"
    );
}

#[tokio::test]
async fn other_failures_are_reported_but_never_block() {
    let dir = tempfile::tempdir().unwrap();
    let (out, events) = outcome(
        dir.path(),
        vec![
            spec(HookEvent::PostToolUse, None, "echo broken >&2; exit 1"),
            spec(HookEvent::PostToolUse, None, "/no/such/hook"),
        ],
        HookEvent::PostToolUse,
        Some("bash"),
    )
    .await;
    assert_eq!(out, HookOutcome::default());
    assert_eq!(events.len(), 2);
    assert!(
        matches!(&events[0], Event::HookRun { blocked: false, message: Some(m), .. } if m.contains("exit code 1: broken"))
    );
}

#[tokio::test]
async fn a_hook_over_its_timeout_is_killed_with_its_children() {
    let dir = tempfile::tempdir().unwrap();
    let mut slow = spec(
        HookEvent::Stop,
        None,
        "sleep 30 & echo $! > child.pid; sleep 30",
    );
    slow.timeout = Duration::from_millis(300);
    let started = Instant::now();
    let (out, events) = outcome(dir.path(), vec![slow], HookEvent::Stop, None).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(out.block, None);
    assert!(
        matches!(&events[0], Event::HookRun { message: Some(m), .. } if m.contains("timed out"))
    );
    let pid: i32 = std::fs::read_to_string(dir.path().join("child.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // The background child was in the hook's process group: it is gone (or a zombie).
    let mut gone = false;
    for _ in 0..50 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if stat.is_empty()
            || stat
                .rsplit_once(')')
                .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
        {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(gone, "the hook's child {pid} survived");
}

#[tokio::test]
async fn hooks_of_other_events_and_tools_do_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let (_, events) = outcome(
        dir.path(),
        vec![
            spec(HookEvent::PostToolUse, None, "touch post"),
            spec(HookEvent::PreToolUse, Some("Edit"), "touch edit"),
        ],
        HookEvent::PreToolUse,
        Some("bash"),
    )
    .await;
    assert!(events.is_empty());
    assert!(!dir.path().join("post").exists() && !dir.path().join("edit").exists());
}
