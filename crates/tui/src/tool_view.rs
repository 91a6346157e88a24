//! How tool calls look: a one-line summary a person recognises the call by, the result folded
//! to a few lines, and the change an edit makes as a diff.

use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::theme::Theme;

/// Result lines shown under a finished call; the rest is folded.
pub const RESULT_LINES: usize = 4;
/// Diff lines shown for an edit.
pub const DIFF_LINES: usize = 24;
/// Longest summary, in characters.
const SUMMARY_CHARS: usize = 120;

/// A call's line: its name and the summary its facts give (`bash cargo test`,
/// `read_file src/main.rs (1-200)`); the input, compactly, for a tool that gives none.
pub fn call_line(name: &str, summary: &str, input: &Value) -> String {
    if summary.is_empty() {
        return clip(&format!("{name} {}", compact_json(input)), SUMMARY_CHARS);
    }
    clip(&format!("{name} {summary}"), SUMMARY_CHARS)
}

/// The same line for a call of a stored transcript, where no facts were kept: rebuilt from
/// the input (`read_file src/main.rs (1-200)`, `bash cargo test`, `grep "fn main" in src`…).
pub fn summary(name: &str, input: &Value) -> String {
    let text = |key: &str| input.get(key).and_then(Value::as_str).unwrap_or("");
    let number = |key: &str| input.get(key).and_then(Value::as_u64);
    let detail = match name {
        "bash" => first_line_marked(text("command")),
        "read_file" => {
            let range = match (number("offset"), number("limit")) {
                (Some(from), Some(limit)) => {
                    format!(" ({from}-{})", from.saturating_add(limit.saturating_sub(1)))
                }
                (Some(from), None) => format!(" ({from}-)"),
                (None, Some(limit)) => format!(" (1-{limit})"),
                (None, None) => String::new(),
            };
            format!("{}{range}", text("path"))
        }
        "write_file" => {
            let lines = text("content").lines().count();
            format!("{} ({lines} line{})", text("path"), plural(lines))
        }
        "edit_file" => text("path").to_string(),
        "apply_patch" => patch_files(text("patch")).join(", "),
        "glob" => with_path(text("pattern").to_string(), text("path")),
        "grep" => {
            let mut detail = with_path(format!("{:?}", text("pattern")), text("path"));
            if !text("glob").is_empty() {
                detail.push_str(&format!(" ({})", text("glob")));
            }
            detail
        }
        _ => compact_json(input),
    };
    clip(&format!("{name} {detail}"), SUMMARY_CHARS)
}

/// How a call ended, as its result is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It worked: the result is dim.
    Succeeded,
    /// It failed: the result is drawn as an error.
    Failed,
}

/// The result under a finished call: the first lines, then how many more were folded.
pub fn folded_result(output: &str, outcome: Outcome, theme: Theme) -> Vec<Line<'static>> {
    let style = match outcome {
        Outcome::Failed => theme.error(),
        Outcome::Succeeded => theme.dim(),
    };
    let all: Vec<&str> = output.trim_end().lines().collect();
    if all.is_empty() {
        return vec![Line::from(vec![
            Span::styled("  ⎿ ", theme.dim()),
            Span::styled("(no output)", theme.dim()),
        ])];
    }
    let mut lines: Vec<Line<'static>> = all
        .iter()
        .take(RESULT_LINES)
        .enumerate()
        .map(|(n, text)| {
            let gutter = if n == 0 { "  ⎿ " } else { "    " };
            Line::from(vec![
                Span::styled(gutter, theme.dim()),
                Span::styled(clip(&crate::sanitize::output_line(text), 400), style),
            ])
        })
        .collect();
    if all.len() > RESULT_LINES {
        let more = all.len() - RESULT_LINES;
        lines.push(Line::styled(
            format!("    … +{more} line{} (Ctrl-O shows all)", plural(more)),
            theme.dim(),
        ));
    }
    lines
}

