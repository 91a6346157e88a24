//! Wrapping styled lines to the terminal's width before they go to the scrollback (the
//! terminal would wrap them too, but then the UI could not know how many rows they take).

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// `line` broken into rows of at most `width` columns, at spaces where possible. Rows after
/// the first keep the line's leading indentation when it is short, so lists and code stay
/// readable.
pub fn wrap(line: &Line<'static>, width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let total: usize = line.spans.iter().map(|s| s.width()).sum();
    if total <= width {
        return vec![line.clone()];
    }
    let cells: Vec<(char, ratatui::style::Style)> = line
        .spans
        .iter()
        .flat_map(|span| {
            let style = line.style.patch(span.style);
            span.content.chars().map(move |c| (c, style))
        })
        .collect();
    let indent = hanging_indent(&cells);
    let indent = if indent * 2 < width { indent } else { 0 };
    let mut rows = Vec::new();
    let mut start = 0;
    let mut first = true;
    while start < cells.len() {
        let room = if first { width } else { width - indent };
        let (end, next) = row_end(&cells, start, room);
        let mut row: Vec<(char, ratatui::style::Style)> = Vec::new();
        if !first {
            row.extend(std::iter::repeat_n(
                (' ', ratatui::style::Style::new()),
                indent,
            ));
        }
        row.extend_from_slice(&cells[start..end]);
        rows.push(to_line(&row));
        start = next;
        first = false;
    }
    rows
}

/// The columns rows after the first are indented by: the line's leading spaces, and a
/// marker after them with its space (`● `, `⎿ `, `- `), so an answer's or a list item's text
/// lines up under its first word.
fn hanging_indent(cells: &[(char, ratatui::style::Style)]) -> usize {
    let spaces = cells.iter().take_while(|(c, _)| *c == ' ').count();
    match (cells.get(spaces), cells.get(spaces + 1)) {
        (Some((marker, _)), Some((' ', _))) if !marker.is_alphanumeric() && *marker != ' ' => {
            spaces + marker.width().unwrap_or(1) + 1
        }
        _ => spaces,
    }
}

/// Where the row starting at `start` ends within `room` columns, and where the next begins.
fn row_end(cells: &[(char, ratatui::style::Style)], start: usize, room: usize) -> (usize, usize) {
    let mut used = 0;
    let mut end = start;
    while end < cells.len() {
        let w = cells[end].0.width().unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        end += 1;
    }
    if end >= cells.len() {
        return (end, end);
    }
    if end == start {
        // A character wider than the row: take it anyway.
        return (start + 1, start + 1);
    }
    // The row ends exactly at a word's end.
    if cells[end].0 == ' ' {
        let mut next = end;
        while next < cells.len() && cells[next].0 == ' ' {
            next += 1;
        }
        return (end, next);
    }
    // Break after the last space of the row when there is one past its first third.
    if let Some(space) = cells[start..end].iter().rposition(|(c, _)| *c == ' ')
        && space > (end - start) / 3
    {
        let mut next = start + space + 1;
        while next < cells.len() && cells[next].0 == ' ' {
            next += 1;
        }
        return (start + space, next);
    }
    (end, end)
}

fn to_line(cells: &[(char, ratatui::style::Style)]) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    for (c, style) in cells {
        match spans.last_mut() {
            Some(last) if last.style == *style => last.content.to_mut().push(*c),
            _ => spans.push(Span::styled(c.to_string(), *style)),
        }
    }
    Line::from(spans)
}

/// All of `lines` wrapped to `width`.
pub fn wrap_all(lines: &[Line<'static>], width: usize) -> Vec<Line<'static>> {
    lines.iter().flat_map(|line| wrap(line, width)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn rows(text: &str, width: usize) -> Vec<String> {
        wrap(&Line::raw(text.to_string()), width)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn an_answers_first_line_and_list_items_hang_under_their_text() {
        assert_eq!(
            rows("● The parser reads tokens one by one", 16),
            ["● The parser", "  reads tokens", "  one by one"]
        );
        assert_eq!(
            rows("  - a list item that wraps", 14),
            ["  - a list", "    item that", "    wraps"]
        );
        assert_eq!(
            rows("plain words that wrap", 11),
            ["plain words", "that wrap"]
        );
    }

    #[test]
    fn short_lines_stay_whole() {
        assert_eq!(rows("hello", 10), ["hello"]);
    }

    #[test]
    fn long_lines_break_at_spaces_and_keep_their_indent() {
        assert_eq!(
            rows("    one two three four five", 14),
            ["    one two", "    three four", "    five"]
        );
    }

    #[test]
    fn words_longer_than_the_row_are_cut() {
        assert_eq!(rows("abcdefghij", 4), ["abcd", "efgh", "ij"]);
    }

    #[test]
    fn wide_characters_count_two_columns() {
        assert_eq!(rows("日本語です", 4), ["日本", "語で", "す"]);
    }
}
