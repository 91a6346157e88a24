//! The analysis of one shell line: its simple commands as written, and what actually runs once
//! wrappers (`sudo`, `env`, `xargs`, `sh -c`, `find -exec`, git's global options…) are seen
//! through.

use std::sync::Arc;

use super::parse::{SimpleCommand, split_into};
use super::unwrap::effective_commands;

/// The analysis of one shell line, computed once per call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellLine {
    /// The simple commands as written, in order (empty when the line is unanalysable).
    pub commands: Vec<Arc<SimpleCommand>>,
    /// What actually runs: every command of `commands`, followed by what it runs once its
    /// wrappers are stripped (`command`, `builtin`, `env`, `nice`, `nohup`, `time`, `timeout`,
    /// `exec`, `stdbuf`, `sudo`, `doas`, `ionice`, `setsid`, `chrt`, `taskset`), the bodies of
    /// `sh -c`/`bash -c`/`dash -c`/`zsh -c`/`ksh -c` and `eval` (parsed recursively, bounded
    /// depth), the command `xargs` runs (default `echo`), the commands `find -exec`,
    /// `-execdir`, `-ok`, `-okdir` run, an `rm -rf START…` for `find … -delete`, `git` with
    /// its global options removed and `-c alias.X=…` aliases expanded, the values of `alias`
    /// and the action of `trap`, and program paths reduced to their basename (`/bin/rm`,
    /// `../../usr/bin/rm` → `rm`); also `busybox`, `watch`, `flock`, `su`/`runuser -c`. Each
    /// entry's `text` is its argv joined with spaces, except the originals, which keep their
    /// source text (and are shared with `commands`, not copied).
    pub effective: Vec<Arc<SimpleCommand>>,
    /// `None` when the line was fully analysed; otherwise why not ("a command substitution",
    /// "an unparseable shell body", a wrapper option rein does not know, a program name or
    /// `sh -c` body that an expansion decides, a builtin that evaluates arithmetic with a
    /// `$(…)` in its arguments, more than 16 wrappers or 4 nested bodies…).
    pub unanalysable: Option<&'static str>,
    /// For an unanalysable line: a naive split into words (every separator, quote, `$(` and
    /// backquote broken apart, and the basename of every word with a `/` added), so a policy
    /// can still see the program names in it. Empty for an analysable line.
    pub naive_words: Vec<String>,
}

impl ShellLine {
    /// For a line that could not be analysed (`line` is its text): whether an expansion
    /// decides what it runs, so that it could run any program (`$x file`, `$(echo rm) file`,
    /// a remapped command name, wrappers or bodies too deep to follow). Always `false` for an
    /// analysed line.
    pub fn program_may_be_anything(&self, line: &str) -> bool {
        let Some(why) = self.unanalysable else {
            return false;
        };
        let decided = [
            "an expansion decides",
            "remapped",
            "nested too deeply",
            "too many wrapper",
            "from the environment",
            "may evaluate",
        ]
        .iter()
        .any(|reason| why.contains(reason));
        decided
            || line
                .split(['\n', ';', '|', '&', '(', ')', '{', '}'])
                .filter_map(|segment| {
                    segment
                        .split_whitespace()
                        .find(|w| !w.contains('=') || w.starts_with(['$', '`']))
                })
                .any(|first| {
                    first
                        .trim_start_matches(['"', '\''])
                        .starts_with(['$', '`'])
                })
    }
}

/// Analyses `line`. Never fails: what cannot be analysed is reported in
/// [`ShellLine::unanalysable`].
///
/// ```
/// let line = rein_shell::analyse("sudo -u me env A=1 /bin/rm -rf x");
/// assert!(line.unanalysable.is_none());
/// assert!(line.effective.iter().any(|c| c.argv == ["rm", "-rf", "x"]));
/// ```
pub fn analyse(line: &str) -> ShellLine {
    let analysed = split_into(line, Arc::new)
        .map_err(|e| e.0)
        .and_then(|commands| {
            let effective = effective_commands(&commands, 0)?;
            Ok((commands, effective))
        });
    match analysed {
        Ok((commands, effective)) => ShellLine {
            commands,
            effective,
            unanalysable: None,
            naive_words: Vec::new(),
        },
        Err(why) => ShellLine {
            commands: Vec::new(),
            effective: Vec::new(),
            unanalysable: Some(why),
            naive_words: naive_words(line),
        },
    }
}

/// Splits `line` on blanks and every shell separator, with quotes, `$`, braces and backquotes
/// dropped; words with a `/` also appear as their basename.
pub fn naive_words(line: &str) -> Vec<String> {
    let separators = |c: char| {
        c.is_whitespace()
            || matches!(
                c,
                ';' | '|' | '&' | '(' | ')' | '<' | '>' | '`' | '{' | '}' | '\'' | '"' | '$'
            )
    };
    let mut words = Vec::new();
    for word in line.split(separators).filter(|w| !w.is_empty()) {
        let word = word.replace('\\', "");
        if word.is_empty() {
            continue;
        }
        if let Some(base) = word.rsplit('/').next()
            && !base.is_empty()
            && base != word
        {
            words.push(word.clone());
            words.push(base.to_string());
        } else {
            words.push(word);
        }
    }
    words
}

#[cfg(test)]
#[path = "line_tests.rs"]
mod tests;
