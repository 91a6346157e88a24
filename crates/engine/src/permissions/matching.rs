//! How a rule meets a call's [`CallFacts`]: deny and ask rules match when they match any part
//! of the call; allow rules must cover every part.

use rein_tools::shell::{SimpleCommand, basename};
use rein_tools::{CallFacts, ShellFacts};

use super::SourcedRule;
use super::dangerous;
use super::rule::Rule;

/// A call as rules are matched against it: its facts, and the match forms of each command of
/// a shell line (as written, then what runs), made once per decision.
pub(super) struct Call<'a> {
    pub facts: &'a CallFacts,
    /// [`candidates`] of each command of `shell.analysis.commands`, then of each of `shell.analysis.effective`.
    forms: Vec<Vec<String>>,
}

impl<'a> Call<'a> {
    pub fn new(facts: &'a CallFacts) -> Self {
        let forms = facts
            .shell
            .as_ref()
            .map(|shell| {
                shell
                    .analysis
                    .commands
                    .iter()
                    .chain(&shell.analysis.effective)
                    .map(candidates)
                    .collect()
            })
            .unwrap_or_default();
        Self { facts, forms }
    }

    /// The forms of `shell.analysis.effective[i]`.
    fn effective_forms(&self, i: usize) -> &[String] {
        let written = self
            .facts
            .shell
            .as_ref()
            .map_or(0, |s| s.analysis.commands.len());
        self.forms.get(written + i).map_or(&[], Vec::as_slice)
    }
}

/// Whether the rule matches the call or any part of it (deny and ask rules).
pub(super) fn matches_any(rule: &Rule, call: &Call<'_>) -> bool {
    let facts = call.facts;
    // Path rules follow the paths, whichever tool touches them: a `Read` glob stops `cat`
    // in a shell line as it stops `read_file`, an `Edit` glob stops a redirect.
    if let Some(access) = rule.path_access() {
        return (access.reads && facts.reads.iter().any(|p| rule.matches_path(p)))
            || (access.writes && facts.writes.iter().any(|p| rule.matches_path(p)));
    }
    if !rule.covers(&facts.tool) {
        return false;
    }
    if rule.is_whole_tool() {
        return true;
    }
    match &facts.shell {
        Some(shell) if shell.analysis.unanalysable.is_some() => {
            // Whatever rein could not take apart is refused when the rule's program shows
            // anywhere in it, or when what runs is decided by an expansion (`$x file`,
            // `$(echo rm) file`): then any program could.
            rule.matches_command(std::slice::from_ref(&shell.line.trim().to_string()))
                || rule.program().is_some_and(|p| {
                    shell.analysis.naive_words.iter().any(|w| {
                        w.split(['=', '\\', ':', ','])
                            .any(|part| basename(part) == p)
                    })
                })
                || program_is_dynamic(&shell.line, shell.analysis.unanalysable)
        }
        Some(_) => call.forms.iter().any(|forms| rule.matches_command(forms)),
        None => facts
            .subject
            .as_deref()
            .is_some_and(|s| rule.matches_subject(s)),
    }
}

