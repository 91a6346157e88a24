//! Wrappers with option tables of their own: the options are parsed exactly to find where the
//! wrapped command starts.

use super::{Step, Why, derived, parse_body, shell_text};
use crate::options::{OptionSpec, Order, parse_options};
use crate::parse::{SimpleCommand, Word};

/// `timeout [opts] DURATION command…`
pub(super) fn timeout(args: &[String], after: &dyn Fn(usize) -> Step) -> Result<Step, Why> {
    let spec = OptionSpec {
        flags: "v",
        values: "sk",
        long_flags: &["--foreground", "--preserve-status", "--verbose"],
        long_values: &["--signal", "--kill-after"],
        ..OptionSpec::default()
    };
    let parsed = parse_options(args, &spec, Order::Posix).ok_or("an option of timeout")?;
    Ok(after(parsed.end + 1))
}

/// `taskset MASK command…`, `chrt PRIORITY command…` (`-p`, acting on a running process,
/// is not known: the line is unanalysable).
pub(super) fn positional_then_command(
    args: &[String],
    after: &dyn Fn(usize) -> Step,
    flags: &'static str,
    long_flags: &'static [&'static str],
) -> Result<Step, Why> {
    let spec = OptionSpec {
        flags,
        long_flags,
        values: "TPD",
        ..OptionSpec::default()
    };
    let parsed = parse_options(args, &spec, Order::Posix).ok_or("an option of taskset or chrt")?;
    Ok(after(parsed.end + 1))
}

/// `env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=value]… command…`
pub(super) fn env(command: &SimpleCommand, args: &[String], depth: usize) -> Result<Step, Why> {
    let spec = OptionSpec {
        flags: "i0v",
        values: "uCS",
        long_flags: &["--ignore-environment", "--null", "--debug"],
        long_values: &["--unset", "--chdir", "--split-string"],
        ..OptionSpec::default()
    };
    let parsed = parse_options(args, &spec, Order::Posix).ok_or("an option of env")?;
    let mut skip = parsed.end;
    while args.get(skip).is_some_and(|a| is_assignment_text(a)) {
        skip += 1;
    }
    let rest = command.words_from(1 + skip);
    let split: Vec<&str> = parsed.values(&["-S", "--split-string"]).collect();
    if split.is_empty() {
        return Ok(if rest.is_empty() {
            Step::Done
        } else {
            Step::Run(derived(rest, command))
        });
    }
    // `env -S 'rm -rf x' y`: the string is split into words and the rest appended.
    let mut body = split.join(" ");
    for word in rest {
        body.push(' ');
        body.push_str(&word.text);
    }
    parse_body(&body, depth).map(Step::Many)
}

