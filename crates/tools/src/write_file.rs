//! The `write_file` tool: creates or replaces a whole file, atomically.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use std::path::PathBuf;

use crate::{
    CallFacts, CallKind, Effect, FileChange, FileWrite, ToolContext, ToolDetails, ToolOutput,
    TypedTool, WorkspaceGuard,
};
use rein_fs::checked::{Access, CheckedFile, Kind};

/// Largest file whose old contents are kept to describe the change (for hooks); a larger one is
/// replaced without being read.
const ORIGINAL_LIMIT: u64 = 1024 * 1024;

/// Arguments of `write_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WriteFileArgs {
    /// Path of the file, relative to the workspace root. Missing parent folders are created.
    pub path: String,
    /// The complete new contents of the file.
    pub content: String,
}

/// The `write_file` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct WriteFile;

#[async_trait]
impl TypedTool for WriteFile {
    type Args = WriteFileArgs;
    const NAME: &'static str = "write_file";
    const CLAUDE_NAME: &'static str = "Write";
    const KIND: CallKind = CallKind::Edit;
    const LEAN: crate::Lean = crate::Lean::Short {
        description: "Creates a file or replaces its whole contents (folders created). To \
                      change part of a file use edit_file.",
        arguments: &[("path", ""), ("content", "")],
    };

    fn description(&self) -> String {
        "Creates a file, or replaces an existing file's whole contents, in the workspace. \
         Missing parent folders are created; an existing file keeps its permissions. To change \
         part of an existing file prefer edit_file, which sends only the change."
            .to_string()
    }

    fn effect(&self, _args: &WriteFileArgs) -> Effect {
        Effect::Mutating
    }

    fn describe(&self, args: &WriteFileArgs, guard: &WorkspaceGuard, facts: &mut CallFacts) {
        facts
            .writes
            .push(crate::resolve_for_rules(&args.path, guard.root(), guard));
        let lines = args.content.lines().count();
        let plural = if lines == 1 { "" } else { "s" };
        facts.summary = format!("{} ({lines} line{plural})", args.path);
    }

    fn preview(&self, args: &WriteFileArgs, guard: &WorkspaceGuard) -> Vec<FileChange> {
        let Ok(path) = guard.resolve_write(&args.path) else {
            return Vec::new();
        };
        // Opened for a change, not created: a preview makes no folders.
        let (existed, original) = match guard.open_checked(&path, Access::Write) {
            Ok(file) => match before(&file) {
                Ok(Some(found)) => found,
                Ok(None) | Err(_) => return Vec::new(),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (false, None),
            Err(_) => return Vec::new(),
        };
        let write = describe(path, args.content.clone(), original);
        crate::of_details(&ToolDetails::Write(FileWrite { existed, ..write }), guard)
    }

    async fn run(&self, args: WriteFileArgs, ctx: &ToolContext) -> ToolOutput {
        let path = match ctx.guard.resolve_write(&args.path) {
            Ok(path) => path,
            Err(e) => return ToolOutput::error(e.to_string()),
        };
        let shown = ctx.guard.display(&path);
        let _lock = ctx.locks.write(&path).await;
        let guard = ctx.guard.clone();
        let content = args.content;
        let written = match ctx.services.get::<crate::Editor>().writing() {
            Some(editor) if crate::editor::holds(&path) => {
                Ok(write_through(editor, guard, path, &shown, content).await)
            }
            _ => {
                tokio::task::spawn_blocking({
                    let shown = shown.clone();
                    move || write(&guard, path, &shown, content)
                })
                .await
            }
        };
        match written {
            Ok(Ok(write)) => {
                let lines = write.content.lines().count();
                let verb = if write.existed { "Replaced" } else { "Created" };
                ToolOutput::ok(format!(
                    "{verb} {shown}: {lines} {}, {} bytes",
                    if lines == 1 { "line" } else { "lines" },
                    write.content.len()
                ))
                .with_details(ToolDetails::Write(write))
            }
            Ok(Err(message)) => ToolOutput::error(message),
            Err(e) => ToolOutput::error(format!("write_file failed: {e}")),
        }
    }
}

/// Writes the file the guard checked (`path`, shown as `shown`) through descriptors beneath the
/// workspace, creating missing folders; a message for the model when it cannot.
fn write(
    guard: &WorkspaceGuard,
    path: PathBuf,
    shown: &str,
    content: String,
) -> Result<FileWrite, String> {
    let cannot = |e: std::io::Error| format!("cannot write {shown}: {e}");
    let file = guard.open_checked(&path, Access::Create).map_err(cannot)?;
    let Some((existed, original)) = before(&file).map_err(cannot)? else {
        return Err(format!(
            "{shown} is a directory; give the path of a file inside it"
        ));
    };
    file.write_atomic(content.as_bytes()).map_err(cannot)?;
    Ok(FileWrite {
        existed,
        ..describe(path, content, original)
    })
}

/// Writes the file through the editor (see [`crate::EditorFiles`]), once the guard allowed
/// writing it here (its missing folders made, as on disk).
async fn write_through(
    editor: &dyn crate::EditorFiles,
    guard: WorkspaceGuard,
    path: PathBuf,
    shown: &str,
    content: String,
) -> Result<FileWrite, String> {
    let cannot = |e: std::io::Error| format!("cannot write {shown}: {e}");
    let checked = path.clone();
    let before = tokio::task::spawn_blocking(move || {
        let file = guard.open_checked(&checked, Access::Create)?;
        before(&file)
    })
    .await
    .map_err(|e| format!("write_file failed: {e}"))?
    .map_err(cannot)?;
    let Some((existed, original)) = before else {
        return Err(format!(
            "{shown} is a directory; give the path of a file inside it"
        ));
    };
    editor
        .write(&path, &content)
        .await
        .map_err(|why| format!("cannot write {shown} through the editor: {why}"))?;
    Ok(FileWrite {
        existed,
        ..describe(path, content, original)
    })
}

/// What `file` holds before a write: whether it exists, and its text when it is small and
/// UTF-8; `None` for a folder.
fn before(file: &CheckedFile) -> std::io::Result<Option<(bool, Option<String>)>> {
    let (existed, size) = match file.kind()? {
        Kind::Dir => return Ok(None),
        Kind::Missing => (false, 0),
        Kind::File { len } => (true, len),
        Kind::Other => (true, u64::MAX),
    };
    let original = (existed && size <= ORIGINAL_LIMIT)
        .then(|| file.read().ok().and_then(|b| String::from_utf8(b).ok()))
        .flatten();
    Ok(Some((existed, original)))
}

/// The write of `path` (as the guard resolved it: absolute) as data: what was there, what is
/// now, the change between.
fn describe(path: PathBuf, content: String, original: Option<String>) -> FileWrite {
    let patch = original
        .as_deref()
        .map(|old| crate::hunks::between(old, &content))
        .unwrap_or_default();
    FileWrite {
        path,
        content,
        original,
        existed: false,
        patch,
    }
}
