//! The `grep` tool: a regex search over the workspace with ripgrep's engine.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;
use ignore::{WalkBuilder, WalkState};
use schemars::JsonSchema;
use serde::Deserialize;

use super::{modified, search_root, usable_file, walker};
use crate::{CallFacts, CallKind, Effect, ToolContext, ToolOutput, TypedTool, WorkspaceGuard};

/// Characters of one printed line; longer lines are cut.
const MAX_LINE_CHARS: usize = 500;
/// Default caps per output mode.
const DEFAULT_FILES: usize = 100;
const DEFAULT_LINES: usize = 250;

/// What `grep` prints: paths of matching files, newest first (the default); matching lines as
/// `path:line:text` with context lines as `path-line-text`; or matching lines per file as
/// `path:count`. (Variants without doc comments: schemars would send each description in
/// every request, as a `oneOf`.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum OutputMode {
    #[default]
    FilesWithMatches,
    Content,
    Count,
}

/// Arguments of `grep`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GrepArgs {
    /// Regular expression (Rust regex syntax, like ripgrep).
    pub pattern: String,
    /// File or folder to search, relative to the workspace root (default: the root).
    pub path: Option<String>,
    /// Only files whose path matches this glob, e.g. `*.rs` or `src/**/*.ts`.
    pub glob: Option<String>,
    /// Only files of this type, e.g. `rust`, `py`, `js`, `go` (ripgrep's type names).
    #[serde(rename = "type")]
    pub file_type: Option<String>,
    /// Default `files_with_matches`.
    pub output_mode: Option<OutputMode>,
    /// Lines of context around each match (content mode).
    pub context: Option<usize>,
    /// Match regardless of case.
    #[serde(default)]
    pub case_insensitive: bool,
    /// Let the pattern span lines (`.` also matches newlines).
    #[serde(default)]
    pub multiline: bool,
    /// Most entries printed (default 100 files/counts, 250 lines).
    pub head_limit: Option<usize>,
}

/// The `grep` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct Grep;

#[async_trait]
impl TypedTool for Grep {
    type Args = GrepArgs;
    const NAME: &'static str = "grep";
    const CLAUDE_NAME: &'static str = "Grep";
    const KIND: CallKind = CallKind::Search;
    const LEAN: crate::Lean = crate::Lean::Short {
        description: "Searches file contents by regex (ripgrep), skipping what .gitignore \
                      ignores. output_mode: files_with_matches (default), content or count.",
        arguments: &[
            ("pattern", ""),
            ("path", ""),
            ("glob", "Only paths matching, e.g. `*.rs`"),
            ("output_mode", ""),
            ("context", "Lines around each match (content)"),
            ("case_insensitive", ""),
        ],
    };

    fn description(&self) -> String {
        "Searches file contents with a regular expression (ripgrep's engine), skipping what \
         .gitignore ignores and binary files. output_mode: files_with_matches (default; paths, \
         newest first), content (path:line:text, with `context` lines), count. Filter with \
         `glob` (`*.rs`) or `type` (`rust`, `py`). Results are capped (head_limit) and the cap \
         is stated."
            .to_string()
    }

    fn effect(&self, _args: &GrepArgs) -> Effect {
        Effect::ReadOnly
    }

    fn describe(&self, args: &GrepArgs, guard: &WorkspaceGuard, facts: &mut CallFacts) {
        let path = args.path.as_deref().unwrap_or(".");
        facts
            .reads
            .push(crate::resolve_for_rules(path, guard.root(), guard));
        let mut summary = format!("{:?}", args.pattern);
        if let Some(path) = &args.path {
            summary.push_str(&format!(" in {path}"));
        }
        if let Some(glob) = &args.glob {
            summary.push_str(&format!(" ({glob})"));
        }
        facts.summary = summary;
    }

    async fn run(&self, args: GrepArgs, ctx: &ToolContext) -> ToolOutput {
        let guard = ctx.guard.clone();
        match tokio::task::spawn_blocking(move || grep(&args, &guard)).await {
            Ok(output) => output,
            Err(e) => ToolOutput::error(format!("grep failed: {e}")),
        }
    }
}

/// One file's findings.
#[derive(Debug, Default)]
struct FileHits {
    path: PathBuf,
    /// Matching lines (count mode: just counted).
    matches: usize,
    /// Printed lines (content mode): (line number, is a match, text), `None` for a break.
    lines: Vec<Option<(u64, bool, String)>>,
}

