//! Finding `old_string` in a file: a pipeline of tiers from exact to tolerant.
//!
//! Each tier is accepted only when it finds exactly one match (or at least one, with
//! `replace_all`). A tier that finds several matches ends the search with an ambiguity error
//! listing them: it never falls through to a looser tier, which could only guess. Tolerant
//! tiers compare whole lines, so an edit they find replaces whole lines and never touches bytes
//! outside them.
//!
//! All tiers work on the file's text with `\r\n` already folded to `\n` when the file uses CRLF
//! throughout (the caller folds and restores it).

use std::borrow::Cow;

use super::indent::reindent;
use std::ops::Range;

/// How a match was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// The quote appears verbatim.
    Exact,
    /// The quote appears once CRLF and LF are treated alike.
    LineEndings,
    /// Lines match ignoring trailing whitespace.
    TrailingWhitespace,
    /// Lines match once blank lines around the quote are dropped.
    BlankLinesAround,
    /// Lines match ignoring indentation (the replacement is re-indented).
    Indentation,
    /// Lines match with runs of whitespace collapsed (the replacement is re-indented).
    Whitespace,
    /// The quote matches once `\n`, `\t`, `\"` typed literally are unescaped.
    Unescaped,
    /// The quote matches once `read_file`'s line-number prefixes are removed.
    LineNumbers,
    /// Lines match once typographic quotes, dashes and spaces are made ASCII.
    Typography,
}

impl Tier {
    /// How the result names the tier.
    pub fn describe(self) -> &'static str {
        match self {
            Tier::Exact => "exact match",
            Tier::LineEndings => "matched after normalising line endings",
            Tier::TrailingWhitespace => "matched ignoring trailing whitespace",
            Tier::BlankLinesAround => "matched ignoring blank lines around old_string",
            Tier::Indentation => "matched ignoring indentation; new_string re-indented",
            Tier::Whitespace => "matched ignoring whitespace differences; new_string re-indented",
            Tier::Unescaped => "matched after unescaping \\n, \\t and \\\" in old_string",
            Tier::LineNumbers => "matched after removing read_file line numbers from old_string",
            Tier::Typography => "matched after normalising typographic quotes and dashes",
        }
    }

    /// Whether new_string is re-indented to the file's indentation.
    fn reindents(self) -> bool {
        matches!(self, Tier::Indentation | Tier::Whitespace)
    }
}

/// One replacement: a byte range of the (folded) text and what goes there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    pub range: Range<usize>,
    pub text: String,
}

/// The outcome of a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// The replacements to make (one, or all with `replace_all`), in text order.
    Matches(Tier, Vec<Replacement>),
    /// Several matches and no `replace_all`: their 1-based first line numbers.
    Ambiguous(Tier, Vec<usize>),
    /// No tier matched.
    Nothing,
}

/// How many places one edit changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Occurrences {
    /// Exactly one: several matches are an ambiguity.
    One,
    /// Every match (`replace_all`).
    All,
}

/// Whether the quote appeared verbatim in the file before its line endings were folded (to
/// tell [`Tier::Exact`] from [`Tier::LineEndings`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InOriginal {
    /// The file's own bytes hold the quote.
    Verbatim,
    /// Only the folded text does.
    Folded,
}

/// Runs the tiers in order.
pub fn find(
    text: &str,
    old: &str,
    new: &str,
    occurrences: Occurrences,
    in_original: InOriginal,
) -> Found {
    let replace_all = occurrences == Occurrences::All;
    let substring = |quote: &str, new: &str, tier: Tier| -> Option<Found> {
        let starts: Vec<usize> = text.match_indices(quote).map(|(at, _)| at).collect();
        decide(
            text,
            tier,
            replace_all,
            starts.iter().map(|&at| at..at + quote.len()).collect(),
            |_| new.to_string(),
        )
    };
    if !old.is_empty() {
        let tier = if in_original == InOriginal::Verbatim {
            Tier::Exact
        } else {
            Tier::LineEndings
        };
        if let Some(found) = substring(old, new, tier) {
            return found;
        }
    }
    let lines = Lines::new(text);
    for (index, (tier, normalise)) in LINE_TIERS[1..4].iter().enumerate() {
        if let Some(found) = lines.search(old, new, *tier, *normalise, replace_all) {
            return found;
        }
        // Blank lines around the quote come right after the trailing-whitespace tier.
        if index == 0 {
            let trimmed = trim_blank_lines(old);
            if trimmed != old
                && let Some(found) =
                    lines.search(trimmed, new, Tier::BlankLinesAround, trim_end, replace_all)
            {
                return found;
            }
        }
    }
    if let Some(unescaped) = unescape(old) {
        let new = unescape(new).unwrap_or_else(|| new.to_string());
        if let Some(found) = substring(&unescaped, &new, Tier::Unescaped) {
            return found;
        }
        if let Some(found) = lines.search(&unescaped, &new, Tier::Unescaped, trim_end, replace_all)
        {
            return found;
        }
    }
    if let Some(stripped) = strip_line_numbers(old) {
        let new = strip_line_numbers(new).unwrap_or_else(|| new.to_string());
        if let Some(found) = substring(&stripped, &new, Tier::LineNumbers) {
            return found;
        }
        if let Some(found) = lines.search(&stripped, &new, Tier::LineNumbers, trim_end, replace_all)
        {
            return found;
        }
    }
    if let Some(found) = lines.search(old, new, Tier::Typography, typographic, replace_all) {
        return found;
    }
    Found::Nothing
}

