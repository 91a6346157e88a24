//! The bash tool in the OS sandbox: proven read-only lines run read-only whatever the
//! classifier said, the session's policy confines the rest, and refusals are explained.

use std::sync::Arc;

use rein_sandbox::{Policy, Settings};
use rein_tools::{CallFacts, Effect, ToolContext};
use serde_json::json;

use crate::support::Workspace;

/// `ws` with the sandbox in its context, or `false` (skipped; a failure under CI=true).
fn sandboxed(ws: &mut Workspace, policy: Policy, test: &str) -> bool {
    match crate::hiding::sandbox(Settings::default(), test) {
        Some(sandbox) => {
            ws.ctx.sandbox = Some(sandbox);
            ws.ctx.sandbox_policy = policy;
            true
        }
        None => false,
    }
}

#[tokio::test]
async fn a_line_wrongly_proven_read_only_still_cannot_write() {
    let mut ws = Workspace::new();
    if !sandboxed(&mut ws, Policy::Off, "a_line_wrongly_proven_read_only") {
        return;
    }
    let line = "echo x > written.txt";
    // The engine's facts claim the line is read-only (a classifier mistake).
    let args = json!({ "command": line });
    let mut facts: CallFacts = ws.registry.facts("bash", &args, &ws.ctx.guard);
    facts.effect = Effect::ReadOnly;
    let ctx = ToolContext {
        facts: Some(Arc::new(facts)),
        ..ws.ctx.clone()
    };
    let out = ws.registry.call("bash", args, &ctx).await;
    assert!(out.is_error, "{}", out.text);
    assert!(out.text.contains("Read-only file system"), "{}", out.text);
    assert!(out.text.contains("read-only sandbox"), "{}", out.text);
    assert!(!ws.root.join("written.txt").exists());
}

#[tokio::test]
async fn workspace_write_confines_writes_and_says_the_sandbox_refused() {
    let mut ws = Workspace::new();
    if !sandboxed(
        &mut ws,
        Policy::WorkspaceWrite,
        "workspace_write_confines_writes",
    ) {
        return;
    }
    let line = format!(
        "echo in > in.txt && echo out > {}/escaped.txt",
        ws.outside.display()
    );
    let out = ws.call("bash", json!({ "command": line })).await;
    assert!(out.is_error, "{}", out.text);
    assert!(out.text.contains("workspace-write sandbox"), "{}", out.text);
    assert!(out.text.contains("`unsandboxed`"), "{}", out.text);
    assert_eq!(
        std::fs::read_to_string(ws.root.join("in.txt")).unwrap(),
        "in\n"
    );
    assert!(!ws.outside.join("escaped.txt").exists());
    // The working directory still follows `cd` inside the sandbox.
    std::fs::create_dir(ws.root.join("sub")).unwrap();
    ws.call("bash", json!({"command": "cd sub"})).await;
    let out = ws.call("bash", json!({"command": "pwd"})).await;
    assert_eq!(out.text.trim(), ws.root.join("sub").display().to_string());
}

#[tokio::test]
async fn an_approved_request_runs_outside_the_sandbox() {
    let mut ws = Workspace::new();
    if !sandboxed(
        &mut ws,
        Policy::WorkspaceWrite,
        "an_approved_request_runs_outside",
    ) {
        return;
    }
    let line = format!("echo out > {}/escaped.txt", ws.outside.display());
    let args = json!({ "command": line, "unsandboxed": "writes a file next to the workspace" });
    let out = ws.call("bash", args).await;
    assert!(!out.is_error, "{}", out.text);
    assert!(ws.outside.join("escaped.txt").exists());
}

#[tokio::test]
async fn a_required_sandbox_that_is_missing_runs_nothing() {
    let mut ws = Workspace::new();
    ws.ctx.sandbox = None;
    ws.ctx.sandbox_policy = Policy::WorkspaceWrite;
    let out = ws
        .call("bash", json!({"command": "echo x > made.txt"}))
        .await;
    assert!(out.is_error);
    assert!(
        out.text.contains("required but unavailable"),
        "{}",
        out.text
    );
    assert!(!ws.root.join("made.txt").exists());
}

#[tokio::test]
async fn a_commondir_a_command_writes_is_moved_aside_and_the_model_told() {
    let mut ws = Workspace::new();
    if !sandboxed(
        &mut ws,
        Policy::WorkspaceWrite,
        "a_commondir_is_moved_aside",
    ) {
        return;
    }
    std::fs::create_dir_all(ws.root.join(".git/hooks")).unwrap();
    std::fs::write(ws.root.join(".git/config"), "[core]\n").unwrap();
    let line = "mkdir -p evil/hooks && echo ../evil > .git/commondir";
    let out = ws.call("bash", json!({ "command": line })).await;
    assert!(!ws.root.join(".git/commondir").exists(), "{}", out.text);
    assert!(out.text.contains("rein moved it"), "{}", out.text);
    // The next call runs as usual.
    let out = ws.call("bash", json!({"command": "echo next"})).await;
    assert!(!out.is_error, "{}", out.text);
}
