//! Re-indenting new_string when the quote matched the file only ignoring indentation: shifted
//! by the difference, or translated level by level between tabs and spaces.

/// Shifts `new`'s lines by the difference between the file's indentation and the quote's
/// (taken from their first non-blank lines).
pub(super) fn reindent(new: &str, quote: &[&str], matched: &[&str]) -> String {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let Some(k) = quote.iter().position(|l| !l.trim().is_empty()) else {
        return new.to_string();
    };
    let quote_indent = &quote[k][..indent(quote[k])];
    let file_indent = &matched[k][..indent(matched[k])];
    if quote_indent == file_indent {
        return new.to_string();
    }
    if let Some(levels) = Levels::between(quote, matched) {
        return new
            .split('\n')
            .map(|line| levels.translate(line))
            .collect::<Vec<_>>()
            .join("\n");
    }
    new.split('\n')
        .map(|line| {
            if line.trim().is_empty() {
                line.to_string()
            } else if let Some(rest) = line.strip_prefix(quote_indent) {
                format!("{file_indent}{rest}")
            } else if file_indent.len() > quote_indent.len() {
                // Less indented than the quote's first line: shift by the same amount.
                let extra = &file_indent[quote_indent.len().min(file_indent.len())..];
                format!("{extra}{line}")
            } else {
                let cut = (quote_indent.len() - file_indent.len()).min(indent(line));
                line[cut..].to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// How one indentation level is written in the quote and in the file, when one indents with
/// tabs and the other with spaces: new_string's lines are translated level by level, so the
/// file keeps a single style (a model quoting a tab-indented file writes spaces).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Levels {
    /// Columns of one level in the quote's style (1 for a tab).
    quote_width: usize,
    /// The quote indents with tabs.
    quote_tabs: bool,
    /// Spaces per level in the file (0: the file indents with tabs).
    file_spaces: usize,
}

impl Levels {
    /// The levels of a quote and the file lines it matched, from the first pair of lines
    /// indented in both; `None` unless exactly one side indents with tabs only.
    fn between(quote: &[&str], matched: &[&str]) -> Option<Self> {
        fn lead(l: &str) -> &str {
            &l[..l.len() - l.trim_start().len()]
        }
        let (q, f) = quote
            .iter()
            .zip(matched)
            .map(|(q, f)| (lead(q), lead(f)))
            .find(|(q, f)| !q.is_empty() && !f.is_empty())?;
        let tabs = |s: &str| s.chars().all(|c| c == '\t');
        let spaces = |s: &str| s.chars().all(|c| c == ' ');
        match (tabs(q), spaces(q), tabs(f), spaces(f)) {
            // Spaces quoted, tabs in the file: one level is this many quoted spaces.
            (false, true, true, false) if q.len() % f.len() == 0 => Some(Self {
                quote_width: q.len() / f.len(),
                quote_tabs: false,
                file_spaces: 0,
            }),
            (true, false, false, true) if f.len() % q.len() == 0 => Some(Self {
                quote_width: 1,
                quote_tabs: true,
                file_spaces: f.len() / q.len(),
            }),
            _ => None,
        }
    }

    /// `line` with its indentation rewritten level by level in the file's style (a partial
    /// level is rounded down: the file's style has no half levels).
    fn translate(&self, line: &str) -> String {
        let rest = line.trim_start_matches([' ', '\t']);
        if rest.is_empty() {
            return line.to_string();
        }
        let lead = &line[..line.len() - rest.len()];
        let columns: usize = lead
            .chars()
            .map(|c| match (c, self.quote_tabs) {
                ('\t', true) | (' ', false) => 1,
                ('\t', false) => self.quote_width,
                // A space in a tab-indented quote: a fraction of a level.
                _ => 0,
            })
            .sum();
        let levels = columns / self.quote_width;
        let indent = if self.file_spaces == 0 {
            "\t".repeat(levels)
        } else {
            " ".repeat(levels * self.file_spaces)
        };
        format!("{indent}{rest}")
    }
}
