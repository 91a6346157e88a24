//! What a `bash` call touches: its line analysed once, and the files its words can name
//! (arguments that are not options, redirection targets), each expanded as bash would.

use std::path::Path;

use super::paths::{Expansion, expand};
use crate::shell::{SimpleCommand, Word};
use crate::{CallFacts, Effect, ShellFacts, WorkspaceGuard, resolve_for_rules};

/// Longest summary line; the rest of a long command is elided.
const SUMMARY_CHARS: usize = 200;

/// Fills `facts` for running `line` in `cwd`: the line analysed once, whether it is proven
/// read-only, and every path its words can name.
pub(super) fn describe(line: &str, cwd: &Path, guard: &WorkspaceGuard, facts: &mut CallFacts) {
    let analysis = crate::shell::analyse(line);
    facts.effect = if crate::shell::is_read_only(&analysis, guard, cwd) {
        Effect::ReadOnly
    } else {
        Effect::Mutating
    };
    let mut unresolved = false;
    let mut add = |word: &Word, access: Access, facts: &mut CallFacts| {
        let names = if word.literal {
            Expansion::Paths(vec![word.text.clone()])
        } else {
            expand(&word.text, cwd)
        };
        match names {
            Expansion::Paths(paths) => {
                for path in paths {
                    let resolved = resolve_for_rules(&path, cwd, guard);
                    match access {
                        Access::Read => facts.reads.push(resolved),
                        Access::Write => facts.writes.push(resolved),
                    }
                }
            }
            Expansion::Unknown => unresolved = true,
        }
    };
    let mut seen: Vec<(Word, Access)> = Vec::new();
    for command in &analysis.effective {
        for (word, access) in file_words(command) {
            if !seen.iter().any(|(w, a)| *w == word && *a == access) {
                add(&word, access, facts);
                seen.push((word, access));
            }
        }
    }
    for word in &analysis.naive_words {
        add(&Word::plain(word.clone()), Access::Read, facts);
    }
    facts.reads.sort();
    facts.reads.dedup();
    facts.writes.sort();
    facts.writes.dedup();
    facts.summary = summary(line);
    facts.shell = Some(ShellFacts {
        line: line.to_string(),
        analysis,
        unresolved_paths: unresolved,
    });
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Read,
    Write,
}

/// The words of a command that may name files: redirection targets, and the arguments that
/// are not options (the program itself and `echo`/`printf` text excluded), and the values of
/// `--option=value` arguments.
fn file_words(command: &SimpleCommand) -> Vec<(Word, Access)> {
    let mut words: Vec<(Word, Access)> = command
        .redirects
        .iter()
        .filter(|r| !r.op.contains('&') || r.op.starts_with('&'))
        .map(|r| {
            let access = if r.writes_file() {
                Access::Write
            } else {
                Access::Read
            };
            (word(&r.target, r.literal), access)
        })
        .collect();
    let program = command.argv.first().map(String::as_str).unwrap_or("");
    let program = program.rsplit('/').next().unwrap_or(program);
    if matches!(program, "echo" | "printf") {
        return words;
    }
    for (i, arg) in command.argv.iter().enumerate().skip(1) {
        let literal = command.words.get(i).is_none_or(|w| w.literal);
        if arg.is_empty() {
            continue;
        }
        if !arg.starts_with('-') {
            words.push((word(arg, literal), Access::Read));
        } else if let Some((_, value)) = arg.split_once('=')
            && !value.is_empty()
        {
            words.push((word(value, literal), Access::Read));
        }
    }
    words
}

fn word(text: &str, literal: bool) -> Word {
    Word {
        text: text.to_string(),
        literal,
    }
}

/// The first line of the command, marked with `…` when more follow or it was cut.
fn summary(line: &str) -> String {
    let mut lines = line.trim().lines();
    let first = lines.next().unwrap_or("");
    let mut out: String = first.chars().take(SUMMARY_CHARS).collect();
    if out.len() < first.len() {
        out.push('…');
    } else if lines.next().is_some() {
        out.push_str(" …");
    }
    out
}