pub(super) fn is_assignment_text(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// `sudo [opts] [NAME=value]… command…` (`-s`/`-i` without a command start a shell).
pub(super) fn sudo(args: &[String], after: &dyn Fn(usize) -> Step) -> Result<Step, Why> {
    let spec = OptionSpec {
        flags: "AbEHkKnPSsilvVe",
        values: "ugCDhprtUTR",
        long_flags: &[
            "--askpass",
            "--background",
            "--preserve-env",
            "--set-home",
            "--reset-timestamp",
            "--remove-timestamp",
            "--non-interactive",
            "--preserve-groups",
            "--stdin",
            "--shell",
            "--login",
            "--list",
            "--validate",
            "--edit",
        ],
        long_values: &[
            "--user",
            "--group",
            "--close-from",
            "--chdir",
            "--host",
            "--prompt",
            "--role",
            "--type",
            "--other-user",
            "--command-timeout",
            "--chroot",
        ],
        long_optional: &["--preserve-env"],
        ..OptionSpec::default()
    };
    let parsed = parse_options(args, &spec, Order::Posix).ok_or("an option of sudo")?;
    let mut skip = parsed.end;
    while args.get(skip).is_some_and(|a| is_assignment_text(a)) {
        skip += 1;
    }
    Ok(after(skip))
}

/// `xargs [opts] [command…]` (default `echo`).
pub(super) fn xargs(command: &SimpleCommand, args: &[String]) -> Result<Step, Why> {
    let spec = OptionSpec {
        flags: "0prtxo",
        values: "adEILnPs",
        optional: "eil",
        long_flags: &[
            "--null",
            "--interactive",
            "--no-run-if-empty",
            "--verbose",
            "--exit",
            "--open-tty",
            "--show-limits",
        ],
        long_values: &[
            "--arg-file",
            "--delimiter",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
        ],
        long_optional: &["--eof", "--replace", "--max-lines"],
        numbers: false,
    };
    let parsed = parse_options(args, &spec, Order::Posix).ok_or("an option of xargs")?;
    let rest = command.words_from(1 + parsed.end);
    Ok(Step::Run(if rest.is_empty() {
        derived(vec![Word::plain("echo")], command)
    } else {
        derived(rest, command)
    }))
}

/// `watch [opts] COMMAND…`: the words joined and run by `sh -c` (by exec with `-x`).
pub(super) fn watch(command: &SimpleCommand, args: &[String], depth: usize) -> Result<Step, Why> {
    let spec = OptionSpec {
        flags: "bcdegprtx",
        values: "nq",
        long_flags: &[
            "--beep",
            "--color",
            "--differences",
            "--errexit",
            "--chgexit",
            "--precise",
            "--no-title",
            "--exec",
            "--no-wrap",
        ],
        long_values: &["--interval", "--equexit"],
        ..OptionSpec::default()
    };
    let parsed = parse_options(args, &spec, Order::Posix).ok_or("an option of watch")?;
    let rest = command.words_from(1 + parsed.end);
    if rest.is_empty() {
        return Ok(Step::Done);
    }
    if parsed.has(&["-x", "--exec"]) {
        return Ok(Step::Run(derived(rest, command)));
    }
    shell_text(&rest, depth)
}

/// `flock [opts] FILE COMMAND…` or `flock [opts] FILE -c COMMAND`.
pub(super) fn flock(command: &SimpleCommand, args: &[String], depth: usize) -> Result<Step, Why> {
    let spec = OptionSpec {
        flags: "sxunoFv",
        values: "wEc",
        long_flags: &[
            "--shared",
            "--exclusive",
            "--unlock",
            "--nonblock",
            "--close",
            "--no-fork",
            "--verbose",
        ],
        long_values: &["--timeout", "--conflict-exit-code", "--command"],
        ..OptionSpec::default()
    };
    let parsed = parse_options(args, &spec, Order::Posix).ok_or("an option of flock")?;
    let mut body: Vec<&str> = parsed.values(&["-c", "--command"]).collect();
    // The lock file is the first operand; `-c COMMAND` may follow it.
    let after_file = parsed.end + 1;
    if matches!(
        args.get(after_file).map(String::as_str),
        Some("-c" | "--command")
    ) {
        body.extend(args.get(after_file + 1).map(String::as_str));
    }
    if !body.is_empty() {
        let words: Vec<Word> = body.iter().map(|b| Word::plain(*b)).collect();
        return shell_text(&words, depth);
    }
    let rest = command.words_from(1 + after_file);
    Ok(if rest.is_empty() {
        Step::Done
    } else {
        Step::Run(derived(rest, command))
    })
}

/// `su [opts] [-c COMMAND] [USER]`, `runuser … -c COMMAND`.
pub(super) fn su(args: &[String], depth: usize) -> Result<Step, Why> {
    let spec = OptionSpec {
        flags: "lmpPfT",
        values: "cgGsuw",
        long_flags: &["--login", "--preserve-environment", "--pty", "--fast"],
        long_values: &[
            "--command",
            "--session-command",
            "--group",
            "--supp-group",
            "--shell",
            "--user",
            "--whitelist-environment",
        ],
        ..OptionSpec::default()
    };
    let parsed = parse_options(args, &spec, Order::Gnu).ok_or("an option of su")?;
    let body: Vec<Word> = parsed
        .values(&["-c", "--command", "--session-command"])
        .map(Word::plain)
        .collect();
    if body.is_empty() {
        return Ok(Step::Done);
    }
    shell_text(&body, depth)
}
