//! The `edit_file` tool: replaces text in a file and never corrupts it.
//!
//! The file is read whole under the path's write lock; `old_string` is located by the tier
//! pipeline of [`matching`]; the replacement keeps the file's line endings, BOM, final newline
//! and permissions, and the new contents are written atomically. The result names the tier
//! that matched and shows a compact diff; a failure leaves the file untouched and says what to
//! fix (the closest region when nothing matched, the candidates when several did).

mod closest;
mod diff;
mod indent;
pub(crate) mod matching;
mod through_editor;

use std::borrow::Cow;
use std::path::Path;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{
    CallFacts, CallKind, Effect, FileChange, FileEdit, Hunk, ToolContext, ToolDetails, ToolOutput,
    TypedTool, WorkspaceGuard,
};
use matching::{Found, InOriginal, Occurrences, Replacement, Tier};
use rein_fs::checked::{Access, CheckedFile, Kind, Stamp};

/// Bytes of a file inspected for NUL to call it binary.
const SNIFF_BYTES: usize = 8 * 1024;
const BOM: &str = "\u{feff}";

/// A text's UTF-8 byte-order mark (or "") and the rest, so edits keep the mark.
pub(crate) fn split_bom(text: &str) -> (&'static str, &str) {
    match text.strip_prefix(BOM) {
        Some(rest) => (BOM, rest),
        None => ("", text),
    }
}

/// Arguments of `edit_file`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct EditFileArgs {
    /// Path of the file, relative to the workspace root.
    pub path: String,
    /// The text to replace, copied from the file (without read_file's line-number prefixes).
    /// Include enough surrounding lines to make it unique. Empty to create a new file.
    pub old_string: String,
    /// The text to put in its place.
    pub new_string: String,
    /// Replace every occurrence instead of requiring exactly one (default false).
    #[serde(default)]
    pub replace_all: bool,
}

/// The `edit_file` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct EditFile;

#[async_trait]
impl TypedTool for EditFile {
    type Args = EditFileArgs;
    const NAME: &'static str = "edit_file";
    const CLAUDE_NAME: &'static str = "Edit";
    const KIND: CallKind = CallKind::Edit;
    const LEAN: crate::Lean = crate::Lean::Short {
        description: "Replaces old_string with new_string in a file. old_string is copied \
                      from the file without line numbers and must be unique unless \
                      replace_all. An empty old_string creates the file.",
        arguments: &[
            ("path", ""),
            ("old_string", ""),
            ("new_string", ""),
            ("replace_all", ""),
        ],
    };

    fn description(&self) -> String {
        "Replaces old_string with new_string in a file. old_string must match exactly one place \
         (or set replace_all); copy it from read_file output without the line-number prefixes \
         and include enough context to be unique. Small differences in whitespace, indentation \
         or line endings are tolerated and reported. An empty old_string creates a new file. \
         The result shows a diff of the change."
            .to_string()
    }

    fn effect(&self, _args: &EditFileArgs) -> Effect {
        Effect::Mutating
    }

    fn preview(&self, args: &EditFileArgs, guard: &WorkspaceGuard) -> Vec<FileChange> {
        preview(guard, args)
    }

    fn describe(&self, args: &EditFileArgs, guard: &WorkspaceGuard, facts: &mut CallFacts) {
        facts
            .writes
            .push(crate::resolve_for_rules(&args.path, guard.root(), guard));
        facts.summary = args.path.clone();
    }

    async fn run(&self, args: EditFileArgs, ctx: &ToolContext) -> ToolOutput {
        let path = match ctx.guard.resolve_write(&args.path) {
            Ok(path) => path,
            Err(e) => return ToolOutput::error(e.to_string()),
        };
        if args.old_string == args.new_string {
            return ToolOutput::error(
                "old_string and new_string are the same; there is nothing to change",
            );
        }
        let shown = ctx.guard.display(&path);
        let _lock = ctx.locks.write(&path).await;
        if let Some(editor) = ctx.services.get::<crate::Editor>().editing()
            && crate::editor::holds(&path)
        {
            return through_editor::edit(editor, &ctx.guard, &path, &shown, &args).await;
        }
        let guard = ctx.guard.clone();
        match tokio::task::spawn_blocking(move || edit(&guard, &path, &shown, &args)).await {
            Ok(output) => output,
            Err(e) => ToolOutput::error(format!("edit_file failed: {e}")),
        }
    }
}

