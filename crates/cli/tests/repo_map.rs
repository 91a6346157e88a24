//! The repository map as a tool: `rein tool repo_map` on a real project (sensitive files left
//! out, the cache under rein's cache folder), the model calling it with a focus, and
//! `[tools] repo_map_tokens = 0` taking it away.

use std::path::Path;

use serde_json::Value;

use crate::support::*;

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Four modules using `Registry`, a helper, and a file the workspace marks sensitive.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "src/registry.rs",
        "pub struct Registry;\nimpl Registry {\n    pub fn register(&mut self) {}\n}\n",
    );
    write(root, "src/helper.rs", "pub struct HelperKind;\n");
    for n in 0..4 {
        write(
            root,
            &format!("src/module_{n}.rs"),
            &format!("pub fn setup_{n}(r: &mut Registry) {{ r.register(); }}\n"),
        );
    }
    write(root, "src/secret.rs", "pub struct SecretThing(Registry);\n");
    write(
        root,
        ".rein/config.toml",
        "[tools]\nsensitive_paths = [\"secret.rs\"]\n",
    );
    dir
}

#[tokio::test]
async fn rein_tool_maps_the_project_without_its_sensitive_files() {
    let dir = project();
    let mut cmd = rein(dir.path());
    cmd.args(["tool", "repo_map", "--args", "{}"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let map = text(&out.stdout);
    let lines: Vec<&str> = map.lines().collect();
    assert!(lines[0].contains("in 6 files"), "{map}");
    assert_eq!(lines[1], "src/registry.rs:", "{map}");
    assert_eq!(lines[2], "    1│pub struct Registry;", "{map}");
    assert!(!map.contains("SecretThing"), "{map}");
    let cached = std::fs::read_dir(dir.path().join(".rein-test-cache/rein/repo-map"))
        .unwrap()
        .count();
    assert_eq!(cached, 1);
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn the_model_centres_the_map_on_a_file() {
    let dir = project();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "repo_map", "arguments": {"focus": ["helper.rs"]}}]},
          {"text": "mapped"}]}"#,
    )
    .await;
    let mut cmd = rein(dir.path());
    cmd.args(["exec", "--base-url", &server.url(), "map it"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let requests = server.requests();
    assert!(tool_names(&requests[0].body).contains(&"repo_map".to_string()));
    let sent = requests[1].body.to_string();
    assert!(
        sent.contains("src/helper.rs:\\n    1│pub struct HelperKind;"),
        "{sent}"
    );
    assert!(!sent.contains("SecretThing"), "{sent}");
}

#[tokio::test]
async fn no_tokens_no_tool() {
    let dir = project();
    write(
        dir.path(),
        ".rein-test-config/rein/config.toml",
        "[tools]\nrepo_map_tokens = 0\n",
    );
    let server = mock(r#"{"turns": [{"text": "fine"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args(["exec", "--base-url", &server.url(), "hi"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let names = tool_names(&server.requests()[0].body);
    assert!(names.contains(&"read_file".to_string()), "{names:?}");
    assert!(!names.contains(&"repo_map".to_string()), "{names:?}");
}

#[tokio::test]
async fn the_map_can_open_the_session() {
    let dir = project();
    write(
        dir.path(),
        ".rein-test-config/rein/config.toml",
        "[tools]\nrepo_map_at_start = true\nrepo_map_tokens = 300\n",
    );
    let server = mock(r#"{"turns": [{"text": "one"}, {"text": "two"}]}"#).await;
    let mut cmd = rein(dir.path());
    cmd.args(["exec", "--base-url", &server.url(), "hi"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let system = server.requests()[0].body["system"].to_string();
    assert!(system.contains("# Repository map"), "{system}");
    assert!(
        system.contains("src/registry.rs:\\n    1│pub struct Registry;"),
        "{system}"
    );
    assert!(!system.contains("SecretThing"), "{system}");
}
