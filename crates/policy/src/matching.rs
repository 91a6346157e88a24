//! How a rule meets a call's [`CallFacts`]: deny and ask rules match when they match any part
//! of the call; allow rules must cover every part.

use std::borrow::Cow;
use std::sync::Arc;

use rein_shell::{SimpleCommand, basename};
use rein_tool::{CallFacts, ShellFacts};

use super::SourcedRule;
use super::dangerous;
use super::rule::Rule;

/// A call as rules are matched against it: its facts, and the match forms of each command of
/// a shell line (what runs, and any command as written that is not among it), made once per
/// decision.
///
/// A command's forms are its text, then the [`extra_forms`] made for it. The text is the
/// joined words for most commands, so most have no extra form and nothing is allocated.
pub(super) struct Call<'a> {
    pub facts: &'a CallFacts,
    /// The extra forms of `shell.analysis.effective[i]`, as `(i, form)`, in order of `i`.
    extra: Vec<(usize, String)>,
    /// Every form of the commands as written that are not among what runs.
    written: Vec<Cow<'a, str>>,
}

impl<'a> Call<'a> {
    pub fn new(facts: &'a CallFacts) -> Self {
        let mut extra = Vec::new();
        let mut written = Vec::new();
        if let Some(shell) = &facts.shell {
            let effective = &shell.analysis.effective;
            for (i, command) in effective.iter().enumerate() {
                extra_forms(command, |form| extra.push((i, form)));
            }
            // The analysis puts every command as written among what runs, so these are
            // almost always there already.
            let mut cursor = 0;
            for command in &shell.analysis.commands {
                // Usually the very same command, shared: compared by pointer first.
                let same = |e: &Arc<SimpleCommand>| {
                    Arc::ptr_eq(e, command) || (e.text == command.text && e.argv == command.argv)
                };
                match effective[cursor..].iter().position(same) {
                    Some(n) => cursor += n,
                    None => {
                        written.push(Cow::Borrowed(command.text.as_str()));
                        extra_forms(command, |form| written.push(Cow::Owned(form)));
                    }
                }
            }
        }
        Self {
            facts,
            extra,
            written,
        }
    }

    /// The forms of `shell.analysis.effective[i]`.
    fn effective_forms(&self, i: usize) -> impl Iterator<Item = &str> {
        let text = self
            .facts
            .shell
            .as_ref()
            .and_then(|s| s.analysis.effective.get(i))
            .map(|c| c.text.as_str());
        let from = self.extra.partition_point(|(j, _)| *j < i);
        text.into_iter().chain(
            self.extra[from..]
                .iter()
                .take_while(move |(j, _)| *j == i)
                .map(|(_, form)| form.as_str()),
        )
    }

    /// Whether `rule` matches any form of any command (false without a command).
    fn any_command_matches(&self, rule: &Rule) -> bool {
        let Some(shell) = &self.facts.shell else {
            return false;
        };
        let effective = &shell.analysis.effective;
        if effective.is_empty() && self.written.is_empty() {
            return false;
        }
        rule.matches_command(
            effective
                .iter()
                .map(|c| c.text.as_str())
                .chain(self.extra.iter().map(|(_, form)| form.as_str()))
                .chain(self.written.iter().map(|form| form.as_ref())),
        )
    }
}

/// Whether `rule` names the call's tool — or, for a shell line that reaches a shell some other
/// way (a line typed into a terminal's shell, codex's `exec_command`), `Bash`: a command is
/// judged by the same rules however it reaches the shell.
fn covers_call(rule: &Rule, facts: &CallFacts) -> bool {
    rule.covers(&facts.tool)
        || (facts.kind == rein_tool::CallKind::Shell
            && facts.shell.is_some()
            && rule.covers("bash"))
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
    if !covers_call(rule, facts) {
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
            rule.matches_command(&[shell.line.trim()])
                || rule.program().is_some_and(|p| {
                    shell.analysis.naive_words.iter().any(|w| {
                        w.split(['=', '\\', ':', ','])
                            .any(|part| basename(part) == p)
                    })
                })
                || shell.analysis.program_may_be_anything(&shell.line)
        }
        Some(_) => call.any_command_matches(rule),
        None => facts
            .subject
            .as_deref()
            .is_some_and(|s| rule.matches_subject(s)),
    }
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
        .filter(|r| covers_call(&r.rule, facts))
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
                used.push(
                    relevant
                        .iter()
                        .find(|r| r.rule.matches_command(call.effective_forms(i)))?,
                );
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
        .map(|(i, command)| (i, command.as_ref()))
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

/// The forms a command is matched as besides its text as written: its words joined (when
/// that differs from the text), and its words with the program's folder dropped
/// (`/bin/rm -rf x` is also `rm -rf x`).
fn extra_forms(command: &SimpleCommand, mut add: impl FnMut(String)) {
    let joined: Cow<'_, str> = if is_joined(&command.text, &command.argv) {
        Cow::Borrowed(&command.text)
    } else {
        Cow::Owned(command.argv.join(" "))
    };
    if let Some(first) = command.argv.first()
        && basename(first) != first
    {
        add(format!("{}{}", basename(first), &joined[first.len()..]));
    }
    if let Cow::Owned(joined) = joined {
        add(joined);
    }
}

/// Whether `text` is `argv` joined with spaces.
fn is_joined(text: &str, argv: &[String]) -> bool {
    let mut rest = text;
    for (i, arg) in argv.iter().enumerate() {
        if i > 0 {
            let Some(after) = rest.strip_prefix(' ') else {
                return false;
            };
            rest = after;
        }
        let Some(after) = rest.strip_prefix(arg.as_str()) else {
            return false;
        };
        rest = after;
    }
    rest.is_empty()
}
