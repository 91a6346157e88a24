//! The file tools inside an editor that offers its buffers (`rein acp`): reads and edits go
//! through the editor's text, the guard still decides which paths, pictures stay on disk.
//! The editor here holds buffers in memory, as an editor's unsaved changes are.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rein_tools::{Editor, EditorFiles};
use serde_json::json;

use crate::support::Workspace;

/// An editor with unsaved buffers; it saves a buffer to disk when written, as Zed does.
#[derive(Default)]
struct Buffers {
    open: Mutex<HashMap<PathBuf, String>>,
    /// Every path read or written through it, in order (`r path`, `w path`).
    asked: Mutex<Vec<String>>,
}

#[async_trait]
impl EditorFiles for Buffers {
    fn reads(&self) -> bool {
        true
    }

    fn writes(&self) -> bool {
        true
    }

    async fn read(&self, path: &Path) -> Result<String, String> {
        self.asked
            .lock()
            .unwrap()
            .push(format!("r {}", path.display()));
        match self.open.lock().unwrap().get(path) {
            Some(text) => Ok(text.clone()),
            None => std::fs::read_to_string(path).map_err(|e| e.to_string()),
        }
    }

    async fn write(&self, path: &Path, text: &str) -> Result<(), String> {
        self.asked
            .lock()
            .unwrap()
            .push(format!("w {}", path.display()));
        self.open
            .lock()
            .unwrap()
            .insert(path.to_path_buf(), text.to_string());
        std::fs::write(path, text).map_err(|e| e.to_string())
    }
}

fn in_editor(ws: Workspace) -> (Workspace, Arc<Buffers>) {
    let buffers = Arc::new(Buffers::default());
    let editor: Arc<dyn EditorFiles> = buffers.clone();
    ws.ctx.services.put(Editor(Some(editor)));
    (ws, buffers)
}

#[tokio::test]
async fn the_model_reads_and_edits_the_unsaved_buffer() {
    let (ws, editor) = in_editor(Workspace::new());
    let path = ws.write("src/lib.rs", "fn old() {}\n");
    editor
        .open
        .lock()
        .unwrap()
        .insert(path.clone(), "fn unsaved() {}\n".into());

    let read = ws.call("read_file", json!({"path": "src/lib.rs"})).await;
    assert_eq!(read.text, "     1\tfn unsaved() {}\n");

    let edit = ws
        .call(
            "edit_file",
            json!({"path": "src/lib.rs", "old_string": "unsaved", "new_string": "edited"}),
        )
        .await;
    assert!(!edit.is_error, "{}", edit.text);
    assert_eq!(
        editor.open.lock().unwrap()[&path],
        "fn edited() {}\n",
        "the edit was made on the buffer's text"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "fn edited() {}\n");

    let write = ws
        .call(
            "write_file",
            json!({"path": "new/dir/a.txt", "content": "fresh\n"}),
        )
        .await;
    assert!(!write.is_error, "{}", write.text);
    let made = ws.root.join("new/dir/a.txt");
    assert_eq!(std::fs::read_to_string(&made).unwrap(), "fresh\n");
    let asked = editor.asked.lock().unwrap().clone();
    assert_eq!(
        asked,
        [
            format!("r {}", path.display()),
            format!("r {}", path.display()),
            format!("w {}", path.display()),
            format!("w {}", made.display()),
        ]
    );
}

#[tokio::test]
async fn the_guard_decides_before_the_editor_is_asked() {
    let (ws, editor) = in_editor(Workspace::new());
    ws.write(".env", "SECRET=1\n");
    let outside = ws.outside.join("x.txt");
    std::fs::write(&outside, "outside\n").unwrap();

    let secret = ws.call("read_file", json!({"path": ".env"})).await;
    assert!(secret.is_error, "{}", secret.text);
    let escape = ws
        .call("read_file", json!({"path": outside.display().to_string()}))
        .await;
    assert!(escape.is_error, "{}", escape.text);
    let write = ws
        .call(
            "write_file",
            json!({"path": "../outside/y.txt", "content": "no"}),
        )
        .await;
    assert!(write.is_error, "{}", write.text);
    assert!(editor.asked.lock().unwrap().is_empty());
    assert!(!ws.outside.join("y.txt").exists());
}

#[tokio::test]
async fn pictures_and_missing_files_stay_with_the_disk() {
    let (ws, editor) = in_editor(Workspace::new());
    // A real 1×1 PNG.
    let png = base64_png();
    ws.write("dot.png", &png);
    let picture = ws.call("read_file", json!({"path": "dot.png"})).await;
    assert!(!picture.is_error, "{}", picture.text);
    assert_eq!(picture.media.len(), 1);

    let missing = ws.call("read_file", json!({"path": "nope.txt"})).await;
    assert_eq!(missing.text, "file not found: nope.txt");
    let created = ws
        .call(
            "edit_file",
            json!({"path": "made.txt", "old_string": "", "new_string": "made\n"}),
        )
        .await;
    assert!(!created.is_error, "{}", created.text);
    assert!(editor.asked.lock().unwrap().is_empty());
}

fn base64_png() -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
        .unwrap()
}
