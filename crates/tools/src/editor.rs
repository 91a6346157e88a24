//! Files as an editor holds them: when rein runs inside an editor that offers it (ACP's
//! `fs/read_text_file` and `fs/write_text_file`), `read_file` reads the editor's buffer and
//! `edit_file` and `write_file` write through it, so unsaved changes are what the model sees
//! and edits, and the editor shows its changes at once. The workspace guard still decides
//! which paths may be read or written; only the text goes through the editor. Pictures,
//! PDFs, notebooks and `apply_patch` stay on disk.

use std::path::Path;

use async_trait::async_trait;

/// An editor's view of text files (its buffers, else the files).
#[async_trait]
pub trait EditorFiles: Send + Sync {
    /// Whether reads go through the editor.
    fn reads(&self) -> bool;
    /// Whether writes go through the editor.
    fn writes(&self) -> bool;
    /// The editor's text of `path` (absolute); the editor's error as said.
    async fn read(&self, path: &Path) -> Result<String, String>;
    /// Puts `text` in `path` (absolute) through the editor, which saves it.
    async fn write(&self, path: &Path, text: &str) -> Result<(), String>;
}

/// Whether `path` is a text file the editor holds (not a picture, PDF or notebook, which
/// rein reads itself).
pub fn holds(path: &Path) -> bool {
    !crate::media::is_media_path(path) && path.extension().is_none_or(|e| e != "ipynb")
}

/// The editor a tool context reads and writes through, if any.
#[derive(Clone, Default)]
pub struct Editor(pub Option<std::sync::Arc<dyn EditorFiles>>);

impl Editor {
    /// The editor, when reads go through it.
    pub fn reading(&self) -> Option<&dyn EditorFiles> {
        self.0.as_deref().filter(|editor| editor.reads())
    }

    /// The editor, when reads and writes go through it (an edit reads and writes).
    pub fn editing(&self) -> Option<&dyn EditorFiles> {
        self.0
            .as_deref()
            .filter(|editor| editor.reads() && editor.writes())
    }

    /// The editor, when writes go through it.
    pub fn writing(&self) -> Option<&dyn EditorFiles> {
        self.0.as_deref().filter(|editor| editor.writes())
    }
}

impl std::fmt::Debug for Editor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Editor(..)"
        } else {
            "Editor(none)"
        })
    }
}