/// The whole edit, under the lock, through descriptors beneath the workspace (see
/// [`rein_fs::checked`]).
fn edit(guard: &WorkspaceGuard, path: &Path, shown: &str, args: &EditFileArgs) -> ToolOutput {
    // Another process writing the file between the read and the rename (an appending log, a
    // formatter) would lose its change: the edit is made again on the new contents.
    for _ in 0..CHANGED_RETRIES {
        let mut changed = false;
        let output = edit_attempt(guard, path, shown, args, &mut changed);
        if !changed {
            return output;
        }
    }
    ToolOutput::error(format!(
        "{shown} kept changing while it was being edited (another process is writing it); \
         nothing was written. Wait for that process, read the file again and retry."
    ))
}

/// Times an edit is made again on a file another process keeps changing.
const CHANGED_RETRIES: usize = 3;

/// One attempt at [`edit`]; sets `changed` (and writes nothing) when the file changed between
/// its read and the rename.
fn edit_attempt(
    guard: &WorkspaceGuard,
    path: &Path,
    shown: &str,
    args: &EditFileArgs,
    changed: &mut bool,
) -> ToolOutput {
    let (file, stamp, bytes) = match read_existing(guard, path) {
        Ok(Some(found)) => found,
        Ok(None) if args.old_string.is_empty() => return create(guard, path, shown, args),
        Ok(None) => {
            return ToolOutput::error(format!(
                "file not found: {shown}. To create it, use write_file (or edit_file with an \
                 empty old_string)."
            ));
        }
        Err(e) if e.kind() == std::io::ErrorKind::IsADirectory => {
            return ToolOutput::error(format!("{shown} is a directory, not a file"));
        }
        Err(e) => return ToolOutput::error(format!("cannot read {shown}: {e}")),
    };
    if bytes[..bytes.len().min(SNIFF_BYTES)].contains(&0) {
        return ToolOutput::error(format!(
            "{shown} is a binary file; edit_file only edits text"
        ));
    }
    let Ok(original) = String::from_utf8(bytes) else {
        return ToolOutput::error(format!(
            "{shown} is not valid UTF-8; edit_file only edits UTF-8 text"
        ));
    };
    let made = match planned(&original, shown, args) {
        Ok(made) => made,
        Err(refusal) => return refusal,
    };
    match file.write_atomic_unchanged(made.contents.as_bytes(), stamp) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
            *changed = true;
            return ToolOutput::error(e.to_string());
        }
        Err(e) => return ToolOutput::error(format!("cannot write {shown}: {e}")),
    }
    edited(path, args, original, made)
}

/// The result of an edit made: the message and the change, for front ends.
fn edited(path: &Path, args: &EditFileArgs, original: String, made: Made) -> ToolOutput {
    ToolOutput::ok(made.message).with_details(ToolDetails::Edit(FileEdit {
        path: path.to_path_buf(),
        old_string: args.old_string.clone(),
        new_string: args.new_string.clone(),
        original,
        patch: made.patch,
        replace_all: args.replace_all,
    }))
}

/// An edit worked out on a file's contents, not yet written.
struct Made {
    /// The file's new contents (BOM and line endings kept).
    contents: String,
    /// The change, as hunks.
    patch: Vec<Hunk>,
    /// The result for the model.
    message: String,
}

/// What an edit makes of a file's text `original` (an empty `old_string` fills an empty
/// file), or the refusal the model gets: the same for a file on disk and an editor's buffer.
fn planned(original: &str, shown: &str, args: &EditFileArgs) -> Result<Made, ToolOutput> {
    if original.as_bytes()[..original.len().min(SNIFF_BYTES)].contains(&0) {
        return Err(ToolOutput::error(format!(
            "{shown} is a binary file; edit_file only edits text"
        )));
    }
    if !args.old_string.is_empty() {
        return make(original, shown, args);
    }
    if !original.is_empty() {
        return Err(ToolOutput::error(format!(
            "old_string is empty but {shown} already has content; quote the text to replace, \
             or use write_file to replace the whole file"
        )));
    }
    Ok(Made {
        contents: args.new_string.clone(),
        patch: crate::hunks::between("", &args.new_string),
        message: format!(
            "Created {shown} ({} lines)",
            args.new_string.lines().count()
        ),
    })
}

