//! Diagnostics as the model reads them: after a change, the new errors in each changed file
//! (capped, with line, column and message); on request, everything a server says of a file.

use std::fmt::Write as _;
use std::path::Path;

use lsp_types::{Diagnostic, DiagnosticSeverity, NumberOrString};

use super::Shown;

/// What a server said of one changed file.
#[derive(Debug, Clone, Default)]
pub struct FileReport {
    /// The file.
    pub path: std::path::PathBuf,
    /// The server's name.
    pub server: String,
    /// Its diagnostics before the change (none when it had not seen the file).
    pub before: Vec<Diagnostic>,
    /// Its diagnostics now.
    pub now: Vec<Diagnostic>,
}

/// The longest message shown.
const MESSAGE_CHARS: usize = 300;

/// The text added to a changing call's result: per file, the diagnostics at `shown`'s
/// severity or worse that the change brought (at most `max` lines in all), or that none are
/// left; `None` when there is nothing to say.
pub fn render_changes(
    reports: &[FileReport],
    workspace: &Path,
    shown: Shown,
    max: usize,
) -> Option<String> {
    let mut listing = Listing::new(max);
    for report in reports {
        let text = &mut listing.text;
        let name = relative(&report.path, workspace);
        let before: Vec<&Diagnostic> = report.before.iter().filter(|d| shown.has(d)).collect();
        let now: Vec<&Diagnostic> = report.now.iter().filter(|d| shown.has(d)).collect();
        if now.is_empty() {
            if !before.is_empty() {
                let _ = writeln!(text, "{name}: no {} left ({})", shown.noun(), report.server);
            }
            continue;
        }
        let mut old = before.clone();
        let mut new = Vec::new();
        for diagnostic in now {
            match old.iter().position(|d| same(d, diagnostic)) {
                Some(at) => {
                    old.remove(at);
                }
                None => new.push(diagnostic),
            }
        }
        if new.is_empty() {
            continue;
        }
        let kept = report.now.iter().filter(|d| shown.has(d)).count() - new.len();
        let _ = write!(text, "{name}: {} ({})", count(&new), report.server);
        if kept > 0 {
            let _ = write!(text, ", and {kept} that were there before");
        }
        text.push('\n');
        listing.push(&new);
    }
    let text = listing.finish();
    (!text.is_empty()).then(|| format!("Language server diagnostics after this change:\n{text}"))
}

/// Everything the servers said of each file, at `shown`'s severity or worse, `max` lines at
/// most.
pub fn render_all(
    files: &[(String, std::path::PathBuf, Vec<Diagnostic>)],
    workspace: &Path,
    shown: Shown,
    max: usize,
) -> String {
    let mut listing = Listing::new(max);
    for (server, path, items) in files {
        let items: Vec<&Diagnostic> = items.iter().filter(|d| shown.has(d)).collect();
        if items.is_empty() {
            continue;
        }
        let name = relative(path, workspace);
        let _ = writeln!(listing.text, "{name}: {} ({server})", count(&items));
        listing.push(&items);
    }
    listing.finish()
}

/// Diagnostics listed one per line, `max` lines in all, the rest counted.
struct Listing {
    text: String,
    lines: usize,
    max: usize,
    left_out: usize,
}

impl Listing {
    fn new(max: usize) -> Self {
        Self {
            text: String::new(),
            lines: 0,
            max,
            left_out: 0,
        }
    }

    fn push(&mut self, diagnostics: &[&Diagnostic]) {
        for diagnostic in diagnostics {
            if self.lines == self.max {
                self.left_out += 1;
                continue;
            }
            self.lines += 1;
            let _ = writeln!(self.text, "  {}", line(diagnostic));
        }
    }

    fn finish(mut self) -> String {
        if self.left_out > 0 {
            let _ = writeln!(self.text, "  … and {} more", self.left_out);
        }
        self.text
    }
}

/// Two diagnostics are the same one (moved by the edit, perhaps) when severity, code and
/// message agree.
fn same(a: &Diagnostic, b: &Diagnostic) -> bool {
    a.severity == b.severity && a.code == b.code && a.message == b.message
}

