//! Parsing the `*** Begin Patch` format. Lenient where models slip (a heredoc wrapper around
//! the patch, markers padded with whitespace, a first hunk without `@@`), strict where a guess
//! could damage a file (unknown operations, empty updates, stray lines).

/// One file operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    /// Create (or overwrite) a file with these lines.
    Add { path: String, lines: Vec<String> },
    /// Delete a file.
    Delete { path: String },
    /// Change a file, optionally moving it.
    Update {
        path: String,
        move_to: Option<String>,
        chunks: Vec<Chunk>,
    },
}

/// One `@@` hunk of an update.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Chunk {
    /// The text after `@@`, a line to find before the hunk's lines.
    pub context: Option<String>,
    /// Lines to find (context and removed lines).
    pub old: Vec<String>,
    /// Lines to put in their place (context and added lines).
    pub new: Vec<String>,
    /// For each line of the hunk in order: `' '` context, `'-'` removed, `'+'` added.
    pub kinds: Vec<char>,
    /// `*** End of File`: the hunk is anchored at the end of the file.
    pub at_eof: bool,
}

/// A parse failure: the 1-based patch line and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid patch, line {}: {}", self.line, self.message)
    }
}

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File:";
const DELETE: &str = "*** Delete File:";
const UPDATE: &str = "*** Update File:";
const MOVE: &str = "*** Move to:";
const EOF_MARK: &str = "*** End of File";

/// Parses a whole patch.
pub fn parse(patch: &str) -> Result<Vec<Operation>, ParseError> {
    let all: Vec<&str> = patch.lines().collect();
    let (lines, offset) = unwrap_heredoc(&all);
    let err = |index: usize, message: String| ParseError {
        line: index + offset + 1,
        message,
    };
    let first = lines
        .iter()
        .position(|l| !l.trim().is_empty())
        .unwrap_or(lines.len());
    if lines.get(first).map(|l| l.trim()) != Some(BEGIN) {
        return Err(err(first, format!("the patch must start with `{BEGIN}`")));
    }
    let last = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .unwrap_or(0);
    if last <= first || lines[last].trim() != END {
        return Err(err(last, format!("the patch must end with `{END}`")));
    }
    let mut ops = Vec::new();
    let mut i = first + 1;
    while i < last {
        let line = lines[i].trim();
        if line.is_empty() {
            i += 1;
            continue;
        }
        let (op, next) = if let Some(path) = marker_path(line, ADD) {
            let path = path.map_err(|m| err(i, m))?;
            parse_add(lines, i + 1, last, path).map_err(|(at, m)| err(at, m))?
        } else if let Some(path) = marker_path(line, DELETE) {
            let path = path.map_err(|m| err(i, m))?;
            (Operation::Delete { path }, i + 1)
        } else if let Some(path) = marker_path(line, UPDATE) {
            let path = path.map_err(|m| err(i, m))?;
            parse_update(lines, i, last, path).map_err(|(at, m)| err(at, m))?
        } else {
            return Err(err(
                i,
                format!(
                    "expected `{ADD}`, `{DELETE}` or `{UPDATE}`, found {:?}",
                    lines[i]
                ),
            ));
        };
        ops.push(op);
        i = next;
    }
    if ops.is_empty() {
        return Err(err(first, "the patch has no file operations".to_string()));
    }
    Ok(ops)
}

/// An added file's lines, from `i` up to the next operation; the operation and where the
/// next one starts.
fn parse_add(
    lines: &[&str],
    mut i: usize,
    last: usize,
    path: String,
) -> Result<(Operation, usize), (usize, String)> {
    let mut content = Vec::new();
    while i < last && !is_operation(lines[i]) {
        match lines[i].strip_prefix('+') {
            Some(text) => content.push(text.to_string()),
            None => {
                return Err((
                    i,
                    format!(
                        "in `{ADD} {path}` every line must start with `+`, found {:?}",
                        lines[i]
                    ),
                ));
            }
        }
        i += 1;
    }
    let add = Operation::Add {
        path,
        lines: content,
    };
    Ok((add, i))
}

