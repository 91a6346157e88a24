//! What a `bash` call touches: its line analysed once, and the files its words can name
//! (arguments that are not options, redirection targets), each expanded as bash would.

use std::path::Path;

use super::paths::{Expansion, expand};
use crate::shell::SimpleCommand;
use crate::{CallFacts, Effect, ShellFacts, WorkspaceGuard, resolve_for_rules};

/// Longest summary line; the rest of a long command is elided.
const SUMMARY_CHARS: usize = 200;

/// Fills `facts` for running `line` in `cwd`.
pub(super) fn describe(line: &str, cwd: &Path, guard: &WorkspaceGuard, facts: &mut CallFacts) {
    let shell = analyse(line);
    let mut unresolved = false;
    for command in &shell.effective {
        for (word, access) in file_words(command) {
            match expand(&word, cwd) {
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
        }
    }
    for word in &shell.naive_words {
        match expand(word, cwd) {
            Expansion::Paths(paths) => facts
                .reads
                .extend(paths.iter().map(|path| resolve_for_rules(path, cwd, guard))),
            Expansion::Unknown => unresolved = true,
        }
    }
    facts.reads.dedup();
    facts.writes.dedup();
    facts.effect = if shell.unanalysable.is_none() && crate::shell::is_read_only(line) {
        Effect::ReadOnly
    } else {
        Effect::Mutating
    };
    facts.summary = summary(line);
    facts.shell = Some(ShellFacts {
        unresolved_paths: unresolved,
        ..shell
    });
}

/// The line analysed: its commands, what runs, or why it could not be analysed.
fn analyse(line: &str) -> ShellFacts {
    match crate::shell::split_commands(line) {
        Ok(commands) => ShellFacts {
            line: line.to_string(),
            effective: commands.clone(),
            commands,
            ..ShellFacts::default()
        },
        Err(why) => ShellFacts {
            line: line.to_string(),
            unanalysable: Some(why.0.to_string()),
            naive_words: naive_words(line),
            ..ShellFacts::default()
        },
    }
}

/// The words of a line rein cannot parse, split on every separator-like character and with
/// quotes dropped, so program names and paths inside `$(…)` still show.
fn naive_words(line: &str) -> Vec<String> {
    line.split(|c: char| c.is_whitespace() || "\n;|&()`{}$<>'\"=".contains(c))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

#[derive(Debug, Clone, Copy)]
enum Access {
    Read,
    Write,
}

/// The words of a command that may name files: redirection targets, and the arguments that
/// are not options (the program itself and `echo`/`printf` text excluded).
fn file_words(command: &SimpleCommand) -> Vec<(String, Access)> {
    let mut words: Vec<(String, Access)> = command
        .redirects
        .iter()
        .filter(|r| !r.op.contains('&') || r.op.starts_with('&'))
        .map(|r| {
            let access = if r.writes_file() {
                Access::Write
            } else {
                Access::Read
            };
            (r.target.clone(), access)
        })
        .collect();
    let program = command.argv.first().map(String::as_str).unwrap_or("");
    let program = program.rsplit('/').next().unwrap_or(program);
    if !matches!(program, "echo" | "printf") {
        for arg in command.argv.iter().skip(1) {
            if arg.is_empty() || arg.starts_with('-') {
                continue;
            }
            words.push((arg.clone(), Access::Read));
        }
        // `--file=x`-style values name files too.
        for arg in command.argv.iter().skip(1) {
            if let Some((_, value)) = arg.split_once('=')
                && arg.starts_with('-')
                && !value.is_empty()
            {
                words.push((value.to_string(), Access::Read));
            }
        }
    }
    words
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
