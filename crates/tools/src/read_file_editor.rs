//! `read_file` inside an editor that offers its buffers (see [`crate::EditorFiles`]): the
//! page comes from the editor's text of the file, once the guard allowed reading it here.

use std::io;

use rein_fs::checked::Access;

use super::{Page, SNIFF_BYTES, looks_binary};
use crate::{ToolOutput, WorkspaceGuard};

impl Page {
    /// The page of the editor's text; `None` leaves the read to the disk (a folder, a missing
    /// file, an editor that could not give it), which says what is wrong.
    pub(super) async fn read_in_editor(
        &self,
        editor: &dyn crate::EditorFiles,
        guard: &WorkspaceGuard,
    ) -> Option<ToolOutput> {
        let (checker, path) = (guard.clone(), self.path.clone());
        let allowed = tokio::task::spawn_blocking(move || {
            checker
                .open_checked(&path, Access::Read)
                .and_then(|checked| checked.open_read())
                .and_then(|file| file.metadata())
                .is_ok_and(|meta| meta.is_file())
        })
        .await
        .unwrap_or(false);
        if !allowed {
            return None;
        }
        let text = editor.read(&self.path).await.ok()?;
        Some(self.text_page(&text))
    }

    /// The page of `text` (a file's whole contents).
    fn text_page(&self, text: &str) -> ToolOutput {
        let name = &self.shown_as;
        if text.is_empty() {
            return self.empty();
        }
        if looks_binary(&text.as_bytes()[..text.len().min(SNIFF_BYTES)]) {
            return ToolOutput::error(format!(
                "{name} looks like a binary file; read_file shows text files only"
            ));
        }
        self.lines(&mut io::Cursor::new(text.as_bytes()))
            .unwrap_or_else(|e| ToolOutput::error(format!("cannot read {name}: {e}")))
    }
}
