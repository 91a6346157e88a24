//! `glob` and `grep` on real trees: ordering, caps, ignore files, modes, filters, binary files
//! and the guard's rules.

use std::os::unix::fs::symlink;
use std::time::{Duration, SystemTime};

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::support::Workspace;

fn set_age(ws: &Workspace, rel: &str, seconds_ago: u64) {
    let file = std::fs::File::options()
        .write(true)
        .open(ws.root.join(rel))
        .unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(seconds_ago))
        .unwrap();
}

fn tree() -> Workspace {
    let ws = Workspace::new();
    ws.write("src/main.rs", "fn main() {\n    println!(\"hello\");\n}\n");
    ws.write(
        "src/lib.rs",
        "pub fn add(a: i32) -> i32 {\n    a + 1\n}\n// TODO: more\n",
    );
    ws.write("src/util/mod.rs", "pub fn helper() {}\n// todo lower\n");
    ws.write("README.md", "# Title\nTODO: docs\n");
    ws.write("notes.py", "def main():\n    pass  # TODO\n");
    ws.write(".gitignore", "target/\n*.log\n");
    ws.write("target/debug/out.rs", "fn main() {} // TODO generated\n");
    ws.write("run.log", "TODO in a log\n");
    ws.write(".github/workflows/ci.yml", "on: push # TODO\n");
    ws.write("image.bin", b"TODO\0\x01\x02binary");
    set_age(&ws, "src/main.rs", 300);
    set_age(&ws, "src/lib.rs", 100);
    set_age(&ws, "src/util/mod.rs", 200);
    set_age(&ws, "README.md", 400);
    set_age(&ws, "notes.py", 500);
    set_age(&ws, ".github/workflows/ci.yml", 600);
    ws
}

async fn text(ws: &Workspace, tool: &str, args: serde_json::Value) -> String {
    let out = ws.call(tool, args).await;
    assert!(!out.is_error, "{}", out.text);
    out.text
}

#[tokio::test]
async fn glob_lists_newest_first_and_honours_gitignore() {
    let ws = tree();
    let out = text(&ws, "glob", json!({"pattern": "**/*.rs"})).await;
    assert_eq!(out, "src/lib.rs\nsrc/util/mod.rs\nsrc/main.rs");
    let names = text(&ws, "glob", json!({"pattern": "*.yml"})).await;
    assert_eq!(
        names, ".github/workflows/ci.yml",
        "hidden folders are searched, names match at any depth"
    );
    let scoped = text(&ws, "glob", json!({"pattern": "*.rs", "path": "src/util"})).await;
    assert_eq!(scoped, "src/util/mod.rs");
    let none = text(&ws, "glob", json!({"pattern": "*.java"})).await;
    assert_eq!(none, "No files match \"*.java\" (searched .).");
}

#[tokio::test]
async fn glob_caps_at_100_and_states_the_total() {
    let ws = Workspace::new();
    for n in 0..130 {
        ws.write(&format!("f/{n}.txt"), "x");
    }
    let out = text(&ws, "glob", json!({"pattern": "**/*.txt"})).await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 101);
    assert_eq!(
        lines[100],
        "(showing 100 of 130 files, newest first; narrow the pattern or path)"
    );
}

#[tokio::test]
async fn grep_lists_files_newest_first_by_default() {
    let ws = tree();
    let out = text(&ws, "grep", json!({"pattern": "TODO"})).await;
    let mut lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "src/lib.rs", "newest of the dated files first");
    lines.sort();
    assert_eq!(
        lines,
        [
            ".github/workflows/ci.yml",
            "README.md",
            "notes.py",
            "src/lib.rs"
        ]
    );
}

#[tokio::test]
async fn grep_content_mode_prints_numbered_lines_with_context() {
    let ws = tree();
    let out = text(
        &ws,
        "grep",
        json!({"pattern": "a \\+ 1", "output_mode": "content", "context": 1}),
    )
    .await;
    assert_eq!(
        out,
        "src/lib.rs-1-pub fn add(a: i32) -> i32 {\nsrc/lib.rs:2:    a + 1\nsrc/lib.rs-3-}"
    );
}

#[tokio::test]
async fn grep_count_case_type_glob_and_multiline() {
    let ws = tree();
    let count = text(&ws, "grep", json!({"pattern": "todo", "case_insensitive": true, "output_mode": "count", "type": "rust"})).await;
    assert_eq!(count, "src/lib.rs:1\nsrc/util/mod.rs:1");
    let globbed = text(&ws, "grep", json!({"pattern": "TODO", "glob": "*.md"})).await;
    assert_eq!(globbed, "README.md");
    let multi = text(
        &ws,
        "grep",
        json!({"pattern": "fn main\\(\\) \\{\\n\\s+println", "multiline": true}),
    )
    .await;
    assert_eq!(multi, "src/main.rs");
}

#[tokio::test]
async fn grep_head_limit_caps_and_says_so() {
    let ws = Workspace::new();
    ws.write("many.txt", "hit\n".repeat(50));
    let out = text(
        &ws,
        "grep",
        json!({"pattern": "hit", "output_mode": "content", "head_limit": 5}),
    )
    .await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[0], "many.txt:1:hit");
    assert!(
        lines[5].starts_with("(output capped at 5 lines; 50 matching lines in 1 files"),
        "{}",
        lines[5]
    );
}

#[tokio::test]
async fn grep_errors_name_the_problem() {
    let ws = tree();
    let cases = [
        (
            json!({"pattern": "(unclosed"}),
            "invalid regex \"(unclosed\"",
        ),
        (
            json!({"pattern": "x", "type": "klingon"}),
            "unknown file type \"klingon\"; known types include rust",
        ),
        (
            json!({"pattern": "x", "path": "../"}),
            "outside the workspace",
        ),
        (
            json!({"pattern": "x", "path": "nope"}),
            "path not found: nope",
        ),
    ];
    for (args, message) in cases {
        let out = ws.call("grep", args.clone()).await;
        assert!(
            out.is_error && out.text.contains(message),
            "{args}: {}",
            out.text
        );
    }
}

#[tokio::test]
async fn searches_never_leave_the_workspace_or_read_secrets() {
    let ws = Workspace::new();
    std::fs::write(ws.outside.join("secret.txt"), "NEEDLE outside").unwrap();
    symlink(&ws.outside, ws.root.join("link_dir")).unwrap();
    symlink(ws.outside.join("secret.txt"), ws.root.join("link_file")).unwrap();
    ws.write(".env", "NEEDLE=1\n");
    ws.write("config/.env.local", "NEEDLE=2\n");
    ws.write("inside.txt", "NEEDLE inside\n");
    symlink(ws.root.join("inside.txt"), ws.root.join("alias.txt")).unwrap();
    let out = text(
        &ws,
        "grep",
        json!({"pattern": "NEEDLE", "output_mode": "content"}),
    )
    .await;
    assert!(
        !out.contains("outside") && !out.contains("NEEDLE=") && !out.contains(".env"),
        "{out}"
    );
    assert!(out.contains("inside.txt:1:NEEDLE inside"), "{out}");
    assert!(
        out.contains("alias.txt:1:NEEDLE inside"),
        "a symlink inside the workspace is followed: {out}"
    );
    let listed = text(&ws, "glob", json!({"pattern": "**/*"})).await;
    assert!(
        !listed.contains("secret") && !listed.contains(".env") && !listed.contains("link_"),
        "{listed}"
    );
}
