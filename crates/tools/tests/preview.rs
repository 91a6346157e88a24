//! What a file tool's call would change, worked out before it runs (the permission prompt's
//! diff), and what it did change (the transcript's): the same numbered hunks, and a preview
//! that changes nothing on disk.

use pretty_assertions::assert_eq;
use rein_tools::{of_details, unified};
use serde_json::{Value, json};

use crate::support::Workspace;

impl Workspace {
    fn preview(&self, tool: &str, args: &Value) -> Option<String> {
        unified(&self.registry.preview(tool, args, &self.ctx.guard))
    }

    /// What the call reports it changed, as the engine sends it.
    async fn changed(&self, tool: &str, args: Value) -> Option<String> {
        let details = self.details(tool, args).await?;
        unified(&of_details(&details, &self.ctx.guard))
    }

    /// Every file and folder under the root, with contents.
    fn tree(&self) -> Vec<(String, Option<String>)> {
        let mut all = Vec::new();
        let mut stack = vec![self.root.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                let shown = path.strip_prefix(&self.root).unwrap().display().to_string();
                if path.is_dir() {
                    stack.push(path);
                    all.push((shown, None));
                } else {
                    all.push((shown, std::fs::read_to_string(&path).ok()));
                }
            }
        }
        all.sort();
        all
    }
}

fn numbered(count: usize) -> String {
    (1..=count).map(|n| format!("line {n}\n")).collect()
}

#[tokio::test]
async fn an_edit_previews_numbered_hunks_with_context_and_then_reports_the_same() {
    let ws = Workspace::new();
    ws.write("src/a.txt", numbered(30));
    let args = json!({"path": "src/a.txt", "old_string": "line 20\n", "new_string": "twenty\n"});
    let before = ws.tree();
    let preview = ws.preview("edit_file", &args);
    assert_eq!(ws.tree(), before, "a preview writes nothing");
    assert_eq!(
        preview.as_deref(),
        Some(
            "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -17,7 +17,7 @@\n line 17\n line 18\n line 19\n\
             -line 20\n+twenty\n line 21\n line 22\n line 23\n"
        )
    );
    assert_eq!(ws.changed("edit_file", args).await, preview);
}

#[tokio::test]
async fn an_unchanged_line_is_not_shown_as_removed_and_added() {
    let ws = Workspace::new();
    ws.write("a.rs", "fn a() {\n    one();\n    two();\n}\n");
    // The model quotes three lines and changes the middle one.
    let args = json!({
        "path": "a.rs",
        "old_string": "fn a() {\n    one();\n    two();",
        "new_string": "fn a() {\n    uno();\n    two();",
    });
    let diff = ws.preview("edit_file", &args).unwrap();
    assert!(
        diff.contains("\n fn a() {\n-    one();\n+    uno();\n     two();\n"),
        "{diff}"
    );
}

#[tokio::test]
async fn a_write_previews_its_true_size_and_creates_no_folder() {
    let ws = Workspace::new();
    let content = numbered(200);
    let args = json!({"path": "new/dir/notes.txt", "content": content});
    let diff = ws.preview("write_file", &args).unwrap();
    assert!(diff.starts_with("--- /dev/null\n+++ b/new/dir/notes.txt\n@@ -0,0 +1,200 @@\n"));
    assert_eq!(diff.lines().filter(|l| l.starts_with('+')).count(), 201);
    assert_eq!(ws.tree(), [], "no folder made for a preview");

    ws.write("old.txt", numbered(5));
    let args = json!({"path": "old.txt", "content": "line 1\nline 2\nLINE 3\nline 4\nline 5\n"});
    let diff = ws.preview("write_file", &args).unwrap();
    assert!(
        diff.contains("@@ -1,5 +1,5 @@\n line 1\n line 2\n-line 3\n+LINE 3\n"),
        "{diff}"
    );
    assert_eq!(ws.changed("write_file", args).await.unwrap(), diff);
}

#[tokio::test]
async fn a_patch_previews_each_file_and_writes_nothing() {
    let ws = Workspace::new();
    ws.write("keep.txt", numbered(10));
    ws.write("gone.txt", "bye\n");
    let patch = "*** Begin Patch\n*** Update File: keep.txt\n@@\n line 4\n-line 5\n+five\n\
                 *** Add File: sub/new.txt\n+fresh\n*** Delete File: gone.txt\n*** End Patch";
    let args = json!({"patch": patch});
    let before = ws.tree();
    let diff = ws.preview("apply_patch", &args).unwrap();
    assert_eq!(ws.tree(), before, "a preview writes nothing");
    assert_eq!(
        diff,
        "--- a/keep.txt\n+++ b/keep.txt\n@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n\
         +five\n line 6\n line 7\n line 8\n\
         --- /dev/null\n+++ b/sub/new.txt\n@@ -0,0 +1,1 @@\n+fresh\n\
         --- a/gone.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-bye\n"
    );
    assert_eq!(ws.changed("apply_patch", args).await.unwrap(), diff);
    assert!(!ws.root.join("gone.txt").exists());
}

#[tokio::test]
async fn calls_that_would_fail_or_change_nothing_preview_nothing() {
    let ws = Workspace::new();
    ws.write("a.txt", "alpha\n");
    for (tool, args) in [
        (
            "edit_file",
            json!({"path": "a.txt", "old_string": "missing", "new_string": "x"}),
        ),
        (
            "edit_file",
            json!({"path": "../outside.txt", "old_string": "", "new_string": "x"}),
        ),
        ("write_file", json!({"path": "/etc/passwd", "content": "x"})),
        ("apply_patch", json!({"patch": "not a patch"})),
        ("bash", json!({"command": "echo hi"})),
        ("edit_file", json!({"path": 3})),
    ] {
        assert_eq!(ws.preview(tool, &args), None, "{tool} {args}");
    }
}