/// A line comparison of a tolerant tier.
pub(crate) type Normalise = fn(&str) -> Cow<'_, str>;

/// Line comparisons from strict to tolerant. `edit_file` uses the middle ones after its exact
/// substring search; `apply_patch` seeks context lines with all of them, in order.
pub(crate) const LINE_TIERS: [(Tier, Normalise); 5] = [
    (Tier::Exact, as_is),
    (Tier::TrailingWhitespace, trim_end),
    (Tier::Indentation, trim),
    (Tier::Whitespace, collapse_whitespace),
    (Tier::Typography, typographic),
];

fn as_is(line: &str) -> Cow<'_, str> {
    Cow::Borrowed(line)
}

fn trim_end(line: &str) -> Cow<'_, str> {
    Cow::Borrowed(line.trim_end())
}

fn trim(line: &str) -> Cow<'_, str> {
    Cow::Borrowed(line.trim())
}

/// Applies the tier's uniqueness rule to candidate ranges.
fn decide(
    text: &str,
    tier: Tier,
    replace_all: bool,
    ranges: Vec<Range<usize>>,
    replacement: impl Fn(&Range<usize>) -> String,
) -> Option<Found> {
    match ranges.len() {
        0 => None,
        1 => Some(Found::Matches(
            tier,
            vec![Replacement {
                text: replacement(&ranges[0]),
                range: ranges[0].clone(),
            }],
        )),
        _ if replace_all => Some(Found::Matches(
            tier,
            ranges
                .iter()
                .map(|r| Replacement {
                    text: replacement(r),
                    range: r.clone(),
                })
                .collect(),
        )),
        _ => Some(Found::Ambiguous(
            tier,
            ranges.iter().map(|r| line_of(text, r.start)).collect(),
        )),
    }
}

/// 1-based line number of a byte offset.
pub fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// The file's lines with their byte offsets.
struct Lines<'a> {
    text: &'a str,
    /// Start offset of each line; lines exclude their `\n`.
    starts: Vec<usize>,
    lines: Vec<&'a str>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = Vec::new();
        let mut lines = Vec::new();
        let mut at = 0;
        for line in text.split_inclusive('\n') {
            starts.push(at);
            lines.push(line.strip_suffix('\n').unwrap_or(line));
            at += line.len();
        }
        Self {
            text,
            starts,
            lines,
        }
    }

    /// End offset of line `i` including its `\n`, if it has one.
    fn end_with_newline(&self, i: usize) -> usize {
        self.starts.get(i + 1).copied().unwrap_or(self.text.len())
    }

    /// Whole-line matches of `quote` under `normalise`, decided by the tier's rule.
    fn search(
        &self,
        quote: &str,
        new: &str,
        tier: Tier,
        normalise: Normalise,
        replace_all: bool,
    ) -> Option<Found> {
        let quote_lines: Vec<&str> = quote
            .strip_suffix('\n')
            .unwrap_or(quote)
            .split('\n')
            .collect();
        if quote_lines.iter().all(|l| l.trim().is_empty()) {
            return None;
        }
        let wanted: Vec<Cow<'_, str>> = quote_lines.iter().map(|l| normalise(l)).collect();
        let m = wanted.len();
        if m > self.lines.len() {
            return None;
        }
        let mut matches: Vec<usize> = Vec::new();
        let mut i = 0;
        while i + m <= self.lines.len() {
            if normalise(self.lines[i]) == wanted[0]
                && (1..m).all(|j| normalise(self.lines[i + j]) == wanted[j])
            {
                matches.push(i);
                i += m; // matches never overlap
            } else {
                i += 1;
            }
        }
        let ranges: Vec<Range<usize>> = matches
            .iter()
            .map(|&i| self.starts[i]..self.end_with_newline(i + m - 1))
            .collect();
        decide(self.text, tier, replace_all, ranges, |range| {
            let first = matches
                .iter()
                .position(|&i| self.starts[i] == range.start)
                .map_or(0, |k| matches[k]);
            let matched = &self.lines[first..first + m];
            let mut text = new.strip_suffix('\n').unwrap_or(new).to_string();
            if tier.reindents() {
                text = reindent(&text, &quote_lines, matched);
            }
            if self.text[..range.end].ends_with('\n') {
                text.push('\n');
            }
            text
        })
    }
}