/// Whether what a line rein could not analyse runs is decided by an expansion: the reason
/// says so, or a command starts with `$`, a backquote or a substitution.
fn program_is_dynamic(line: &str, why: Option<&str>) -> bool {
    let decided = why.is_some_and(|why| {
        why.contains("an expansion decides")
            || why.contains("remapped")
            || why.contains("nested too deeply")
            || why.contains("too many wrapper")
            || why.contains("from the environment")
            || why.contains("may evaluate")
    });
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

/// The allow rules covering every part of the call; `None` unless all parts are covered.
/// A rule with a specifier never covers a shell command that sets environment variables or
/// writes a file by redirection (Claude Code asks for those too); only the whole tool does.
pub(super) fn allow_covering<'a>(
    rules: &[&'a SourcedRule],
    call: &Call<'_>,
) -> Option<Vec<&'a SourcedRule>> {
    let facts = call.facts;
    let relevant: Vec<&SourcedRule> = rules
        .iter()
        .copied()
        .filter(|r| r.rule.covers(&facts.tool))
        .collect();
    if let Some(rule) = relevant.iter().find(|r| r.rule.is_whole_tool()) {
        return Some(vec![rule]);
    }
    let mut used: Vec<&SourcedRule> = Vec::new();
    match &facts.shell {
        Some(shell) => {
            let parts = allow_parts(shell)?;
            let mut covered: Vec<&SimpleCommand> = Vec::new();
            for (i, part) in parts {
                if !part.assignments.is_empty() || part.redirects.iter().any(|r| r.writes_file()) {
                    return None;
                }
                if covered.iter().any(|c| renamed(part, c)) {
                    continue;
                }
                let forms = call.effective_forms(i);
                used.push(relevant.iter().find(|r| r.rule.matches_command(forms))?);
                covered.push(part);
            }
        }
        None => {
            for path in facts.paths() {
                used.push(relevant.iter().find(|r| r.rule.matches_path(path))?);
            }
            if let Some(subject) = &facts.subject {
                used.push(relevant.iter().find(|r| r.rule.matches_subject(subject))?);
            }
        }
    }
    if used.is_empty() {
        return None;
    }
    used.dedup_by(|a, b| a.rule.text == b.rule.text);
    Some(used)
}

/// Wrappers that change nothing of what their command may do (timing, priority, a
/// timeout): an allow rule need not name them, only the command they run.
const NEUTRAL_WRAPPERS: &[&str] = &[
    "command", "builtin", "nohup", "time", "nice", "timeout", "stdbuf", "ionice", "taskset",
    "chrt", "setsid", "exec",
];

/// The commands an allow rule must cover: every command as written and everything it runs
/// (`sh -c` bodies, what `xargs` and `find -exec` run, `rm` for `find -delete`), except a
/// neutral wrapper followed by what it wraps. `None` for a line rein could not analyse (only
/// a rule for the whole tool allows it).
fn allow_parts(shell: &ShellFacts) -> Option<Vec<(usize, &SimpleCommand)>> {
    if shell.analysis.unanalysable.is_some() || shell.analysis.commands.is_empty() {
        return None;
    }
    let effective = &shell.analysis.effective;
    let parts = effective
        .iter()
        .enumerate()
        .filter(|(i, command)| {
            let program = command.argv.first().map(|p| basename(p)).unwrap_or("");
            !(NEUTRAL_WRAPPERS.contains(&program) && *i + 1 < effective.len())
        })
        .collect();
    Some(parts)
}

/// Whether `command` is another spelling of `covered` with the program's folder dropped
/// (`eslint x` for `./node_modules/.bin/eslint x`): covered when that one is.
fn renamed(command: &SimpleCommand, covered: &SimpleCommand) -> bool {
    command.argv.len() == covered.argv.len()
        && command.argv.first().map(String::as_str) == covered.argv.first().map(|p| basename(p))
        && command.argv[1..] == covered.argv[1..]
}

/// Whether an allow rule names a dangerous command itself (`Bash(git push --force *)`), so
/// it may allow that command, which a broad rule (`Bash(git push *)`) may not.
pub(super) fn names_dangerous(rule: &Rule) -> bool {
    rule.named_command()
        .is_some_and(|command| dangerous(&command).is_some())
}

/// What a command is matched as: its text as written, its words joined, and its words with
/// the program's folder dropped (`/bin/rm -rf x` is also `rm -rf x`).
fn candidates(command: &SimpleCommand) -> Vec<String> {
    let joined = command.argv.join(" ");
    let mut candidates = Vec::with_capacity(3);
    if command.text != joined {
        candidates.push(command.text.clone());
    }
    if let Some(first) = command.argv.first()
        && basename(first) != first
    {
        candidates.push(format!("{}{}", basename(first), &joined[first.len()..]));
    }
    candidates.push(joined);
    candidates
}