/// The edit `args` asks for, made on `original` (text with content); the refusal the model
/// gets when `old_string` is not found or not unique.
fn make(original: &str, shown: &str, args: &EditFileArgs) -> Result<Made, ToolOutput> {
    let (bom, body) = split_bom(original);
    let crlf = uses_crlf(body);
    let fold = |s: &str| -> String { s.replace("\r\n", "\n") };
    let text: Cow<'_, str> = if crlf {
        Cow::Owned(fold(body))
    } else {
        Cow::Borrowed(body)
    };
    let (old, new): (Cow<'_, str>, Cow<'_, str>) = if crlf {
        (
            Cow::Owned(fold(&args.old_string)),
            Cow::Owned(fold(&args.new_string)),
        )
    } else {
        (
            Cow::Borrowed(&args.old_string),
            Cow::Borrowed(&args.new_string),
        )
    };
    // In an LF file the folded text is the file itself, so "found in the text" is "exact".
    let in_original = if !crlf || body.contains(&args.old_string) {
        InOriginal::Verbatim
    } else {
        InOriginal::Folded
    };
    let occurrences = if args.replace_all {
        Occurrences::All
    } else {
        Occurrences::One
    };
    let (tier, replacements) = match matching::find(&text, &old, &new, occurrences, in_original) {
        Found::Matches(tier, replacements) => (tier, replacements),
        Found::Ambiguous(tier, lines) => return Err(ambiguous(shown, tier, &lines)),
        Found::Nothing => return Err(not_found(shown, &text, &old)),
    };
    let mut contents = String::with_capacity(original.len() + 256);
    contents.push_str(bom);
    let folded_new;
    let new_text = if crlf {
        folded_new = apply(&text, &replacements);
        contents.push_str(&folded_new.replace('\n', "\r\n"));
        folded_new.as_str()
    } else {
        apply_into(&mut contents, &text, &replacements);
        &contents[bom.len()..]
    };
    let changed = match (replacements.first(), replacements.last()) {
        (Some(first), Some(last)) => first.range.start..last.range.end,
        _ => 0..0,
    };
    let patch = crate::hunks::within(&text, new_text, changed);
    let count = replacements.len();
    let message = format!(
        "Edited {shown}: {count} {} ({})\n{}",
        if count == 1 {
            "replacement"
        } else {
            "replacements"
        },
        tier.describe(),
        diff::unified(shown, &text, &replacements)
    );
    Ok(Made {
        contents,
        patch,
        message,
    })
}

/// The change an edit would make, worked out on the file as it is now (nothing when it
/// would fail: the call's result says why).
fn preview(guard: &WorkspaceGuard, args: &EditFileArgs) -> Vec<FileChange> {
    let Ok(path) = guard.resolve_write(&args.path) else {
        return Vec::new();
    };
    let shown = guard.display(&path);
    let change = |created: bool, hunks: Vec<Hunk>| {
        vec![FileChange {
            path: shown.clone(),
            created,
            deleted: false,
            hunks,
        }]
    };
    let original = match read_existing(guard, &path) {
        Ok(None) if args.old_string.is_empty() => {
            return change(true, crate::hunks::between("", &args.new_string));
        }
        Ok(Some((_, _, bytes))) if !bytes[..bytes.len().min(SNIFF_BYTES)].contains(&0) => {
            match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(_) => return Vec::new(),
            }
        }
        _ => return Vec::new(),
    };
    if args.old_string.is_empty() {
        // Fills an empty file, or fails on one with content.
        if !original.is_empty() {
            return Vec::new();
        }
        return change(false, crate::hunks::between("", &args.new_string));
    }
    match make(&original, &shown, args) {
        Ok(made) => change(false, made.patch),
        Err(_) => Vec::new(),
    }
}

