//! What a `bash` call touches: its line analysed once, and the files its words can name
//! (arguments that are not options, redirection targets), each expanded as bash would.

use std::path::{Path, PathBuf};

use super::paths::{Expansion, expand};
use crate::facts::{resolve_for_rules_known, resolve_for_rules_with};
use crate::shell::{RepoMemo, SimpleCommand};
use crate::{CallFacts, Effect, ShellFacts, WorkspaceGuard};
use rein_fs::lstats::Lstats;

/// Longest summary line; the rest of a long command is elided.
const SUMMARY_CHARS: usize = 200;

/// Fills `facts` for running `line` in `cwd`: the line analysed once, whether it is proven
/// read-only, and every path its words can name.
pub(super) fn describe(
    line: &str,
    cwd: &Path,
    guard: &WorkspaceGuard,
    memo: &RepoMemo,
    facts: &mut CallFacts,
) {
    let analysis = crate::shell::analyse(line);
    let lstats = Lstats::default();
    let proven = crate::shell::is_read_only_with(&analysis, guard, cwd, &lstats, memo);
    let workspace_files_only = !proven
        && crate::shell::only_changes_workspace_files_with(&analysis, guard, cwd, &lstats, memo);
    facts.effect = if proven {
        Effect::ReadOnly
    } else {
        Effect::Mutating
    };
    let resolve = |text: &str| {
        if proven {
            resolve_for_rules_known(text, cwd, &lstats)
        } else {
            resolve_for_rules_with(text, cwd, guard, &lstats)
        }
    };
    let mut unresolved = false;
    let mut add = |text: &str, literal: bool, access: Access, facts: &mut CallFacts| {
        let list = match access {
            Access::Read => &mut facts.reads,
            Access::Write => &mut facts.writes,
        };
        if literal {
            list.push(resolve(text));
            return;
        }
        match expand(text, cwd) {
            Expansion::Paths(paths) => {
                list.extend(paths.iter().map(|p| resolve(p)));
            }
            Expansion::Unknown => unresolved = true,
        }
    };
    let mut seen: rustc_hash::FxHashSet<FileWord<'_>> = rustc_hash::FxHashSet::default();
    for command in &analysis.effective {
        for_file_words(command, |word| {
            if seen.insert(word) {
                add(word.text, word.literal, word.access, facts);
            }
        });
    }
    for word in &analysis.naive_words {
        add(word, true, Access::Read, facts);
    }
    sort_paths(&mut facts.reads);
    // Equal bytes, not equal components: cheaper, and sorted clean paths that are equal as
    // paths are equal as bytes (an unclean duplicate left in changes no decision).
    facts.reads.dedup_by(|a, b| a.as_os_str() == b.as_os_str());
    sort_paths(&mut facts.writes);
    facts.writes.dedup_by(|a, b| a.as_os_str() == b.as_os_str());
    facts.summary = summary(line);
    facts.shell = Some(ShellFacts {
        line: line.to_string(),
        analysis,
        unresolved_paths: unresolved,
        workspace_files_only,
    });
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Access {
    Read,
    Write,
}

/// A word of a command that may name a file, and how the command uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct FileWord<'a> {
    text: &'a str,
    literal: bool,
    access: Access,
}

/// Calls `each` with the words of a command that may name files: redirection targets, and
/// the arguments that are not options (the program itself and `echo`/`printf` text
/// excluded), and the values of `--option=value` arguments.
fn for_file_words<'a>(command: &'a SimpleCommand, mut each: impl FnMut(FileWord<'a>)) {
    for r in &command.redirects {
        if r.op.contains('&') && !r.op.starts_with('&') {
            continue;
        }
        let access = if r.writes_file() {
            Access::Write
        } else {
            Access::Read
        };
        each(FileWord {
            text: &r.target,
            literal: r.literal,
            access,
        });
    }
    let program = command.argv.first().map(String::as_str).unwrap_or("");
    let program = program.rsplit('/').next().unwrap_or(program);
    if matches!(program, "echo" | "printf") {
        return;
    }
    for (i, arg) in command.argv.iter().enumerate().skip(1) {
        let literal = command.is_literal(i);
        if arg.is_empty() {
            continue;
        }
        let text = if !arg.starts_with('-') {
            arg.as_str()
        } else if let Some((_, value)) = arg.split_once('=')
            && !value.is_empty()
        {
            value
        } else {
            continue;
        };
        each(FileWord {
            text,
            literal,
            access: Access::Read,
        });
    }
}

/// Sorts `paths` as [`Path`]'s order does (component by component). Clean paths (see
/// [`rein_fs::sensitive::is_clean`]) are in that order when compared as bytes with `/` below
/// every other byte, which is much cheaper than taking them apart.
fn sort_paths(paths: &mut [PathBuf]) {
    use std::os::unix::ffi::OsStrExt;
    if !paths.iter().all(|p| rein_fs::sensitive::is_clean(p)) {
        paths.sort();
        return;
    }
    let key = |b: &u8| if *b == b'/' { 0 } else { u16::from(*b) + 1 };
    paths.sort_by(|a, b| {
        let (a, b) = (a.as_os_str().as_bytes(), b.as_os_str().as_bytes());
        a.iter().map(key).cmp(b.iter().map(key))
    });
}

/// The first line of the command, marked with `…` when more follow or it was cut.
fn summary(line: &str) -> String {
    let mut lines = line.trim().lines();
    let first = lines.next().unwrap_or("");
    // Cut where the character after the last one kept starts (copied whole, not by character).
    let cut = first
        .char_indices()
        .nth(SUMMARY_CHARS)
        .map_or(first.len(), |(at, _)| at);
    let mut out = String::with_capacity(cut + '…'.len_utf8());
    out.push_str(&first[..cut]);
    if out.len() < first.len() {
        out.push('…');
    } else if lines.next().is_some() {
        out.push_str(" …");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_is_the_first_line_cut_at_200_characters() {
        let long = "é".repeat(250);
        let cases = [
            ("cargo test", "cargo test".to_string()),
            ("  cargo test\n", "cargo test".to_string()),
            ("a\nb", "a …".to_string()),
            (long.as_str(), format!("{}…", "é".repeat(200))),
            (&long[..400], "é".repeat(200)),
            ("", String::new()),
        ];
        for (line, expected) in cases {
            assert_eq!(summary(line), expected, "{line:?}");
        }
    }

    #[test]
    fn paths_sort_as_path_order_sorts_them() {
        let texts = [
            "/w/a-b", "/w/a/b", "/w/a", "/w/a.b/c", "/w/a/.b", "/w/ab", "/w/a b", "/w/A", "/w",
            "/w//a", "/w/./a", "/v/é", "/v/z",
        ];
        let mut fast: Vec<PathBuf> = texts.iter().map(PathBuf::from).collect();
        let mut clean: Vec<PathBuf> = fast
            .iter()
            .filter(|p| rein_fs::sensitive::is_clean(p))
            .cloned()
            .collect();
        let mut expected = clean.clone();
        expected.sort();
        sort_paths(&mut clean);
        assert_eq!(clean, expected);
        let mut all_expected = fast.clone();
        all_expected.sort();
        sort_paths(&mut fast);
        assert_eq!(fast, all_expected);
    }
}