fn grep(args: &GrepArgs, guard: &WorkspaceGuard) -> ToolOutput {
    let root = match search_root(args.path.as_deref(), guard) {
        Ok(root) => root,
        Err(e) => return ToolOutput::error(e),
    };
    let mode = args.output_mode.unwrap_or_default();
    let limit = args.head_limit.filter(|n| *n > 0).unwrap_or(match mode {
        OutputMode::Content => DEFAULT_LINES,
        _ => DEFAULT_FILES,
    });
    let matcher = match RegexMatcherBuilder::new()
        .case_insensitive(args.case_insensitive)
        .multi_line(args.multiline)
        .dot_matches_new_line(args.multiline)
        .build(&args.pattern)
    {
        Ok(matcher) => matcher,
        Err(e) => return ToolOutput::error(format!("invalid regex {:?}: {e}", args.pattern)),
    };
    let mut walk = walker(&root);
    if let Err(refusal) = narrow(&mut walk, args, &root) {
        return ToolOutput::error(refusal);
    }
    let context = if mode == OutputMode::Content {
        args.context.unwrap_or(0)
    } else {
        0
    };
    let search = Search {
        matcher: &matcher,
        multiline: args.multiline,
        mode,
        limit,
        context,
    };
    let mut hits = search.run(walk, guard);
    if hits.is_empty() {
        return ToolOutput::ok(format!(
            "No matches for {:?} in {}.",
            args.pattern,
            guard.display(&root)
        ));
    }
    render(mode, &mut hits, limit, context > 0, guard)
}

/// One search over the walk's files, run in parallel.
struct Search<'a> {
    matcher: &'a RegexMatcher,
    multiline: bool,
    mode: OutputMode,
    /// Most lines (or files) kept; past it, matches are only counted.
    limit: usize,
    /// Lines of context around each match.
    context: usize,
}

impl Search<'_> {
    /// Every file's matches, in the order the walk met them.
    fn run(&self, walk: WalkBuilder, guard: &WorkspaceGuard) -> Vec<FileHits> {
        let hits = Mutex::new(Vec::new());
        let stored_lines = AtomicUsize::new(0);
        walk.build_parallel().run(|| {
            let mut searcher = SearcherBuilder::new()
                .binary_detection(BinaryDetection::quit(b'\x00'))
                .line_number(true)
                .multi_line(self.multiline)
                .before_context(self.context)
                .after_context(self.context)
                .build();
            let (matcher, hits, stored_lines) = (self.matcher.clone(), &hits, &stored_lines);
            Box::new(move |entry| {
                let Ok(entry) = entry else {
                    return WalkState::Continue;
                };
                let Some(path) = usable_file(&entry, guard) else {
                    return WalkState::Continue;
                };
                let mut sink = Collect {
                    mode: self.mode,
                    hits: FileHits {
                        path,
                        ..FileHits::default()
                    },
                    // Keep memory bounded: once enough lines are stored everywhere, only count.
                    room: self
                        .limit
                        .saturating_sub(stored_lines.load(Ordering::Relaxed)),
                    binary: false,
                };
                let searched = searcher.search_path(&matcher, entry.path(), &mut sink);
                if searched.is_ok() && !sink.binary && sink.hits.matches > 0 {
                    stored_lines.fetch_add(sink.hits.lines.len(), Ordering::Relaxed);
                    if let Ok(mut hits) = hits.lock() {
                        hits.push(sink.hits);
                    }
                }
                WalkState::Continue
            })
        });
        hits.into_inner().unwrap_or_default()
    }
}

/// Narrows the walk to the call's glob and file type; an invalid one is the error text.
fn narrow(walk: &mut WalkBuilder, args: &GrepArgs, root: &Path) -> Result<(), String> {
    if let Some(glob) = &args.glob {
        let mut overrides = OverrideBuilder::new(root);
        let overrides = overrides
            .add(glob)
            .and_then(|o| o.build())
            .map_err(|e| format!("invalid glob {glob:?}: {e}"))?;
        walk.overrides(overrides);
    }
    if let Some(name) = &args.file_type {
        walk.types(file_types(name)?);
    }
    Ok(())
}