/// The file the guard checked, its version before the read, and its bytes; `None` when it
/// (or its folder) does not exist, an `IsADirectory` error for a folder.
fn read_existing(
    guard: &WorkspaceGuard,
    path: &Path,
) -> std::io::Result<Option<(CheckedFile, Stamp, Vec<u8>)>> {
    let file = match guard.open_checked(path, Access::Write) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    match file.kind()? {
        Kind::Missing => return Ok(None),
        Kind::Dir => return Err(std::io::ErrorKind::IsADirectory.into()),
        Kind::File { .. } | Kind::Other => {}
    }
    let Some(stamp) = file.stamp()? else {
        return Ok(None);
    };
    match file.read() {
        Ok(bytes) => Ok(Some((file, stamp, bytes))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Creates the file with `new_string` (an edit with an empty `old_string`), and the folders
/// it needs.
fn create(guard: &WorkspaceGuard, path: &Path, shown: &str, args: &EditFileArgs) -> ToolOutput {
    let content = &args.new_string;
    let written = guard
        .open_checked(path, Access::Create)
        .and_then(|file| file.write_atomic(content.as_bytes()));
    match written {
        Ok(()) => ToolOutput::ok(format!(
            "Created {shown} ({} lines)",
            content.lines().count()
        ))
        .with_details(ToolDetails::Edit(FileEdit {
            path: path.to_path_buf(),
            old_string: String::new(),
            new_string: content.clone(),
            original: String::new(),
            patch: crate::hunks::between("", content),
            replace_all: args.replace_all,
        })),
        Err(e) => ToolOutput::error(format!("cannot write {shown}: {e}")),
    }
}

/// Whether every line ending of the text is CRLF (mixed files are left as they are).
pub(crate) fn uses_crlf(text: &str) -> bool {
    if !text.contains('\r') {
        return false;
    }
    let lf = text.matches('\n').count();
    lf > 0 && text.matches("\r\n").count() == lf
}

/// The text with the (sorted, non-overlapping) replacements made.
fn apply(text: &str, replacements: &[Replacement]) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    apply_into(&mut out, text, replacements);
    out
}

fn apply_into(out: &mut String, text: &str, replacements: &[Replacement]) {
    let mut at = 0;
    for r in replacements {
        out.push_str(&text[at..r.range.start]);
        out.push_str(&r.text);
        at = r.range.end;
    }
    out.push_str(&text[at..]);
}

fn ambiguous(shown: &str, tier: Tier, lines: &[usize]) -> ToolOutput {
    let listed: Vec<String> = lines.iter().take(20).map(ToString::to_string).collect();
    let more = if lines.len() > 20 { ", …" } else { "" };
    let how = if tier == Tier::Exact {
        String::new()
    } else {
        format!(" ({})", tier.describe())
    };
    ToolOutput::error(format!(
        "old_string matches {} places in {shown}{how}, starting at lines {}{more}. Include more \
         surrounding lines to make it unique, or set replace_all to change every one. The file \
         was not changed.",
        lines.len(),
        listed.join(", ")
    ))
}

fn not_found(shown: &str, text: &str, old: &str) -> ToolOutput {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut message = format!("old_string was not found in {shown}; the file was not changed.");
    if let Some((start, height, ratio)) = closest::closest_region(&lines, old) {
        let from = start.saturating_sub(1);
        let to = (start + height + 1).min(lines.len());
        message.push_str(&format!(
            "\nThe most similar region (lines {}-{}, {:.0}% similar), as read_file shows it:\n",
            start + 1,
            start + height,
            ratio * 100.0
        ));
        for (i, line) in lines[from..to].iter().enumerate() {
            let line: String = line.chars().take(500).collect();
            message.push_str(&format!("{:>6}\t{line}\n", from + i + 1));
        }
        message.push_str(
            "Copy the exact text from the file (without the line-number prefixes) and try again.",
        );
    } else {
        message.push_str(" Read the file first and copy the text to replace exactly.");
    }
    ToolOutput::error(message)
}
