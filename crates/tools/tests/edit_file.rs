//! `edit_file` on real files: tiers reported, encodings kept, clear failures that change
//! nothing, and no lost update under concurrency.

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::support::Workspace;

async fn edit(ws: &Workspace, path: &str, old: &str, new: &str) -> rein_tools::ToolOutput {
    ws.call(
        "edit_file",
        json!({"path": path, "old_string": old, "new_string": new}),
    )
    .await
}

#[tokio::test]
async fn an_exact_edit_reports_the_tier_and_a_diff() {
    let ws = Workspace::new();
    ws.write("src/lib.rs", "fn a() {\n    one();\n}\n\nfn b() {}\n");
    let out = edit(&ws, "src/lib.rs", "one();", "two();").await;
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(
        out.text,
        "Edited src/lib.rs: 1 replacement (exact match)\n\
         --- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,4 +1,4 @@\n fn a() {\n-    one();\n+    two();\n }\n \n"
            .trim_end_matches('\n')
    );
    let text = std::fs::read_to_string(ws.root.join("src/lib.rs")).unwrap();
    assert_eq!(text, "fn a() {\n    two();\n}\n\nfn b() {}\n");
}

#[tokio::test]
async fn crlf_bom_missing_final_newline_and_mode_are_kept() {
    let ws = Workspace::new();
    let path = ws.write("w.txt", "\u{feff}one\r\ntwo\r\nthree");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    let out = edit(&ws, "w.txt", "one\ntwo", "uno\ndos").await;
    assert!(
        out.text.contains("matched after normalising line endings"),
        "{}",
        out.text
    );
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes, "\u{feff}uno\r\ndos\r\nthree".as_bytes());
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
}

#[tokio::test]
async fn reindented_edits_keep_the_files_indentation() {
    let ws = Workspace::new();
    ws.write("a.py", "class A:\n    def f(self):\n        return 1\n");
    let out = edit(
        &ws,
        "a.py",
        "def f(self):\n    return 1",
        "def f(self):\n    x = 2\n    return x",
    )
    .await;
    assert!(
        out.text.contains("matched ignoring indentation"),
        "{}",
        out.text
    );
    let text = std::fs::read_to_string(ws.root.join("a.py")).unwrap();
    assert_eq!(
        text,
        "class A:\n    def f(self):\n        x = 2\n        return x\n"
    );
}

#[tokio::test]
async fn not_found_shows_the_closest_region_with_line_numbers() {
    let ws = Workspace::new();
    let body: String = (1..=50)
        .map(|n| format!("let value_{n} = compute({n});\n"))
        .collect();
    ws.write("big.rs", &body);
    let out = edit(&ws, "big.rs", "let value_30 = compute(31);", "x").await;
    assert!(out.is_error);
    assert!(
        out.text
            .contains("old_string was not found in big.rs; the file was not changed.")
    );
    assert!(
        out.text.contains("    30\tlet value_30 = compute(30);"),
        "{}",
        out.text
    );
    assert_eq!(
        std::fs::read_to_string(ws.root.join("big.rs")).unwrap(),
        body
    );
}

#[tokio::test]
async fn failures_are_clear_and_leave_files_untouched() {
    let ws = Workspace::new();
    ws.write("dup.txt", "x\ny\nx\n");
    ws.write("bin.dat", b"ab\0cd");
    std::fs::create_dir(ws.root.join("dir")).unwrap();
    let cases = [
        (
            "dup.txt",
            "x",
            "z",
            "matches 2 places in dup.txt, starting at lines 1, 3",
        ),
        (
            "dup.txt",
            "y",
            "y",
            "old_string and new_string are the same",
        ),
        (
            "dup.txt",
            "",
            "z",
            "old_string is empty but dup.txt already has content",
        ),
        ("missing.txt", "a", "b", "file not found: missing.txt"),
        ("bin.dat", "ab", "xy", "bin.dat is a binary file"),
        ("dir", "a", "b", "dir is a directory"),
    ];
    for (path, old, new, message) in cases {
        let out = edit(&ws, path, old, new).await;
        assert!(out.is_error, "{path}: {}", out.text);
        assert!(out.text.contains(message), "{path}: {}", out.text);
    }
    assert_eq!(
        std::fs::read_to_string(ws.root.join("dup.txt")).unwrap(),
        "x\ny\nx\n"
    );
}

#[tokio::test]
async fn an_empty_old_string_creates_a_new_file() {
    let ws = Workspace::new();
    let out = edit(&ws, "new/dir/f.txt", "", "hello\n").await;
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(
        std::fs::read_to_string(ws.root.join("new/dir/f.txt")).unwrap(),
        "hello\n"
    );
}

#[tokio::test]
async fn two_hundred_concurrent_edits_of_one_file_lose_nothing() {
    let ws = Arc::new(Workspace::new());
    ws.write("log.txt", "START\nEND\n");
    let mut tasks = Vec::new();
    for n in 0..200 {
        let ws = Arc::clone(&ws);
        tasks.push(tokio::spawn(async move {
            edit(&ws, "log.txt", "END", &format!("marker {n}\nEND")).await
        }));
    }
    for task in tasks {
        let out = task.await.unwrap();
        assert!(!out.is_error, "{}", out.text);
    }
    let text = std::fs::read_to_string(ws.root.join("log.txt")).unwrap();
    for n in 0..200 {
        assert!(text.contains(&format!("marker {n}\n")), "marker {n} lost");
    }
    assert_eq!(text.lines().count(), 202);
}

#[tokio::test]
async fn edits_never_lose_lines_another_process_appends_meanwhile() {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    let ws = Workspace::new();
    let path = ws.root.join("app.log");
    std::fs::write(&path, "header = 0\n").unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    // Appends as `echo line >> app.log` does: open, append, close, over and over.
    let appender = {
        let (path, stop) = (path.clone(), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut written = 0;
            while !stop.load(Ordering::Relaxed) {
                let mut file = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .unwrap();
                file.write_all(format!("appended {written}\n").as_bytes())
                    .unwrap();
                written += 1;
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
            written
        })
    };
    let mut edits = 0;
    // Forty attempts, and more while none went through (a loaded machine can keep the file
    // changing through many of them).
    for attempt in 0..400 {
        if attempt >= 40 && edits > 0 {
            break;
        }
        let out = ws
            .call(
                "edit_file",
                json!({"path": "app.log", "old_string": format!("header = {edits}"), "new_string": format!("header = {}", edits + 1)}),
            )
            .await;
        if !out.is_error {
            edits += 1;
        } else {
            assert!(out.text.contains("kept changing"), "{}", out.text);
        }
    }
    stop.store(true, Ordering::Relaxed);
    let appended = appender.join().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let kept = text.lines().filter(|l| l.starts_with("appended ")).count();
    let missing: Vec<usize> = (0..appended)
        .filter(|n| !text.lines().any(|l| l == format!("appended {n}")))
        .collect();
    // A writer preempted between its `open` and its `write` across the rename can still lose
    // that one write (as with any editor that saves by rename); without the check and the
    // carry-over, dozens of lines went.
    assert!(
        missing.len() <= 2,
        "{} of {appended} appended lines were lost: {missing:?} (edits {edits})",
        missing.len()
    );
    assert_eq!(kept + missing.len(), appended);
    assert!(edits > 0, "no edit went through");
    assert!(
        text.starts_with(&format!("header = {edits}\n")),
        "{}",
        &text[..40]
    );
}
