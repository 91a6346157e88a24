//! Applying parsed operations to the workspace, one after another (as Codex does: a failure
//! stops the patch and what was applied before it stays).

use std::path::{Path, PathBuf};

use super::parse::{Chunk, Operation};
use crate::edit::matching::LINE_TIERS;
use crate::edit::{split_bom, uses_crlf};
use crate::{FileChange, WorkspaceGuard};
use rein_fs::checked::{Access, CheckedFile, Kind};

/// An operation with its paths resolved by the guard and shown relative to the workspace.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub op: Operation,
    pub path: PathBuf,
    pub shown: String,
    pub move_to: Option<(PathBuf, String)>,
}

/// What was changed: `A`, `M` or `D`, the path as shown, and the change itself.
pub type Change = (char, String, FileChange);

/// Whether [`apply_all`] writes the changes or only works them out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Nothing is written (or opened to create): the changes are worked out, for a preview.
    Preview,
    /// The changes are made.
    Write,
}

/// Applies the operations in order, each through descriptors beneath the workspace (see
/// [`rein_fs::checked`]); on failure returns what was applied before it and why it stopped.
/// In [`Mode::Preview`] nothing is written: the changes are worked out.
pub fn apply_all(
    guard: &WorkspaceGuard,
    ops: &[Resolved],
    mode: Mode,
) -> Result<Vec<Change>, (Vec<Change>, String)> {
    let mut done = Vec::new();
    for op in ops {
        match apply_one(guard, op, mode) {
            Ok(change) => done.push(change),
            Err(message) => return Err((done, message)),
        }
    }
    Ok(done)
}

/// `shown`'s change from `old` to `new`.
fn change(shown: &str, old: &str, new: &str) -> FileChange {
    FileChange {
        path: shown.to_string(),
        created: false,
        deleted: false,
        hunks: crate::hunks::between(old, new),
    }
}

fn apply_one(guard: &WorkspaceGuard, r: &Resolved, mode: Mode) -> Result<Change, String> {
    match &r.op {
        Operation::Add { lines, .. } => add(guard, r, lines, mode),
        Operation::Delete { .. } => delete(guard, r, mode),
        Operation::Update { chunks, .. } => update(guard, r, chunks, mode),
    }
}

fn open(
    guard: &WorkspaceGuard,
    path: &Path,
    access: Access,
    shown: &str,
) -> Result<CheckedFile, String> {
    guard
        .open_checked(path, access)
        .map_err(|e| format!("cannot open {shown}: {e}"))
}

