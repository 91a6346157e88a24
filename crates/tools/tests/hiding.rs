//! What the OS sandbox hides from the commands it runs: every path the guard refuses, at any
//! depth of the workspace (sensitive names such as `.env*`) and wherever a `Read` deny rule's
//! glob reaches in the view, whatever program reads it and however it names it. Each attack
//! runs a real command through the bash tool in a real sandbox and must not print the secret.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use rein_sandbox::{Policy, Sandbox, Settings};
use rein_tools::{SensitivePaths, WorkspaceGuard};
use serde_json::json;

use crate::support::Workspace;

/// The sandbox of this machine with `settings`: rein's native helper (this crate's copy of
/// it), else bubblewrap; `None` when neither works (the test is skipped visibly, or fails
/// under CI=true).
pub fn sandbox(settings: Settings, test: &str) -> Option<Arc<Sandbox>> {
    let helper = Path::new(env!("CARGO_BIN_EXE_rein-tools-sandbox-helper"));
    match Sandbox::find(settings, Some(helper)) {
        Ok(sandbox) => Some(Arc::new(sandbox)),
        Err(why) => {
            rein_testkit::skip(test, &why.to_string());
            None
        }
    }
}

/// A workspace whose guard also refuses the `Read` deny rules given as the absolute globs the
/// engine makes of them (`Read(./secrets/**)` is `<root>/secrets/**` and `<root>/secrets/**/**`),
/// run under `policy` in `settings`' sandbox.
fn workspace(globs: &[&str], settings: Settings, policy: Policy, test: &str) -> Option<Workspace> {
    let mut ws = Workspace::new();
    let mut list = SensitivePaths::new(
        rein_tools::DEFAULT_SENSITIVE.iter().copied(),
        Some(&ws.home),
    )
    .unwrap();
    for glob in globs {
        let glob = glob
            .replace("<root>", &ws.root.display().to_string())
            .replace("<home>", &ws.home.display().to_string());
        list = list.with_glob(&glob, "deny rule").unwrap();
    }
    ws.ctx.guard = WorkspaceGuard::new(&ws.root)
        .unwrap()
        .with_home(&ws.home)
        .with_sensitive(list);
    ws.ctx.sandbox = Some(sandbox(settings, test)?);
    ws.ctx.sandbox_policy = policy;
    Some(ws)
}

/// Runs `command` through the bash tool; its output.
async fn run(ws: &Workspace, command: &str) -> String {
    ws.call("bash", json!({ "command": command })).await.text
}

/// Sets the modification time of every folder under `root` to a minute ago, so that the
/// sandbox's kept listings are trusted until a folder changes.
fn age(root: &Path) {
    let past = SystemTime::now() - Duration::from_secs(60);
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            }
        }
        std::fs::File::open(&dir)
            .unwrap()
            .set_modified(past)
            .unwrap();
    }
}

const DENY_SECRETS: &[&str] = &["<root>/secrets/**", "<root>/secrets/**/**"];
const DENY_PEM: &[&str] = &["<root>/**/*.pem", "<root>/**/*.pem/**"];

#[tokio::test]
async fn sensitive_files_are_hidden_at_every_depth_whatever_reads_them() {
    for policy in [Policy::ReadOnly, Policy::WorkspaceWrite] {
        let test = "sensitive_files_are_hidden_at_every_depth";
        let Some(ws) = workspace(&[], Settings::default(), policy, test) else {
            return;
        };
        ws.write("sub/.env", "SECRET-sub");
        ws.write("sub/deeper/.env.local", "SECRET-deeper");
        ws.write("sub/notes.txt", "ordinary");
        let attacks = [
            "cat sub/.env",
            "cat sub/deeper/.env.local",
            "cat sub/.e*",
            "grep -r SECRET .",
            "python3 -c \"print(open('sub/.env').read())\"",
            "cat $PWD/sub/deeper/.env.local",
            "(cd sub/deeper && cat .env.local)",
        ];
        for line in attacks {
            let out = run(&ws, line).await;
            assert!(!out.contains("SECRET"), "{policy}: {line}: {out}");
        }
        // The sandbox ran the lines: what is not sensitive is still there.
        let out = run(&ws, "cat sub/notes.txt; ls -A sub").await;
        assert!(out.contains("ordinary"), "{policy}: {out}");
    }
}