/// ripgrep's default file types with `name` selected; an unknown name is the error text.
fn file_types(name: &str) -> Result<ignore::types::Types, String> {
    let mut types = TypesBuilder::new();
    types.add_defaults();
    if !types.definitions().iter().any(|d| d.name() == name) {
        let mut known: Vec<String> = types
            .definitions()
            .iter()
            .map(|d| d.name().to_string())
            .collect();
        known.sort();
        let sample: Vec<&str> = [
            "rust", "py", "js", "ts", "go", "java", "c", "cpp", "md", "json", "yaml", "toml",
        ]
        .into_iter()
        .filter(|t| known.iter().any(|k| k == t))
        .collect();
        return Err(format!(
            "unknown file type {name:?}; known types include {}",
            sample.join(", ")
        ));
    }
    types.select(name);
    types
        .build()
        .map_err(|e| format!("file type {name:?}: {e}"))
}

/// Collects one file's matches for the chosen mode.
struct Collect {
    mode: OutputMode,
    hits: FileHits,
    room: usize,
    binary: bool,
}

impl Sink for Collect {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, std::io::Error> {
        self.hits.matches += 1;
        match self.mode {
            // One match is enough to list the file.
            OutputMode::FilesWithMatches => Ok(false),
            OutputMode::Count => Ok(true),
            OutputMode::Content => {
                let first = mat.line_number().unwrap_or(0);
                for (i, line) in mat.lines().enumerate() {
                    if self.hits.lines.len() < self.room {
                        self.hits
                            .lines
                            .push(Some((first + i as u64, true, clean(line))));
                    }
                }
                Ok(true)
            }
        }
    }

    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, std::io::Error> {
        if self.hits.lines.len() < self.room {
            let number = ctx.line_number().unwrap_or(0);
            self.hits
                .lines
                .push(Some((number, false, clean(ctx.bytes()))));
        }
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, std::io::Error> {
        if self.hits.lines.len() < self.room {
            self.hits.lines.push(None);
        }
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> Result<bool, std::io::Error> {
        // Binary files are skipped entirely, even if a match came before the NUL byte.
        self.binary = true;
        Ok(false)
    }
}

/// A line for printing: newline dropped, invalid UTF-8 replaced, long lines cut.
fn clean(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches(['\n', '\r']);
    match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => format!("{} [... line cut]", &text[..cut]),
        None => text.to_string(),
    }
}

fn render(
    mode: OutputMode,
    hits: &mut [FileHits],
    limit: usize,
    separate: bool,
    guard: &WorkspaceGuard,
) -> ToolOutput {
    let files = hits.len();
    let mut out = Vec::new();
    match mode {
        OutputMode::FilesWithMatches => {
            let mut dated: Vec<_> = hits.iter().map(|h| (modified(&h.path), &h.path)).collect();
            dated.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
            out.extend(dated.iter().take(limit).map(|(_, p)| guard.display(p)));
            if files > limit {
                out.push(format!("(showing {limit} of {files} matching files, newest first; narrow the search or raise head_limit)"));
            }
        }
        OutputMode::Count => {
            hits.sort_by(|a, b| a.path.cmp(&b.path));
            out.extend(
                hits.iter()
                    .take(limit)
                    .map(|h| format!("{}:{}", guard.display(&h.path), h.matches)),
            );
            let total: usize = hits.iter().map(|h| h.matches).sum();
            if files > limit {
                out.push(format!(
                    "(showing {limit} of {files} files; {total} matching lines in all)"
                ));
            }
        }
        OutputMode::Content => {
            hits.sort_by(|a, b| a.path.cmp(&b.path));
            let total: usize = hits.iter().map(|h| h.matches).sum();
            let mut printed = 0;
            'files: for (index, hit) in hits.iter().enumerate() {
                let shown = guard.display(&hit.path);
                // Like rg: `--` between groups only when context lines are shown.
                if separate && index > 0 && !hit.lines.is_empty() {
                    out.push("--".to_string());
                }
                for line in &hit.lines {
                    if printed >= limit {
                        break 'files;
                    }
                    out.push(match line {
                        Some((n, true, text)) => format!("{shown}:{n}:{text}"),
                        Some((n, false, text)) => format!("{shown}-{n}-{text}"),
                        None => "--".to_string(),
                    });
                    printed += 1;
                }
            }
            if printed >= limit {
                out.push(format!(
                    "(output capped at {limit} lines; {total} matching lines in {files} files; narrow the search or raise head_limit)"
                ));
            }
        }
    }
    ToolOutput::ok(out.join("\n"))
}