/// `3 errors, 1 warning`.
fn count(items: &[&Diagnostic]) -> String {
    let errors = items.iter().filter(|d| is_error(d)).count();
    let others = items.len() - errors;
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    match (errors, others) {
        (e, 0) => plural(e, "error"),
        (0, w) => plural(w, "warning"),
        (e, w) => format!("{}, {}", plural(e, "error"), plural(w, "warning")),
    }
}

fn is_error(d: &Diagnostic) -> bool {
    d.severity.is_none_or(|s| s == DiagnosticSeverity::ERROR)
}

/// `12:5: error: "foo" is not defined [reportUndefinedVariable]`, 1-based.
fn line(d: &Diagnostic) -> String {
    let severity = match d.severity {
        Some(DiagnosticSeverity::WARNING) => "warning",
        Some(DiagnosticSeverity::INFORMATION) => "info",
        Some(DiagnosticSeverity::HINT) => "hint",
        _ => "error",
    };
    let mut message: String = d
        .message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" / ");
    if message.chars().count() > MESSAGE_CHARS {
        message = message.chars().take(MESSAGE_CHARS).collect::<String>() + "…";
    }
    let code = match &d.code {
        Some(NumberOrString::String(code)) => format!(" [{code}]"),
        Some(NumberOrString::Number(code)) => format!(" [{code}]"),
        None => String::new(),
    };
    let start = d.range.start;
    format!(
        "{}:{}: {severity}: {message}{code}",
        start.line + 1,
        start.character + 1
    )
}

fn relative(path: &Path, workspace: &Path) -> String {
    path.strip_prefix(workspace)
        .unwrap_or(path)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::{Position, Range};

    fn diagnostic(line: u32, severity: DiagnosticSeverity, message: &str) -> Diagnostic {
        Diagnostic {
            range: Range::new(Position::new(line, 4), Position::new(line, 9)),
            severity: Some(severity),
            code: Some(NumberOrString::String("reportUndefinedVariable".into())),
            message: message.into(),
            ..Diagnostic::default()
        }
    }

    #[test]
    fn a_change_reports_its_new_errors_then_that_none_are_left() {
        let ws = Path::new("/ws");
        let old = diagnostic(1, DiagnosticSeverity::ERROR, "\"a\" is not defined");
        let moved = diagnostic(2, DiagnosticSeverity::ERROR, "\"a\" is not defined");
        let new = diagnostic(7, DiagnosticSeverity::ERROR, "\"b\" is not defined");
        let warning = diagnostic(3, DiagnosticSeverity::WARNING, "unused import");
        let report = FileReport {
            path: "/ws/pkg/app.py".into(),
            server: "pyright".into(),
            before: vec![old.clone()],
            now: vec![moved, new.clone(), warning],
        };
        let text = render_changes(std::slice::from_ref(&report), ws, Shown::Errors, 20).unwrap();
        assert_eq!(
            text,
            "Language server diagnostics after this change:\n\
             pkg/app.py: 1 error (pyright), and 1 that were there before\n  \
             8:5: error: \"b\" is not defined [reportUndefinedVariable]\n"
        );
        let fixed = FileReport {
            before: vec![old, new],
            now: vec![],
            ..report.clone()
        };
        let text = render_changes(&[fixed], ws, Shown::Errors, 20).unwrap();
        assert!(
            text.ends_with("pkg/app.py: no errors left (pyright)\n"),
            "{text}"
        );
        let unchanged = FileReport {
            before: report.now.clone(),
            ..report
        };
        assert_eq!(render_changes(&[unchanged], ws, Shown::Errors, 20), None);
    }

    #[test]
    fn the_cap_holds_across_files() {
        let many: Vec<Diagnostic> = (0..30)
            .map(|i| diagnostic(i, DiagnosticSeverity::ERROR, &format!("error {i}")))
            .collect();
        let report = FileReport {
            path: "/ws/a.py".into(),
            server: "pyright".into(),
            now: many,
            ..FileReport::default()
        };
        let text = render_changes(&[report], Path::new("/ws"), Shown::Errors, 5).unwrap();
        assert_eq!(text.lines().filter(|l| l.contains(": error: ")).count(), 5);
        assert!(text.contains("a.py: 30 errors (pyright)"), "{text}");
        assert!(text.ends_with("  … and 25 more\n"), "{text}");
    }
}