/// An update whose marker is at `start`: its optional move and its hunks; the operation and
/// where the next one starts.
fn parse_update(
    lines: &[&str],
    start: usize,
    last: usize,
    path: String,
) -> Result<(Operation, usize), (usize, String)> {
    let mut i = start + 1;
    let mut move_to = None;
    if i < last
        && let Some(dest) = marker_path(lines[i].trim(), MOVE)
    {
        move_to = Some(dest.map_err(|m| (i, m))?);
        i += 1;
    }
    let (chunks, next) = parse_chunks(lines, i, last)?;
    if chunks.is_empty() {
        return Err((start, format!("`{UPDATE} {path}` has no hunks")));
    }
    let update = Operation::Update {
        path,
        move_to,
        chunks,
    };
    Ok((update, next))
}

/// Hunks of an update, from `i` up to the next operation.
fn parse_chunks(
    lines: &[&str],
    mut i: usize,
    last: usize,
) -> Result<(Vec<Chunk>, usize), (usize, String)> {
    let mut chunks: Vec<Chunk> = Vec::new();
    let mut current: Option<Chunk> = None;
    while i < last && !is_operation(lines[i]) {
        let raw = lines[i];
        let trimmed = raw.trim();
        if trimmed == "@@" || trimmed.starts_with("@@ ") {
            chunks.extend(
                current
                    .take()
                    .filter(|c| !c.old.is_empty() || !c.new.is_empty() || c.context.is_some()),
            );
            let context = trimmed
                .strip_prefix("@@")
                .map(str::trim)
                .filter(|c| !c.is_empty());
            current = Some(Chunk {
                context: context.map(str::to_string),
                ..Chunk::default()
            });
        } else if trimmed == EOF_MARK {
            let Some(chunk) = current.as_mut() else {
                return Err((i, format!("`{EOF_MARK}` outside a hunk")));
            };
            chunk.at_eof = true;
        } else {
            // The first hunk may start without `@@`.
            let chunk = current.get_or_insert_with(Chunk::default);
            if chunk.at_eof {
                return Err((i, format!("lines after `{EOF_MARK}`: {raw:?}")));
            }
            if let Some(text) = raw.strip_prefix('+') {
                chunk.new.push(text.to_string());
                chunk.kinds.push('+');
            } else if let Some(text) = raw.strip_prefix('-') {
                chunk.old.push(text.to_string());
                chunk.kinds.push('-');
            } else if let Some(text) = raw.strip_prefix(' ') {
                chunk.old.push(text.to_string());
                chunk.new.push(text.to_string());
                chunk.kinds.push(' ');
            } else if raw.is_empty() {
                // An empty line is an empty context line whose leading space was lost.
                chunk.old.push(String::new());
                chunk.new.push(String::new());
                chunk.kinds.push(' ');
            } else {
                return Err((
                    i,
                    format!("hunk lines must start with ` `, `-` or `+`, found {raw:?}"),
                ));
            }
        }
        i += 1;
    }
    chunks
        .extend(current.filter(|c| !c.old.is_empty() || !c.new.is_empty() || c.context.is_some()));
    Ok((chunks, i))
}

fn is_operation(line: &str) -> bool {
    let line = line.trim();
    [ADD, DELETE, UPDATE].iter().any(|m| line.starts_with(m))
}

/// `Some(Ok(path))` when `line` is `marker path`, `Some(Err)` when the path is missing.
fn marker_path(line: &str, marker: &str) -> Option<Result<String, String>> {
    let rest = line.strip_prefix(marker)?;
    let path = rest.trim();
    Some(if path.is_empty() {
        Err(format!("`{marker}` needs a path"))
    } else {
        Ok(path.to_string())
    })
}

