//! `edit_file` inside an editor that offers its buffers (see [`crate::EditorFiles`]): the edit
//! is made on the editor's text of the file and written back through it, once the guard
//! allowed writing the file here. A file the editor does not hold (missing, a folder) is left
//! to the disk edit, which creates it or says what is wrong.

use std::path::Path;

use rein_fs::checked::{Access, Kind};

use super::{EditFileArgs, edited, planned};
use crate::{ToolOutput, WorkspaceGuard};

pub(super) async fn edit(
    editor: &dyn crate::EditorFiles,
    guard: &WorkspaceGuard,
    path: &Path,
    shown: &str,
    args: &EditFileArgs,
) -> ToolOutput {
    let (checker, checked) = (guard.clone(), path.to_path_buf());
    let kind = tokio::task::spawn_blocking(move || {
        checker
            .open_checked(&checked, Access::Write)
            .and_then(|file| file.kind())
    })
    .await
    .unwrap_or_else(|e| Err(std::io::Error::other(e)));
    match kind {
        Ok(Kind::File { .. }) => {}
        Ok(Kind::Dir) => return ToolOutput::error(format!("{shown} is a directory, not a file")),
        Ok(Kind::Missing | Kind::Other) | Err(_) => {
            let (guard, path, shown, args) = (
                guard.clone(),
                path.to_path_buf(),
                shown.to_string(),
                args.clone(),
            );
            return tokio::task::spawn_blocking(move || super::edit(&guard, &path, &shown, &args))
                .await
                .unwrap_or_else(|e| ToolOutput::error(format!("edit_file failed: {e}")));
        }
    }
    let original = match editor.read(path).await {
        Ok(text) => text,
        Err(why) => {
            return ToolOutput::error(format!("cannot read {shown} through the editor: {why}"));
        }
    };
    let made = match planned(&original, shown, args) {
        Ok(made) => made,
        Err(refusal) => return refusal,
    };
    if let Err(why) = editor.write(path, &made.contents).await {
        return ToolOutput::error(format!("cannot write {shown} through the editor: {why}"));
    }
    edited(path, args, original, made)
}
