//! Workspace-escape attacks against every file tool, on a real temp tree: nothing outside the
//! workspace or in a sensitive file is read, listed or written.

use std::os::unix::fs::symlink;
use std::path::Path;

use serde_json::{Value, json};

use crate::support::Workspace;

const SECRET: &str = "TOPSECRET-7f3a";

/// The tree: `ws/` (the workspace) next to `outside/` and `ws-evil/` (a sibling whose name
/// has the workspace's as a prefix), each holding a secret; symlinks from the workspace out.
fn attack_tree() -> Workspace {
    let ws = Workspace::new();
    let base = ws.outside.parent().unwrap().to_path_buf();
    std::fs::write(ws.outside.join("secret.txt"), SECRET).unwrap();
    std::fs::create_dir_all(base.join("ws-evil")).unwrap();
    std::fs::write(base.join("ws-evil/secret.txt"), SECRET).unwrap();
    symlink(ws.outside.join("secret.txt"), ws.root.join("link_file")).unwrap();
    symlink(&ws.outside, ws.root.join("link_dir")).unwrap();
    symlink(ws.outside.join("planted.txt"), ws.root.join("dangling")).unwrap();
    ws.write(".env", format!("API_KEY={SECRET}\n"));
    ws.write("app/.env.local", format!("API_KEY={SECRET}\n"));
    ws.write("ok.txt", "fine\n");
    // What a real machine has, in temp folders: a system file and the home's secrets.
    std::fs::create_dir_all(base.join("etc")).unwrap();
    std::fs::write(base.join("etc/passwd"), SECRET).unwrap();
    std::fs::create_dir_all(ws.home.join(".ssh")).unwrap();
    std::fs::write(ws.home.join(".ssh/id_ed25519"), SECRET).unwrap();
    std::fs::write(ws.home.join(".bashrc"), SECRET).unwrap();
    ws
}

/// Why the guard refuses a path: the words its message says it with.
const OUTSIDE: &str = "is outside the workspace";
const OFF_LIMITS: &str = "is off limits";
const NUL: &str = "contains a NUL byte";
const TOO_LONG: &str = "is longer than 4096 bytes";

/// Paths an attacker (or a confused model) might pass, by name, with why each is refused.
fn attack_paths(ws: &Workspace) -> Vec<(&'static str, String, &'static str)> {
    let outside = ws.outside.display().to_string();
    let base = ws.outside.parent().unwrap();
    let evil = base.join("ws-evil");
    vec![
        ("traversal", "../outside/secret.txt".into(), OUTSIDE),
        (
            "deep traversal",
            "a/../../outside/secret.txt".into(),
            OUTSIDE,
        ),
        ("absolute outside", format!("{outside}/secret.txt"), OUTSIDE),
        (
            "absolute system",
            format!("{}/etc/passwd", base.display()),
            OUTSIDE,
        ),
        ("symlink file", "link_file".into(), OUTSIDE),
        ("symlink dir", "link_dir/secret.txt".into(), OUTSIDE),
        ("dangling symlink out", "dangling".into(), OUTSIDE),
        ("sibling prefix", "../ws-evil/secret.txt".into(), OUTSIDE),
        (
            "sibling prefix absolute",
            format!("{}/secret.txt", evil.display()),
            OUTSIDE,
        ),
        ("home", "~/.bashrc".into(), OUTSIDE),
        ("home ssh", "~/.ssh/id_ed25519".into(), OUTSIDE),
        ("sensitive env", ".env".into(), OFF_LIMITS),
        ("sensitive nested env", "app/.env.local".into(), OFF_LIMITS),
        ("nul byte", "ok.txt\0../../outside/secret.txt".into(), NUL),
        (
            "proc root alias",
            format!("/proc/self/root{outside}/secret.txt"),
            OUTSIDE,
        ),
        ("over-long", "a/".repeat(3000), TOO_LONG),
    ]
}

/// The outside world is exactly as the tree set it up.
fn assert_untouched(ws: &Workspace, case: &str) {
    let base = ws.outside.parent().unwrap();
    for file in ["outside/secret.txt", "ws-evil/secret.txt", "etc/passwd"] {
        let text = std::fs::read_to_string(base.join(file)).unwrap();
        assert_eq!(text, SECRET, "{case}: {file} changed");
    }
    for file in [".bashrc", ".ssh/id_ed25519"] {
        let text = std::fs::read_to_string(ws.home.join(file)).unwrap();
        assert_eq!(text, SECRET, "{case}: ~/{file} changed");
    }
    assert_eq!(names(&ws.home), [".bashrc", ".ssh"], "{case}");
    assert!(
        !ws.outside.join("planted.txt").exists(),
        "{case}: wrote outside"
    );
    let env = std::fs::read_to_string(ws.root.join(".env")).unwrap();
    assert_eq!(env, format!("API_KEY={SECRET}\n"), "{case}: .env changed");
    assert_eq!(names(&ws.outside), ["secret.txt"], "{case}");
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Runs `tool` with the arguments `make(path)` for every attack path.
async fn refuses_every_attack(tool: &str, make: impl Fn(&str) -> Value) {
    let ws = attack_tree();
    for (case, path, why) in attack_paths(&ws) {
        let out = ws.call(tool, make(&path)).await;
        assert!(out.is_error, "{tool} / {case}: not refused: {}", out.text);
        // Refused by the guard, not failing for some other reason.
        assert!(
            out.text.contains(why),
            "{tool} / {case}: refused without saying {why:?}: {}",
            out.text
        );
        assert!(
            !out.text.contains(SECRET),
            "{tool} / {case}: leaked: {}",
            out.text
        );
        assert_untouched(&ws, case);
    }
}

#[tokio::test]
async fn read_file_refuses_every_attack() {
    refuses_every_attack("read_file", |path| json!({"path": path})).await;
}

#[tokio::test]
async fn write_file_refuses_every_attack() {
    refuses_every_attack(
        "write_file",
        |path| json!({"path": path, "content": "planted"}),
    )
    .await;
}

#[tokio::test]
async fn refusals_say_why() {
    let ws = attack_tree();
    let cases = [
        ("../outside/secret.txt", "is outside the workspace"),
        (".env", "is off limits (it matches .env*)"),
        ("ok.txt\0x", "contains a NUL byte"),
    ];
    for (path, why) in cases {
        let out = ws.call("read_file", json!({"path": path})).await;
        assert!(out.text.contains(why), "{path:?}: {}", out.text);
    }
}

#[tokio::test]
async fn edit_file_refuses_every_attack() {
    refuses_every_attack(
        "edit_file",
        |path| json!({"path": path, "old_string": SECRET, "new_string": "planted"}),
    )
    .await;
}

#[tokio::test]
async fn grep_and_glob_refuse_every_attack_path() {
    refuses_every_attack("grep", |path| json!({"pattern": "TOPSECRET", "path": path})).await;
    refuses_every_attack("glob", |path| json!({"pattern": "**/*", "path": path})).await;
}

#[tokio::test]
async fn apply_patch_refuses_every_attack() {
    refuses_every_attack("apply_patch", |path| {
        json!({"patch": format!("*** Begin Patch\n*** Add File: {path}\n+planted\n*** End Patch\n")})
    })
    .await;
    refuses_every_attack("apply_patch", |path| {
        json!({"patch": format!(
            "*** Begin Patch\n*** Update File: {path}\n@@\n-{SECRET}\n+planted\n*** End Patch\n"
        )})
    })
    .await;
}