/// Drops a heredoc wrapper (`apply_patch <<'EOF'` … `EOF`) around the patch; returns the
/// remaining lines and how many were dropped from the start.
fn unwrap_heredoc<'a>(lines: &'a [&'a str]) -> (&'a [&'a str], usize) {
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let last = lines.iter().rposition(|l| !l.trim().is_empty());
    let (Some(first), Some(last)) = (first, last) else {
        return (lines, 0);
    };
    let opener = lines[first].trim();
    let Some((_, word)) = opener.split_once("<<") else {
        return (lines, 0);
    };
    let word = word
        .trim()
        .trim_matches(['\'', '"'])
        .trim_start_matches('-');
    if last > first && lines[last].trim() == word {
        (&lines[first + 1..last], first + 1)
    } else {
        (lines, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn parses_every_operation() {
        let patch = "*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** Delete File: b.txt\n*** Update File: c.txt\n*** Move to: d/c.txt\n@@ fn main\n ctx\n-old\n+new\n@@\n-x\n*** End of File\n*** End Patch\n";
        let ops = parse(patch).unwrap();
        assert_eq!(
            ops,
            [
                Operation::Add {
                    path: "a.txt".into(),
                    lines: vec!["one".into(), "two".into()]
                },
                Operation::Delete {
                    path: "b.txt".into()
                },
                Operation::Update {
                    path: "c.txt".into(),
                    move_to: Some("d/c.txt".into()),
                    chunks: vec![
                        Chunk {
                            context: Some("fn main".into()),
                            old: vec!["ctx".into(), "old".into()],
                            new: vec!["ctx".into(), "new".into()],
                            kinds: vec![' ', '-', '+'],
                            at_eof: false,
                        },
                        Chunk {
                            context: None,
                            old: vec!["x".into()],
                            new: vec![],
                            kinds: vec!['-'],
                            at_eof: true,
                        },
                    ],
                },
            ]
        );
    }

    #[test]
    fn a_heredoc_wrapper_and_padded_markers_are_accepted() {
        let patch = "apply_patch <<'EOF'\n  *** Begin Patch \n *** Update File: f.txt\n@@\n-a\n+b\n*** End Patch \nEOF\n";
        assert_eq!(parse(patch).unwrap().len(), 1);
    }

    #[test]
    fn malformed_patches_name_the_line() {
        let cases = [
            ("*** Begin Patch\n*** End Patch", "no file operations"),
            (
                "*** Update File: x\n*** End Patch",
                "must start with `*** Begin Patch`",
            ),
            (
                "*** Begin Patch\n*** Frobnicate File: x\n*** End Patch",
                "line 2: expected `*** Add File:`",
            ),
            (
                "*** Begin Patch\n*** Update File: x\n*** End Patch",
                "line 2: `*** Update File: x` has no hunks",
            ),
            (
                "*** Begin Patch\n*** Add File: x\nno plus\n*** End Patch",
                "line 3: in `*** Add File: x` every line",
            ),
            (
                "*** Begin Patch\n*** Update File: x\n@@\n?bad\n*** End Patch",
                "line 4: hunk lines must start",
            ),
            (
                "*** Begin Patch\n*** Add File: x\n+a",
                "must end with `*** End Patch`",
            ),
        ];
        for (patch, message) in cases {
            let err = parse(patch).unwrap_err().to_string();
            assert!(err.contains(message), "{patch:?}: {err}");
        }
    }

    proptest::proptest! {
        /// Fuzz target (`bench/fuzz`): any patch-like text parses or is refused, never panics.
        #[test]
        fn fuzz_apply_patch_parser_never_panics(
            patch in "(\\*\\*\\* (Begin Patch|End Patch|Add File: a|Delete File: b|Update File: c|Move to: d|End of File)\n|@@ ?[a-z ]{0,6}\n|[-+ ][a-z ]{0,8}\n|\n|[^\n]{0,6}\n){0,16}"
        ) {
            let _ = parse(&patch);
        }
    }
}
