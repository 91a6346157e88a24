//! Markdown tables (GitHub's pipe tables) as aligned columns. The streaming renderer holds a
//! table's rows back until the table ends, since a column is as wide as its widest cell.

use ratatui::text::{Line, Span};

use crate::theme::Theme;

/// Whether `line` may be a row of a pipe table.
pub fn is_row(line: &str) -> bool {
    let line = line.trim();
    line.starts_with('|') && line.len() > 1
}

/// The table's rows rendered: header bold, a rule under it, columns aligned with `│`; rows
/// that do not make a table (no delimiter row under the first) come out as they are.
pub fn render(
    rows: &[String],
    theme: Theme,
    plain: impl Fn(&str) -> Line<'static>,
) -> Vec<Line<'static>> {
    let delimited = rows.get(1).is_some_and(|row| is_delimiter(row));
    if !delimited {
        return rows.iter().map(|row| plain(row)).collect();
    }
    let cells: Vec<Vec<Line<'static>>> = rows
        .iter()
        .enumerate()
        .filter(|(n, _)| *n != 1)
        .map(|(_, row)| split(row).iter().map(|cell| plain(cell)).collect())
        .collect();
    let columns = cells.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            cells
                .iter()
                .filter_map(|row| row.get(c))
                .map(Line::width)
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = Vec::with_capacity(cells.len() + 1);
    for (n, row) in cells.into_iter().enumerate() {
        let mut spans = Vec::new();
        for (c, width) in widths.iter().enumerate() {
            if c > 0 {
                spans.push(Span::styled(" │ ", theme.dim()));
            }
            let cell = row.get(c).cloned().unwrap_or_default();
            let pad = width - cell.width();
            for span in cell.spans {
                let style = if n == 0 {
                    span.style.patch(theme.bold())
                } else {
                    span.style
                };
                spans.push(Span::styled(span.content, style));
            }
            if c + 1 < widths.len() {
                spans.push(Span::raw(" ".repeat(pad)));
            }
        }
        out.push(Line::from(spans));
        if n == 0 {
            let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
            out.push(Line::styled(rule.join("─┼─"), theme.dim()));
        }
    }
    out
}

/// `|---|:--:|`: the row under a table's header.
fn is_delimiter(row: &str) -> bool {
    let cells = split(row);
    !cells.is_empty()
        && cells.iter().all(|cell| {
            let cell = cell.trim();
            let inner = cell.trim_start_matches(':').trim_end_matches(':');
            !inner.is_empty() && inner.chars().all(|c| c == '-')
        })
}

/// A row's cells, trimmed; `\|` stays in its cell.
fn split(row: &str) -> Vec<String> {
    let row = row.trim();
    let row = row.strip_prefix('|').unwrap_or(row);
    let row = if row.ends_with('|') && !row.ends_with("\\|") {
        &row[..row.len() - 1]
    } else {
        row
    };
    let mut cells = vec![String::new()];
    let mut chars = row.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '|' => cells.push(String::new()),
            c => {
                let escaped_pipe = c == '\\' && chars.peek() == Some(&'|');
                let c = if escaped_pipe {
                    chars.next().unwrap_or(c)
                } else {
                    c
                };
                if let Some(cell) = cells.last_mut() {
                    cell.push(c);
                }
            }
        }
    }
    cells.into_iter().map(|c| c.trim().to_string()).collect()
}
