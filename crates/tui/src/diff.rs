//! Edits as coloured unified diffs.

use ratatui::text::{Line, Span};
use similar::{ChangeTag, TextDiff};

use crate::theme::Theme;

/// The change from `old` to `new`, as unified-diff lines with two lines of context.
pub fn between(old: &str, new: &str, theme: Theme) -> Vec<Line<'static>> {
    let diff = TextDiff::from_lines(old, new);
    let mut lines = Vec::new();
    for (n, group) in diff.grouped_ops(2).iter().enumerate() {
        if n > 0 {
            lines.push(Line::styled("    ⋮", theme.dim()));
        }
        for op in group {
            for change in diff.iter_changes(op) {
                let text = change.value().trim_end_matches(['\n', '\r']).to_string();
                lines.push(match change.tag() {
                    ChangeTag::Delete => marked('-', text, theme.removed()),
                    ChangeTag::Insert => marked('+', text, theme.added()),
                    ChangeTag::Equal => marked(' ', text, theme.dim()),
                });
            }
        }
    }
    lines
}

/// A Codex-format patch, coloured by line kind.
pub fn patch(patch: &str, theme: Theme) -> Vec<Line<'static>> {
    patch
        .lines()
        .filter(|line| !matches!(*line, "*** Begin Patch" | "*** End Patch"))
        .map(|line| {
            let style = if line.starts_with("***") {
                theme.bold()
            } else if line.starts_with("@@") {
                theme.accent()
            } else if line.starts_with('+') {
                theme.added()
            } else if line.starts_with('-') {
                theme.removed()
            } else {
                theme.dim()
            };
            Line::from(vec![
                Span::raw("    "),
                Span::styled(crate::sanitize::output_line(line), style),
            ])
        })
        .collect()
}

/// Lines added and removed in diff lines made here (counted before any cut).
pub fn counts(lines: &[Line<'_>]) -> (usize, usize) {
    let sign = |line: &Line<'_>| {
        line.spans
            .get(1)
            .and_then(|span| span.content.chars().next())
    };
    let added = lines.iter().filter(|l| sign(l) == Some('+')).count();
    let removed = lines.iter().filter(|l| sign(l) == Some('-')).count();
    (added, removed)
}

/// At most `max` lines, the rest counted.
pub fn limit(mut lines: Vec<Line<'static>>, max: usize, theme: Theme) -> Vec<Line<'static>> {
    if lines.len() > max {
        let more = lines.len() - max;
        lines.truncate(max);
        lines.push(Line::styled(
            format!("    … +{more} diff lines"),
            theme.dim(),
        ));
    }
    lines
}

fn marked(sign: char, text: String, style: ratatui::style::Style) -> Line<'static> {
    Line::from(vec![
        Span::raw("    "),
        Span::styled(
            format!("{sign} {}", crate::sanitize::output_line(&text)),
            style,
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_diff_shows_removed_and_added_lines_with_context() {
        let old = "a\nb\nc\nd\ne\nf\n";
        let new = "a\nb\nc\nD\ne\nf\n";
        assert_eq!(
            text(&between(old, new, Theme::PLAIN)),
            [
                "      b", "      c", "    - d", "    + D", "      e", "      f"
            ]
        );
    }

    #[test]
    fn diff_colours_follow_the_sign() {
        let lines = between("x\n", "y\n", Theme::COLOR);
        assert_eq!(lines[0].spans[1].style, Theme::COLOR.removed());
        assert_eq!(lines[1].spans[1].style, Theme::COLOR.added());
    }

    #[test]
    fn long_diffs_are_cut_and_counted() {
        let new: String = (0..30).map(|n| format!("{n}\n")).collect();
        let lines = limit(between("", &new, Theme::PLAIN), 5, Theme::PLAIN);
        assert_eq!(lines.len(), 6);
        assert_eq!(lines[5].to_string(), "    … +25 diff lines");
    }
}