#[tokio::test]
async fn a_secret_created_after_an_earlier_call_is_hidden_too() {
    let test = "a_secret_created_after_an_earlier_call";
    let Some(ws) = workspace(
        DENY_SECRETS,
        Settings::default(),
        Policy::WorkspaceWrite,
        test,
    ) else {
        return;
    };
    ws.write("a/b/c/keep.txt", "ordinary");
    ws.write("secrets/old", "SECRET-old");
    // Old folders: the kept listings are trusted from now on, until a folder changes.
    age(&ws.root);
    assert!(run(&ws, "cat a/b/c/keep.txt").await.contains("ordinary"));
    ws.write("a/b/c/.env", "SECRET-env");
    ws.write("secrets/new", "SECRET-new");
    ws.write("a/b/c/new.pem", "not denied here");
    for line in ["cat a/b/c/.env", "cat secrets/new", "grep -r SECRET ."] {
        let out = run(&ws, line).await;
        assert!(!out.contains("SECRET"), "{line}: {out}");
    }
    assert!(run(&ws, "cat a/b/c/new.pem").await.contains("not denied"));
}

#[tokio::test]
async fn read_deny_rules_reach_the_kernel() {
    for policy in [Policy::ReadOnly, Policy::WorkspaceWrite] {
        let test = "read_deny_rules_reach_the_kernel";
        let globs = [DENY_SECRETS, DENY_PEM].concat();
        let Some(ws) = workspace(&globs, Settings::default(), policy, test) else {
            return;
        };
        ws.write("secrets/k", "SECRET-k");
        ws.write("secrets/nested/k2", "SECRET-k2");
        ws.write("src/deep/er/server.pem", "SECRET-pem");
        ws.write("src/deep/er/server.txt", "ordinary");
        let attacks = [
            "cat secrets/k",
            "cat secrets/nested/k2",
            "grep -r SECRET .",
            "grep -r SECRET secrets",
            "python3 -c \"print(open('secrets/k').read())\"",
            "cat $PWD/secrets/k",
            "cat src/deep/er/server.pem",
            "find . -name '*.pem' -exec cat {} +",
            "python3 -c \"print(open('src/deep/er/server.pem').read())\"",
        ];
        for line in attacks {
            let out = run(&ws, line).await;
            assert!(!out.contains("SECRET"), "{policy}: {line}: {out}");
        }
        let out = run(&ws, "cat src/deep/er/server.txt").await;
        assert!(out.contains("ordinary"), "{policy}: {out}");
    }
}

#[tokio::test]
async fn a_read_deny_rule_on_a_read_root_hides_its_paths_there() {
    let test = "a_read_deny_rule_on_a_read_root";
    let mut ws = Workspace::new();
    // A toolchain folder shown read-only, outside the workspace.
    let tools_root = ws.home.join(".tools");
    std::fs::create_dir_all(tools_root.join("cfg/deep")).unwrap();
    std::fs::write(tools_root.join("cfg/deep/token.key"), "SECRET-token").unwrap();
    std::fs::write(tools_root.join("cfg/deep/readme"), "ordinary").unwrap();
    let settings = Settings {
        read_roots: vec![tools_root.clone()],
        ..Settings::default()
    };
    let list = SensitivePaths::new(
        rein_tools::DEFAULT_SENSITIVE.iter().copied(),
        Some(&ws.home),
    )
    .unwrap()
    .with_glob(&format!("{}/**/*.key", ws.home.display()), "deny rule")
    .unwrap();
    ws.ctx.guard = ws.ctx.guard.clone().with_sensitive(list);
    let Some(sandbox) = sandbox(settings, test) else {
        return;
    };
    ws.ctx.sandbox = Some(sandbox);
    ws.ctx.sandbox_policy = Policy::ReadOnly;
    let dir = tools_root.join("cfg/deep").display().to_string();
    let out = run(&ws, &format!("cat {dir}/token.key; grep -r SECRET {dir}")).await;
    assert!(!out.contains("SECRET"), "{out}");
    assert!(
        run(&ws, &format!("cat {dir}/readme"))
            .await
            .contains("ordinary")
    );
}

#[tokio::test]
async fn ordinary_files_stay_readable_and_writable_beside_hidden_ones() {
    let test = "ordinary_files_stay_readable_and_writable";
    let Some(ws) = workspace(
        DENY_SECRETS,
        Settings::default(),
        Policy::WorkspaceWrite,
        test,
    ) else {
        return;
    };
    ws.write("sub/.env", "SECRET");
    ws.write("secrets/k", "SECRET");
    ws.write("sub/code.rs", "fn main() {}");
    let out = run(
        &ws,
        "cat sub/code.rs && echo made > sub/made.txt && mkdir -p deep/er && echo x > deep/er/y \
         && python3 -c \"print(open('sub/code.rs').read())\"",
    )
    .await;
    assert!(out.contains("fn main"), "{out}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("sub/made.txt")).unwrap(),
        "made\n"
    );
    assert!(ws.root.join("deep/er/y").exists());
    // The secrets themselves are untouched by the hiding.
    assert_eq!(
        std::fs::read_to_string(ws.root.join("sub/.env")).unwrap(),
        "SECRET"
    );
}
