//! A change between two texts as the hunks of a unified diff, with three lines of context as
//! Claude Code's `structuredPatch` has them.
//!
//! A change known to lie in one region of a file (an edit) is diffed over that region and its
//! context only, so editing a large file costs the changed lines, not the file.

use std::ops::Range;
use std::time::Duration;

use similar::{ChangeTag, DiffTag, TextDiff};

use crate::details::Hunk;

/// Lines of unchanged context around each change.
const CONTEXT: usize = 3;
/// Longest a diff may search for the smallest answer before it settles for a coarser one.
const DIFF_TIMEOUT: Duration = Duration::from_millis(200);

/// The hunks turning `old` into `new`.
pub fn between(old: &str, new: &str) -> Vec<Hunk> {
    diff_lines(old, new, 0)
}

/// The hunks turning `old` into `new` when they differ only inside `changed` (a byte range of
/// `old`; `new` has the same text before its start and the same text after its end).
pub fn within(old: &str, new: &str, changed: Range<usize>) -> Vec<Hunk> {
    let start = context_start(old, changed.start.min(old.len()));
    let end = context_end(old, changed.end.clamp(start, old.len()));
    let suffix = old.len() - end;
    let Some(new_region) = new.get(start..new.len().saturating_sub(suffix).max(start)) else {
        return between(old, new);
    };
    let offset = old[..start].bytes().filter(|b| *b == b'\n').count();
    diff_lines(&old[start..end], new_region, offset)
}

/// The start of the line `CONTEXT` lines before the one holding `at`.
fn context_start(text: &str, at: usize) -> usize {
    let mut start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    for _ in 0..CONTEXT {
        if start == 0 {
            break;
        }
        start = text[..start - 1].rfind('\n').map_or(0, |i| i + 1);
    }
    start
}

/// The end (after its newline) of the line `CONTEXT` lines after the one holding `at`.
fn context_end(text: &str, at: usize) -> usize {
    let mut end = at;
    for _ in 0..=CONTEXT {
        match text[end..].find('\n') {
            Some(i) => end += i + 1,
            None => return text.len(),
        }
    }
    end
}

/// Line diff of `old` and `new`, numbered as if they started after `offset` lines.
fn diff_lines(old: &str, new: &str, offset: usize) -> Vec<Hunk> {
    let diff = TextDiff::configure()
        .timeout(DIFF_TIMEOUT)
        .diff_lines(old, new);
    let mut hunks = Vec::new();
    for group in diff.grouped_ops(CONTEXT) {
        if group.iter().all(|op| op.tag() == DiffTag::Equal) {
            continue;
        }
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        let lines = group
            .iter()
            .flat_map(|op| diff.iter_changes(op))
            .map(|change| {
                let sign = match change.tag() {
                    ChangeTag::Delete => '-',
                    ChangeTag::Insert => '+',
                    ChangeTag::Equal => ' ',
                };
                let value = change.value();
                let value = value.strip_suffix('\n').unwrap_or(value);
                let value = value.strip_suffix('\r').unwrap_or(value);
                format!("{sign}{value}")
            })
            .collect();
        hunks.push(Hunk {
            old_start: start_line(&old_range, offset),
            old_lines: old_range.len(),
            new_start: start_line(&new_range, offset),
            new_lines: new_range.len(),
            lines,
        });
    }
    hunks
}

/// The 1-based first line of a range; an empty range names the line before it, as unified
/// diffs do (`@@ -0,0 +1,2 @@` for a file created from nothing).
fn start_line(range: &Range<usize>, offset: usize) -> usize {
    if range.is_empty() {
        offset + range.start
    } else {
        offset + range.start + 1
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn hunk(old: (usize, usize), new: (usize, usize), lines: &[&str]) -> Hunk {
        Hunk {
            old_start: old.0,
            old_lines: old.1,
            new_start: new.0,
            new_lines: new.1,
            lines: lines.iter().map(ToString::to_string).collect(),
        }
    }

    #[test]
    fn a_one_line_file_changed_is_one_hunk_without_context() {
        assert_eq!(
            between("NOTES_4\n", "EDITED_4\n"),
            [hunk((1, 1), (1, 1), &["-NOTES_4", "+EDITED_4"])]
        );
    }

    #[test]
    fn a_change_keeps_three_lines_of_context_each_side() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let new = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
        assert_eq!(
            between(old, new),
            [hunk(
                (2, 7),
                (2, 7),
                &[" 2", " 3", " 4", "-5", "+five", " 6", " 7", " 8"]
            )]
        );
    }

    #[test]
    fn a_change_in_a_known_region_is_numbered_as_in_the_whole_file() {
        let old: String = (1..=100).map(|n| format!("line {n}\n")).collect();
        let new = old.replace("line 50\n", "line fifty\n");
        let at = old.find("line 50").unwrap_or(0);
        assert_eq!(
            within(&old, &new, at..at + "line 50".len()),
            between(&old, &new)
        );
    }

    #[test]
    fn changes_far_apart_are_separate_hunks() {
        let old: String = (1..=20).map(|n| format!("{n}\n")).collect();
        let new: String = (1..=20)
            .map(|n| match n {
                2 => "two\n".to_string(),
                19 => "nineteen\n".to_string(),
                n => format!("{n}\n"),
            })
            .collect();
        let hunks = between(&old, &new);
        assert_eq!(hunks.len(), 2);
        assert_eq!((hunks[1].old_start, hunks[1].new_start), (16, 16));
    }

    #[test]
    fn a_text_from_nothing_starts_at_line_zero_of_the_old_side() {
        assert_eq!(between("", "a\nb\n"), [hunk((0, 0), (1, 2), &["+a", "+b"])]);
    }
}