fn add(
    guard: &WorkspaceGuard,
    r: &Resolved,
    lines: &[String],
    mode: Mode,
) -> Result<Change, String> {
    let mut content = lines.join("\n");
    if !lines.is_empty() {
        content.push('\n');
    }
    // A preview opens nothing: opening to create makes the missing folders.
    if mode == Mode::Write {
        let file = open(guard, &r.path, Access::Create, &r.shown)?;
        if file
            .kind()
            .map_err(|e| format!("cannot add {}: {e}", r.shown))?
            == Kind::Dir
        {
            return Err(format!("cannot add {}: it is a directory", r.shown));
        }
        file.write_atomic(content.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", r.shown))?;
    }
    let added = FileChange {
        created: true,
        ..change(&r.shown, "", &content)
    };
    Ok(('A', r.shown.clone(), added))
}

fn delete(guard: &WorkspaceGuard, r: &Resolved, mode: Mode) -> Result<Change, String> {
    let no_such_file = || format!("cannot delete {}: no such file", r.shown);
    let file = open(guard, &r.path, Access::Write, &r.shown).map_err(|_| no_such_file())?;
    match file.kind() {
        Ok(Kind::Dir) => {
            return Err(format!("cannot delete {}: it is a directory", r.shown));
        }
        Ok(Kind::Missing) | Err(_) => return Err(no_such_file()),
        Ok(Kind::File { .. } | Kind::Other) => {}
    }
    // What is removed, when it is text (shown, not needed to remove it).
    let old = file
        .read()
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .unwrap_or_default();
    if mode == Mode::Write {
        file.remove()
            .map_err(|e| format!("cannot delete {}: {e}", r.shown))?;
    }
    let removed = FileChange {
        deleted: true,
        ..change(&r.shown, &old, "")
    };
    Ok(('D', r.shown.clone(), removed))
}

fn update(
    guard: &WorkspaceGuard,
    r: &Resolved,
    chunks: &[Chunk],
    mode: Mode,
) -> Result<Change, String> {
    let file = open(guard, &r.path, Access::Write, &r.shown)
        .map_err(|_| format!("cannot update {}: no such file", r.shown))?;
    let original = match file.kind() {
        Ok(Kind::Dir) => {
            return Err(format!("cannot update {}: it is a directory", r.shown));
        }
        Ok(Kind::Missing) | Err(_) => {
            return Err(format!("cannot update {}: no such file", r.shown));
        }
        Ok(Kind::File { .. } | Kind::Other) => file
            .read()
            .map_err(|e| format!("cannot update {}: {e}", r.shown))?,
    };
    let original = String::from_utf8(original)
        .map_err(|_| format!("cannot update {}: it is not UTF-8 text", r.shown))?;
    let updated = updated_contents(&original, chunks, &r.shown)?;
    match &r.move_to {
        Some((dest, dest_shown)) if dest != &r.path => {
            if mode == Mode::Write {
                open(guard, dest, Access::Create, dest_shown)?
                    .write_atomic(updated.as_bytes())
                    .map_err(|e| format!("cannot write {dest_shown}: {e}"))?;
                file.remove()
                    .map_err(|e| format!("cannot remove {} after moving it: {e}", r.shown))?;
            }
            let moved = format!("{} -> {dest_shown}", r.shown);
            let changed = change(&moved, &original, &updated);
            Ok(('M', moved, changed))
        }
        _ => {
            if mode == Mode::Write {
                file.write_atomic(updated.as_bytes())
                    .map_err(|e| format!("cannot write {}: {e}", r.shown))?;
            }
            let changed = change(&r.shown, &original, &updated);
            Ok(('M', r.shown.clone(), changed))
        }
    }
}

/// The file after the hunks: BOM and CRLF line endings kept, always ending with a newline.
fn updated_contents(original: &str, chunks: &[Chunk], shown: &str) -> Result<String, String> {
    let (bom, body) = split_bom(original);
    let crlf = uses_crlf(body);
    let text = if crlf {
        body.replace("\r\n", "\n")
    } else {
        body.to_string()
    };
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    if lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    let mut replacements: Vec<(usize, usize, Vec<String>)> = Vec::new();
    let mut at = 0;
    for chunk in chunks {
        if let Some(context) = &chunk.context {
            let found =
                seek(&lines, std::slice::from_ref(context), at, false).ok_or_else(|| {
                    format!("cannot find the context line {context:?} (after @@) in {shown}")
                })?;
            at = found + 1;
        }
        if chunk.old.is_empty() {
            // A hunk that only adds lines adds them at the end of the file.
            replacements.push((lines.len(), 0, chunk.new.clone()));
            continue;
        }
        let mut old: &[String] = &chunk.old;
        let mut kinds: &[char] = &chunk.kinds;
        let mut found = seek(&lines, old, at, chunk.at_eof);
        if found.is_none() && old.last().is_some_and(String::is_empty) && kinds.last() == Some(&' ')
        {
            // A trailing empty context line may stand for the file's final newline.
            old = &old[..old.len() - 1];
            kinds = &kinds[..kinds.len() - 1];
            found = seek(&lines, old, at, chunk.at_eof);
        }
        let Some(start) = found else {
            return Err(format!(
                "cannot find these lines in {shown}:\n{}\nRead the file and quote its current lines exactly.",
                chunk.old.join("\n")
            ));
        };
        replacements.push((
            start,
            old.len(),
            rebuilt(&lines[start..start + old.len()], kinds, &chunk.new),
        ));
        at = start + old.len();
    }
    replacements.sort_by_key(|r| r.0);
    for (start, len, new) in replacements.into_iter().rev() {
        lines.splice(start..start + len, new);
    }
    let mut out = lines.join("\n");
    out.push('\n');
    if crlf {
        out = out.replace('\n', "\r\n");
    }
    Ok(format!("{bom}{out}"))
}

/// The lines replacing a matched span: context lines as the file has them (a tolerant match
/// must not rewrite them), added lines from the patch, removed lines dropped.
fn rebuilt(matched: &[String], kinds: &[char], new: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(new.len());
    let (mut file, mut added) = (matched.iter(), new.iter());
    for kind in kinds {
        match kind {
            ' ' => {
                let _ = added.next();
                out.extend(file.next().cloned());
            }
            '-' => {
                let _ = file.next();
            }
            _ => out.extend(added.next().cloned()),
        }
    }
    out
}

/// The first position at or after `from` where `pattern` matches, trying the line tiers from
/// strict to tolerant; at the end of the file only, for `*** End of File` hunks.
fn seek(lines: &[String], pattern: &[String], from: usize, at_eof: bool) -> Option<usize> {
    if pattern.is_empty() {
        return Some(from.min(lines.len()));
    }
    if pattern.len() > lines.len() {
        return None;
    }
    let last_start = lines.len() - pattern.len();
    let first = if at_eof { last_start } else { from };
    for (_, normalise) in LINE_TIERS {
        let wanted: Vec<_> = pattern.iter().map(|l| normalise(l)).collect();
        for start in first..=last_start {
            if (0..pattern.len()).all(|j| normalise(&lines[start + j]) == wanted[j]) {
                return Some(start);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn chunk(old: &[&str], new: &[&str]) -> Chunk {
        let mut kinds = vec!['-'; old.len()];
        kinds.extend(vec!['+'; new.len()]);
        Chunk {
            context: None,
            old: old.iter().map(|s| s.to_string()).collect(),
            new: new.iter().map(|s| s.to_string()).collect(),
            kinds,
            at_eof: false,
        }
    }

    #[test]
    fn context_is_found_with_tolerance_and_crlf_is_kept() {
        let original = "a\r\n    b  \r\nc\r\n";
        let updated = updated_contents(original, &[chunk(&["b"], &["B"])], "f").unwrap();
        assert_eq!(updated, "a\r\nB\r\nc\r\n");
        let quotes = "say(\u{201C}hi\u{201D})\n";
        let updated =
            updated_contents(quotes, &[chunk(&["say(\"hi\")"], &["say(\"bye\")"])], "f").unwrap();
        assert_eq!(updated, "say(\"bye\")\n");
    }

    #[test]
    fn missing_lines_are_an_error_quoting_them() {
        let err = updated_contents("a\nb\n", &[chunk(&["zzz"], &["y"])], "f.txt").unwrap_err();
        assert!(
            err.contains("cannot find these lines in f.txt:\nzzz"),
            "{err}"
        );
    }
}
