//! A compact unified diff of the replacements made, built from the replaced spans themselves
//! (no whole-file diff: editing a 100,000-line file costs only the changed lines).

use super::matching::Replacement;

/// Context lines around each change.
const CONTEXT: usize = 2;
/// Most diff lines shown; the rest is summarised.
const MAX_LINES: usize = 40;

/// The unified diff of applying `replacements` (sorted, non-overlapping) to `old`.
pub fn unified(path: &str, old: &str, replacements: &[Replacement]) -> String {
    let mut out = vec![format!("--- a/{path}"), format!("+++ b/{path}")];
    // Line numbers are counted incrementally from one replacement to the next.
    let mut counted_to = 0;
    let mut line_no = 0; // 0-based line of `counted_to`
    let mut shift: isize = 0;
    for r in replacements {
        if out.len() > MAX_LINES {
            break;
        }
        line_no += newlines(&old[counted_to..r.range.start]);
        counted_to = r.range.start;
        // The touched lines: from the start of the first to the end of the last.
        let span_start = old[..r.range.start].rfind('\n').map_or(0, |i| i + 1);
        let last_byte = r.range.end.max(r.range.start + 1).min(old.len());
        let span_end = old[last_byte.saturating_sub(1)..]
            .find('\n')
            .map_or(old.len(), |i| last_byte - 1 + i + 1)
            .max(span_start);
        let old_span = &old[span_start..span_end];
        let new_span = format!(
            "{}{}{}",
            &old[span_start..r.range.start],
            r.text,
            &old[r.range.end.min(span_end)..span_end]
        );
        let before = context_before(old, span_start, CONTEXT);
        let after = context_after(old, span_end, CONTEXT);
        let old_lines: Vec<&str> = lines(old_span);
        let new_lines: Vec<&str> = lines(&new_span);
        let first = line_no - before.len();
        let old_count = before.len() + old_lines.len() + after.len();
        let new_count = before.len() + new_lines.len() + after.len();
        let new_start = (first as isize + shift + 1).max(1);
        out.push(format!(
            "@@ -{},{old_count} +{new_start},{new_count} @@",
            first + 1
        ));
        out.extend(before.iter().map(|l| format!(" {l}")));
        out.extend(old_lines.iter().map(|l| format!("-{l}")));
        out.extend(new_lines.iter().map(|l| format!("+{l}")));
        out.extend(after.iter().map(|l| format!(" {l}")));
        shift += new_lines.len() as isize - old_lines.len() as isize;
    }
    if out.len() > MAX_LINES {
        let hidden = out.len() - MAX_LINES;
        out.truncate(MAX_LINES);
        out.push(format!("[... {hidden} more diff lines]"));
    }
    out.join("\n")
}

fn newlines(text: &str) -> usize {
    text.bytes().filter(|b| *b == b'\n').count()
}

/// The lines of a span, without their newlines (an empty span has none).
fn lines(span: &str) -> Vec<&str> {
    span.split_inclusive('\n')
        .map(|l| l.strip_suffix('\n').unwrap_or(l))
        .collect()
}

/// Up to `n` whole lines ending right before `at` (a line start).
fn context_before(text: &str, at: usize, n: usize) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut end = at;
    while lines.len() < n && end > 0 {
        let start = text[..end - 1].rfind('\n').map_or(0, |i| i + 1);
        lines.push(&text[start..end - 1]);
        end = start;
    }
    lines.reverse();
    lines
}

/// Up to `n` whole lines starting at `at` (a line start).
fn context_after(text: &str, at: usize, n: usize) -> Vec<&str> {
    text[at..]
        .split_inclusive('\n')
        .take(n)
        .map(|l| l.strip_suffix('\n').unwrap_or(l))
        .collect()
}
