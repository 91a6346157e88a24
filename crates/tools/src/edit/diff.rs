//! A compact unified diff of the replacements made, built from the replaced spans themselves
//! (no whole-file diff: editing a 100,000-line file costs only the changed lines).

use super::matching::Replacement;

/// Context lines around each change.
const CONTEXT: usize = 2;
/// Most diff lines shown; the rest is summarised.
const MAX_LINES: usize = 40;

/// The unified diff of applying `replacements` (sorted, non-overlapping) to `old`.
pub fn unified(path: &str, old: &str, replacements: &[Replacement]) -> String {
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let starts: Vec<usize> = old_lines
        .iter()
        .scan(0, |at, line| {
            let start = *at;
            *at += line.len();
            Some(start)
        })
        .collect();
    let line_at = |offset: usize| match starts.binary_search(&offset) {
        Ok(i) => i,
        Err(i) => i.saturating_sub(1),
    };
    let mut out = vec![format!("--- a/{path}"), format!("+++ b/{path}")];
    let mut shift: isize = 0;
    for r in replacements {
        let first = line_at(r.range.start);
        let last = if r.range.end > r.range.start {
            line_at(r.range.end - 1)
        } else {
            first
        };
        let last = last.min(old_lines.len().saturating_sub(1));
        // The new text of the touched lines: their unchanged prefix and suffix around the
        // replacement.
        let span_start = starts.get(first).copied().unwrap_or(old.len());
        let span_end = starts.get(last + 1).copied().unwrap_or(old.len());
        let new_span = format!(
            "{}{}{}",
            &old[span_start..r.range.start.max(span_start)],
            r.text,
            &old[r.range.end.min(span_end)..span_end]
        );
        let new_lines: Vec<&str> = new_span.split_inclusive('\n').collect();
        let before = first.saturating_sub(CONTEXT);
        let after = (last + 1 + CONTEXT).min(old_lines.len());
        let old_count = after - before;
        let new_count = (first - before) + new_lines.len() + (after - last - 1).min(after);
        let new_start = (before as isize + shift + 1).max(1);
        out.push(format!(
            "@@ -{},{} +{},{} @@",
            before + 1,
            old_count,
            new_start,
            new_count
        ));
        let clean = |l: &str| l.strip_suffix('\n').unwrap_or(l).to_string();
        for line in &old_lines[before..first] {
            out.push(format!(" {}", clean(line)));
        }
        if first < old_lines.len() {
            for line in &old_lines[first..=last] {
                out.push(format!("-{}", clean(line)));
            }
        }
        for line in &new_lines {
            out.push(format!("+{}", clean(line)));
        }
        for line in &old_lines[(last + 1).min(old_lines.len())..after] {
            out.push(format!(" {}", clean(line)));
        }
        shift += new_lines.len() as isize - (last + 1 - first) as isize;
    }
    if out.len() > MAX_LINES {
        let hidden = out.len() - MAX_LINES;
        out.truncate(MAX_LINES);
        out.push(format!("[... {hidden} more diff lines]"));
    }
    out.join("\n")
}
