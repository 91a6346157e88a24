//! File changes as coloured, numbered diffs: the unified diff a file tool reports (or would
//! make, in a permission prompt) shown with each line's number, the lines around each change,
//! `⋮` between hunks and each file's name when there are several.

use ratatui::text::{Line, Span};

use crate::theme::Theme;

/// A rendered change.
#[derive(Debug, Default)]
pub struct Shown {
    /// The rows, every one of them (callers cut).
    pub lines: Vec<Line<'static>>,
    /// Lines added, in all files.
    pub added: usize,
    /// Lines removed, in all files.
    pub removed: usize,
    /// The files changed, as named in the diff.
    pub files: Vec<String>,
}

impl Shown {
    /// What changed, in one line: `f.txt: 3 lines added, 1 removed`.
    pub fn summary(&self) -> String {
        let what = match self.files.as_slice() {
            [one] => one.clone(),
            files => format!("{} files", files.len()),
        };
        let plural = if self.added == 1 { "" } else { "s" };
        format!(
            "{what}: {} line{plural} added, {} removed",
            self.added, self.removed
        )
    }
}

/// One parsed row of a unified diff.
enum Row<'a> {
    File(String),
    Hunk,
    Line(char, usize, &'a str),
}

/// Renders `diff` (a unified diff as the tools write it).
pub fn unified(diff: &str, theme: Theme) -> Shown {
    let rows = parse(diff);
    let files = rows
        .iter()
        .filter_map(|row| match row {
            Row::File(name) => Some(name.clone()),
            _ => None,
        })
        .collect::<Vec<_>>();
    let width = rows
        .iter()
        .filter_map(|row| match row {
            Row::Line(_, number, _) => Some(number.to_string().len()),
            _ => None,
        })
        .max()
        .unwrap_or(1);
    let mut shown = Shown::default();
    let mut first_hunk = true;
    for row in &rows {
        match row {
            Row::File(name) => {
                first_hunk = true;
                if files.len() > 1 {
                    shown
                        .lines
                        .push(Line::styled(format!("    {name}"), theme.bold()));
                }
            }
            Row::Hunk => {
                if !first_hunk {
                    shown.lines.push(Line::styled("    ⋮", theme.dim()));
                }
                first_hunk = false;
            }
            Row::Line(sign, number, text) => {
                let style = match sign {
                    '+' => {
                        shown.added += 1;
                        theme.added()
                    }
                    '-' => {
                        shown.removed += 1;
                        theme.removed()
                    }
                    _ => theme.dim(),
                };
                shown.lines.push(Line::from(vec![
                    Span::styled(format!("    {number:>width$} "), theme.dim()),
                    Span::styled(
                        format!("{sign} {}", crate::sanitize::output_line(text)),
                        style,
                    ),
                ]));
            }
        }
    }
    shown.files = files;
    shown
}

/// The rows of `diff`: headers are only read between hunks, so a removed line that reads
/// `-- x` is a line, not a header.
fn parse(diff: &str) -> Vec<Row<'_>> {
    let mut rows = Vec::new();
    let (mut old, mut new) = (0usize, 0usize);
    let (mut old_left, mut new_left) = (0usize, 0usize);
    let mut lines = diff.lines().peekable();
    while let Some(line) = lines.next() {
        if old_left == 0 && new_left == 0 {
            if let Some(from) = line.strip_prefix("--- ") {
                let to = lines
                    .next_if(|next| next.starts_with("+++ "))
                    .map(|next| &next[4..]);
                let name = match to {
                    Some("/dev/null") | None => from.strip_prefix("a/").unwrap_or(from),
                    Some(to) => to.strip_prefix("b/").unwrap_or(to),
                };
                rows.push(Row::File(name.to_string()));
                continue;
            }
            if let Some((o, o_len, n, n_len)) = hunk_header(line) {
                (old, new, old_left, new_left) = (o, n, o_len, n_len);
                rows.push(Row::Hunk);
            }
            continue;
        }
        let (sign, text) = match line.chars().next() {
            Some(sign @ ('+' | '-' | ' ')) => (sign, &line[1..]),
            _ => (' ', line),
        };
        match sign {
            '+' => {
                rows.push(Row::Line('+', new, text));
                new += 1;
                new_left = new_left.saturating_sub(1);
            }
            '-' => {
                rows.push(Row::Line('-', old, text));
                old += 1;
                old_left = old_left.saturating_sub(1);
            }
            _ => {
                rows.push(Row::Line(' ', new, text));
                (old, new) = (old + 1, new + 1);
                old_left = old_left.saturating_sub(1);
                new_left = new_left.saturating_sub(1);
            }
        }
    }
    rows
}

