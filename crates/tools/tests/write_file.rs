//! `write_file`: parents created, atomic replace, mode kept, sizes reported.

use std::os::unix::fs::PermissionsExt;

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::support::Workspace;

#[tokio::test]
async fn creates_a_file_and_its_missing_parents() {
    let ws = Workspace::new();
    let out = ws
        .call(
            "write_file",
            json!({"path": "a/b/c.txt", "content": "one\ntwo\n"}),
        )
        .await;
    assert_eq!(out.text, "Created a/b/c.txt: 2 lines, 8 bytes");
    assert!(!out.is_error);
    let written = std::fs::read_to_string(ws.root.join("a/b/c.txt")).unwrap();
    assert_eq!(written, "one\ntwo\n");
}

#[tokio::test]
async fn replacing_keeps_the_mode_and_leaves_no_temp_file() {
    let ws = Workspace::new();
    let path = ws.write("run.sh", "echo old\n");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = ws
        .call(
            "write_file",
            json!({"path": "run.sh", "content": "echo new"}),
        )
        .await;
    assert_eq!(out.text, "Replaced run.sh: 1 line, 8 bytes");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "echo new");
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o755);
    let names: Vec<_> = std::fs::read_dir(&ws.root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["run.sh"]);
}

#[tokio::test]
async fn a_directory_or_a_file_as_parent_is_an_error() {
    let ws = Workspace::new();
    std::fs::create_dir(ws.root.join("dir")).unwrap();
    ws.write("file.txt", "x");
    let out = ws
        .call("write_file", json!({"path": "dir", "content": "x"}))
        .await;
    assert!(out.is_error);
    assert!(out.text.contains("dir is a directory"), "{}", out.text);
    let out = ws
        .call(
            "write_file",
            json!({"path": "file.txt/inner.txt", "content": "x"}),
        )
        .await;
    assert!(out.is_error, "{}", out.text);
    assert_eq!(
        std::fs::read_to_string(ws.root.join("file.txt")).unwrap(),
        "x"
    );
}

#[tokio::test]
async fn writing_through_a_symlink_inside_the_workspace_replaces_the_target() {
    let ws = Workspace::new();
    let target = ws.write("real.txt", "old");
    std::os::unix::fs::symlink(&target, ws.root.join("alias.txt")).unwrap();
    let out = ws
        .call("write_file", json!({"path": "alias.txt", "content": "new"}))
        .await;
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
    let alias = std::fs::symlink_metadata(ws.root.join("alias.txt")).unwrap();
    assert!(alias.file_type().is_symlink(), "the link itself is kept");
}