/// How a failed command ended, from the status line `bash` puts after its output
/// (`exit 3`, `killed by signal 9`, `timed out after 2 s`).
pub fn ending(output: &str) -> Option<String> {
    output.lines().rev().take(8).find_map(|line| {
        let inner = line.strip_prefix('[')?.strip_suffix(']')?;
        if let Some(code) = inner.strip_prefix("exit code ") {
            return Some(format!("exit {code}"));
        }
        [
            "killed by signal ",
            "timed out after ",
            "interrupted by the user",
        ]
        .iter()
        .any(|start| inner.starts_with(start))
        .then(|| inner.split(';').next().unwrap_or(inner).to_string())
    })
}

/// The last `count` lines of a running call's output, for the live area.
pub fn tail(output: &str, count: usize) -> Vec<String> {
    let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(count)..]
        .iter()
        .map(|l| clip(&crate::sanitize::output_line(l), 200))
        .collect()
}

/// Files a Codex-format patch touches.
fn patch_files(patch: &str) -> Vec<String> {
    patch
        .lines()
        .filter_map(|line| {
            ["*** Update File: ", "*** Add File: ", "*** Delete File: "]
                .iter()
                .find_map(|marker| line.strip_prefix(marker))
                .map(|path| path.trim().to_string())
        })
        .collect()
}

fn with_path(mut detail: String, path: &str) -> String {
    if !path.is_empty() {
        detail.push_str(" in ");
        detail.push_str(path);
    }
    detail
}

/// The first line of a command, marked with `…` when more follow.
fn first_line_marked(text: &str) -> String {
    let mut lines = text.trim().lines();
    let first = lines.next().unwrap_or("").to_string();
    if lines.next().is_some() {
        format!("{first} …")
    } else {
        first
    }
}

fn compact_json(input: &Value) -> String {
    match input {
        Value::Object(map) if map.is_empty() => String::new(),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

/// `text` cut to `max` characters, marked with `…`.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn summaries_name_what_a_person_recognises_the_call_by() {
        let cases = [
            (
                "read_file",
                json!({"path": "src/main.rs", "offset": 1, "limit": 200}),
                "read_file src/main.rs (1-200)",
            ),
            ("read_file", json!({"path": "a.rs"}), "read_file a.rs"),
            (
                "read_file",
                json!({"path": "a.rs", "offset": u64::MAX, "limit": 2}),
                "read_file a.rs (18446744073709551615-18446744073709551615)",
            ),
            ("bash", json!({"command": "cargo test"}), "bash cargo test"),
            ("bash", json!({"command": "cd x\nmake"}), "bash cd x …"),
            (
                "write_file",
                json!({"path": "a.txt", "content": "1\n2\n"}),
                "write_file a.txt (2 lines)",
            ),
            (
                "edit_file",
                json!({"path": "a.rs", "old_string": "a", "new_string": "b"}),
                "edit_file a.rs",
            ),
            (
                "apply_patch",
                json!({"patch": "*** Begin Patch\n*** Update File: a.rs\n@@\n-a\n+b\n*** Add File: b.rs\n+x\n*** End Patch"}),
                "apply_patch a.rs, b.rs",
            ),
            (
                "glob",
                json!({"pattern": "**/*.rs", "path": "crates"}),
                "glob **/*.rs in crates",
            ),
            (
                "grep",
                json!({"pattern": "fn main", "glob": "*.rs"}),
                "grep \"fn main\" (*.rs)",
            ),
            ("mcp__x__y", json!({"q": 1}), "mcp__x__y {\"q\":1}"),
        ];
        for (name, input, expected) in cases {
            assert_eq!(summary(name, &input), expected);
        }
    }

    #[test]
    fn results_fold_to_a_few_lines() {
        let output: String = (1..=10).map(|n| format!("line {n}\n")).collect();
        let lines = folded_result(&output, Outcome::Succeeded, Theme::PLAIN);
        let text: Vec<String> = lines.iter().map(ToString::to_string).collect();
        assert_eq!(
            text,
            [
                "  ⎿ line 1",
                "    line 2",
                "    line 3",
                "    line 4",
                "    … +6 lines (Ctrl-O shows all)"
            ]
        );
    }

    #[test]
    fn tails_drop_blank_lines_and_escapes() {
        assert_eq!(tail("a\n\n\u{1b}[31mred\u{1b}[0m\nc\n", 2), ["red", "c"]);
    }
}