/// `@@ -1,3 +1,4 @@` as (old start, old lines, new start, new lines); a missing count is 1.
fn hunk_header(line: &str) -> Option<(usize, usize, usize, usize)> {
    let body = line.strip_prefix("@@ -")?;
    let (ranges, _) = body.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |r: &str| -> Option<(usize, usize)> {
        match r.split_once(',') {
            Some((start, len)) => Some((start.parse().ok()?, len.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    let (o, o_len) = range(old)?;
    let (n, n_len) = range(new)?;
    Some((o, o_len, n, n_len))
}

/// At most `max` lines, the rest counted.
pub fn limit(mut lines: Vec<Line<'static>>, max: usize, theme: Theme) -> Vec<Line<'static>> {
    if lines.len() > max {
        let more = lines.len() - max;
        lines.truncate(max);
        lines.push(Line::styled(
            format!("    … +{more} more diff lines"),
            theme.dim(),
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_diff_shows_each_line_with_its_number_and_context() {
        let diff = "--- a/f.txt\n+++ b/f.txt\n@@ -8,5 +8,5 @@\n l8\n l9\n-l10\n+L10\n l11\n l12\n";
        let shown = unified(diff, Theme::PLAIN);
        assert_eq!(
            text(&shown.lines),
            [
                "     8   l8",
                "     9   l9",
                "    10 - l10",
                "    10 + L10",
                "    11   l11",
                "    12   l12",
            ]
        );
        assert_eq!((shown.added, shown.removed), (1, 1));
        assert_eq!(shown.files, ["f.txt"]);
        assert_eq!(shown.summary(), "f.txt: 1 line added, 1 removed");
    }

    #[test]
    fn hunks_are_separated_and_files_named_when_there_are_several() {
        let diff = "--- a/a.rs\n+++ b/a.rs\n@@ -1,1 +1,1 @@\n-x\n+y\n@@ -40,1 +40,2 @@\n z\n+w\n\
                    --- /dev/null\n+++ b/new.rs\n@@ -0,0 +1,1 @@\n+--- not a header\n";
        let shown = unified(diff, Theme::PLAIN);
        assert_eq!(
            text(&shown.lines),
            [
                "    a.rs",
                "     1 - x",
                "     1 + y",
                "    ⋮",
                "    40   z",
                "    41 + w",
                "    new.rs",
                "     1 + --- not a header",
            ]
        );
        assert_eq!((shown.added, shown.removed), (3, 1));
    }

    #[test]
    fn diff_colours_follow_the_sign() {
        let shown = unified("@@ -1 +1 @@\n-x\n+y\n", Theme::COLOR);
        assert_eq!(shown.lines[0].spans[1].style, Theme::COLOR.removed());
        assert_eq!(shown.lines[1].spans[1].style, Theme::COLOR.added());
    }

    #[test]
    fn long_diffs_are_cut_and_counted() {
        let diff: String = std::iter::once("@@ -0,0 +1,30 @@\n".to_string())
            .chain((0..30).map(|n| format!("+{n}\n")))
            .collect();
        let lines = limit(unified(&diff, Theme::PLAIN).lines, 5, Theme::PLAIN);
        assert_eq!(lines.len(), 6);
        assert_eq!(lines[5].to_string(), "    … +25 more diff lines");
    }
}