fn collapse_whitespace(line: &str) -> Cow<'_, str> {
    let trimmed = line.trim();
    if !trimmed.contains("  ") && !trimmed.contains(['\t', '\u{a0}']) {
        return Cow::Borrowed(trimmed);
    }
    Cow::Owned(trimmed.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Typographic quotes, dashes, ellipsis and special spaces as ASCII, trailing space trimmed.
fn typographic(line: &str) -> Cow<'_, str> {
    let special = |c: char| {
        matches!(
            c,
            '\u{2018}'
                | '\u{2019}'
                | '\u{201A}'
                | '\u{201B}'
                | '\u{201C}'
                | '\u{201D}'
                | '\u{201E}'
                | '\u{201F}'
                | '\u{2010}'
                ..='\u{2015}' | '\u{2212}' | '\u{2026}' | '\u{00A0}' | '\u{2007}' | '\u{202F}'
        )
    };
    if !line.contains(special) {
        return Cow::Borrowed(line.trim_end());
    }
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => out.push('\''),
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => out.push('"'),
            '\u{2010}'..='\u{2015}' | '\u{2212}' => out.push('-'),
            '\u{2026}' => out.push_str("..."),
            '\u{00A0}' | '\u{2007}' | '\u{202F}' => out.push(' '),
            c => out.push(c),
        }
    }
    Cow::Owned(out.trim_end().to_string())
}

/// The quote without blank lines at its start and end.
fn trim_blank_lines(quote: &str) -> &str {
    let mut lines: Vec<&str> = quote.split_inclusive('\n').collect();
    while lines.first().is_some_and(|l| l.trim().is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    match (lines.first(), lines.last()) {
        (Some(first), Some(last)) => {
            let start = first.as_ptr() as usize - quote.as_ptr() as usize;
            let end = last.as_ptr() as usize - quote.as_ptr() as usize + last.len();
            &quote[start..end]
        }
        _ => "",
    }
}

/// `\n`, `\t`, `\"`, `\'` and `\\` typed literally, unescaped; `None` when there are none.
fn unescape(quote: &str) -> Option<String> {
    if !quote.contains('\\') {
        return None;
    }
    let mut out = String::with_capacity(quote.len());
    let mut chars = quote.chars();
    let mut changed = false;
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => {}
            Some('"') => out.push('"'),
            Some('\'') => out.push('\''),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
                continue;
            }
            None => {
                out.push('\\');
                continue;
            }
        }
        changed = true;
    }
    changed.then_some(out)
}

/// The quote without `read_file`'s `     12\t` prefixes, when every non-blank line has one.
fn strip_line_numbers(quote: &str) -> Option<String> {
    let strip = |line: &str| -> Option<String> {
        let trimmed = line.trim_start_matches(' ');
        let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
        (digits > 0 && trimmed[digits..].starts_with('\t'))
            .then(|| trimmed[digits + 1..].to_string())
    };
    let lines: Vec<&str> = quote.split('\n').collect();
    let mut out = Vec::with_capacity(lines.len());
    let mut any = false;
    for (i, line) in lines.iter().enumerate() {
        if line.is_empty() && i == lines.len() - 1 {
            out.push(String::new());
            continue;
        }
        match strip(line) {
            Some(rest) => {
                any = true;
                out.push(rest);
            }
            None => return None,
        }
    }
    any.then(|| out.join("\n"))
}

#[cfg(test)]
#[path = "matching_tests.rs"]
mod tests;
