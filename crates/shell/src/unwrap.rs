//! Seeing through wrappers: what a simple command actually runs.
//!
//! Each step strips one layer (`sudo`, `env`, a program path, git's global options…) and the
//! result is stripped again, so `sudo env nice /bin/rm x` yields every stage down to
//! `rm x`. Bodies of `sh -c` and `eval` are parsed as lines of their own, to a bounded depth.
//! An option of a wrapper that is not known here makes the line unanalysable: guessing where
//! the wrapped command starts would let a deny rule miss it.

mod wrappers;

use super::options::{OptionSpec, Order, parse_options};
use std::sync::Arc;

use super::parse::{Redirect, SimpleCommand, Word, split_into};
use wrappers::{env, flock, positional_then_command, su, sudo, timeout, watch, xargs};

/// How deeply `sh -c` and `eval` bodies may nest.
const MAX_DEPTH: usize = 4;
/// How many wrappers one command may have.
const MAX_LAYERS: usize = 16;

/// Shells whose `-c` body is a command line.
const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash"];

/// Builtins that evaluate arithmetic or array subscripts in their arguments, where
/// `a[$(cmd)]` runs `cmd` even from a single-quoted word.
const EVALUATING_BUILTINS: &[&str] = &[
    "let",
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
    "unset",
    "shift",
    "exit",
    "return",
    "test",
    "[",
    "printf",
    "read",
    "mapfile",
    "readarray",
    "wait",
];

/// What one step found under a command.
enum Step {
    /// Nothing more: the command is what runs.
    Done,
    /// One command runs in its place (stripped again).
    Run(SimpleCommand),
    /// These commands run, already fully expanded (a body, `find -exec` commands…).
    Many(Vec<Arc<SimpleCommand>>),
}

type Why = &'static str;

/// `commands` followed, each, by the stages of what it runs.
pub(super) fn effective_commands(
    commands: &[Arc<SimpleCommand>],
    depth: usize,
) -> Result<Vec<Arc<SimpleCommand>>, Why> {
    let mut out = Vec::with_capacity(commands.len());
    for command in commands {
        // The originals are shared, not copied; the command being stripped is always the
        // last one pushed.
        out.push(Arc::clone(command));
        let mut current = out.len() - 1;
        let mut layers = 0;
        loop {
            match step(&out[current], depth)? {
                Step::Done => break,
                Step::Run(next) => {
                    out.push(Arc::new(next));
                    current = out.len() - 1;
                }
                Step::Many(more) => {
                    out.extend(more);
                    break;
                }
            }
            layers += 1;
            if layers > MAX_LAYERS {
                // Stopping early would leave the innermost command unseen.
                return Err("too many wrapper commands");
            }
        }
    }
    out.dedup_by(|a, b| a.argv == b.argv && a.text == b.text);
    Ok(out)
}

fn step(command: &SimpleCommand, depth: usize) -> Result<Step, Why> {
    let Some((program, args)) = command.argv.split_first() else {
        return Ok(Step::Done);
    };
    if !command.is_literal(0) {
        return Err("a program name that an expansion decides");
    }
    let base = basename(program);
    if base != program {
        let mut words = command.words_from(0);
        words[0] = Word::plain(base);
        return Ok(Step::Run(derived(words, command)));
    }
    let after = |skip: usize| -> Step {
        let from = 1 + skip;
        if from >= command.argv.len() {
            Step::Done
        } else {
            Step::Run(derived(command.words_from(from), command))
        }
    };
    let wrapped = |spec: &OptionSpec| -> Result<Step, Why> {
        let parsed = parse_options(args, spec, Order::Posix)
            .ok_or("an option of a wrapper command that rein does not know")?;
        Ok(after(parsed.end))
    };
    if let Some(spec) = wrapper_options(base) {
        return wrapped(&spec);
    }
    match base {
        "timeout" => timeout(args, &after),
        "taskset" => positional_then_command(args, &after, "ac", &["--all-tasks", "--cpu-list"]),
        "chrt" => positional_then_command(args, &after, "bdfiorRamv", CHRT_LONG_FLAGS),
        "env" => env(command, args, depth),
        "sudo" => sudo(args, &after),
        "xargs" => xargs(command, args),
        // `busybox rm -rf x`: the applet is the next word.
        "busybox" => Ok(match args.first() {
            Some(applet) if !applet.starts_with('-') => after(0),
            _ => Step::Done,
        }),
        "watch" => watch(command, args, depth),
        "flock" => flock(command, args, depth),
        "su" | "runuser" => su(args, depth),
        "eval" => eval(command, depth),
        "alias" => alias(args, depth),
        // `hash -p /bin/rm ls` makes `ls` run rm; `enable -f` loads a builtin from a library.
        "hash" | "enable"
            if args
                .iter()
                .any(|a| short_cluster_has(a, 'p') || short_cluster_has(a, 'f')) =>
        {
            Err("a command name remapped (hash -p, enable -f)")
        }
        "trap" => trap(args, depth),
        b if EVALUATING_BUILTINS.contains(&b)
            && args.iter().any(|a| a.contains("$(") || a.contains('`')) =>
        {
            Err("a builtin that may evaluate a command substitution in its arguments")
        }
        s if SHELLS.contains(&s) => shell_body(command, depth),
        "find" => find(&command.words_from(1), depth),
        "git" => git(command, args, depth),
        _ => Ok(Step::Done),
    }
}

/// `chrt`'s long options that take no value.
const CHRT_LONG_FLAGS: &[&str] = &[
    "--batch",
    "--deadline",
    "--fifo",
    "--idle",
    "--other",
    "--rr",
    "--reset-on-fork",
    "--all-tasks",
];

/// The options of a wrapper whose command follows its options directly.
fn wrapper_options(base: &str) -> Option<OptionSpec> {
    Some(match base {
        "command" => flags("pvV"),
        "builtin" | "nohup" => OptionSpec::default(),
        "exec" => OptionSpec {
            flags: "cl",
            values: "a",
            ..OptionSpec::default()
        },
        "time" => flags("p"),
        "setsid" => OptionSpec {
            flags: "cfw",
            long_flags: &["--ctty", "--fork", "--wait"],
            ..OptionSpec::default()
        },
        "nice" => OptionSpec {
            values: "n",
            long_values: &["--adjustment"],
            numbers: true,
            ..OptionSpec::default()
        },
        "stdbuf" => OptionSpec {
            values: "ioe",
            long_values: &["--input", "--output", "--error"],
            ..OptionSpec::default()
        },
        "ionice" => OptionSpec {
            flags: "t",
            values: "cn",
            ..OptionSpec::default()
        },
        "doas" => OptionSpec {
            flags: "nsL",
            values: "uC",
            ..OptionSpec::default()
        },
        _ => return None,
    })
}

/// Whether `arg` is a cluster of short options containing `c` (`-pr`, `-p`).
fn short_cluster_has(arg: &str, c: char) -> bool {
    arg.starts_with('-') && !arg.starts_with("--") && arg.contains(c)
}

fn flags(flags: &'static str) -> OptionSpec {
    OptionSpec {
        flags,
        ..OptionSpec::default()
    }
}

/// A command built from some of `from`'s words, keeping its redirections.
fn derived(words: Vec<Word>, from: &SimpleCommand) -> SimpleCommand {
    SimpleCommand::from_words(words, from.redirects.clone())
}

fn literal_words(argv: &[String], redirects: &[Redirect]) -> SimpleCommand {
    SimpleCommand::from_words(
        argv.iter().map(|a| Word::plain(a.as_str())).collect(),
        redirects.to_vec(),
    )
}

/// The last component of a program path (`/bin/rm` → `rm`); what rules and the dangerous
/// list know a program by.
pub fn basename(program: &str) -> &str {
    if !program.contains('/') {
        return program;
    }
    program
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|b| !b.is_empty())
        .unwrap_or(program)
}

/// Words joined with spaces and read as a line (`eval`, `watch`, `flock -c`).
fn shell_text(words: &[Word], depth: usize) -> Result<Step, Why> {
    if words.iter().any(|w| !w.literal) {
        return Err("a command text that an expansion decides");
    }
    let text: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
    parse_body(&text.join(" "), depth).map(Step::Many)
}

/// `alias NAME=VALUE…`: each value may later run as a command (with `expand_aliases`).
fn alias(args: &[String], depth: usize) -> Result<Step, Why> {
    let mut out = Vec::new();
    for value in args
        .iter()
        .filter_map(|a| a.split_once('=').map(|(_, v)| v))
    {
        out.extend(parse_body(value, depth)?);
    }
    Ok(if out.is_empty() {
        Step::Done
    } else {
        Step::Many(out)
    })
}

/// `trap [--] ACTION SIGNAL…`: the action runs when the signal (or `EXIT`) comes.
fn trap(args: &[String], depth: usize) -> Result<Step, Why> {
    let operands: Vec<&String> = match args.first().map(String::as_str) {
        Some("--") => args[1..].iter().collect(),
        Some(a) if a.starts_with('-') && a != "-" => return Ok(Step::Done),
        _ => args.iter().collect(),
    };
    match operands.as_slice() {
        [action, _signal, ..] if action.as_str() != "-" => {
            parse_body(action, depth).map(Step::Many)
        }
        _ => Ok(Step::Done),
    }
}

/// `eval WORDS…`: the words joined with spaces, read as a line.
fn eval(command: &SimpleCommand, depth: usize) -> Result<Step, Why> {
    shell_text(&command.words_from(1), depth)
}

/// `sh [opts] -c BODY [name args…]`; without `-c` the shell reads a script rein cannot see.
fn shell_body(command: &SimpleCommand, depth: usize) -> Result<Step, Why> {
    let args = &command.argv[1..];
    let mut has_c = false;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" || arg == "-" {
            i += 1;
            break;
        }
        if !(arg.starts_with('-') || arg.starts_with('+')) {
            break;
        }
        if matches!(
            arg.as_str(),
            "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file"
        ) {
            i += 2;
            continue;
        }
        if !arg.starts_with("--") && arg.contains('c') {
            has_c = true;
        }
        i += 1;
    }
    if !has_c {
        return Ok(Step::Done);
    }
    let Some(body) = command.argv.get(1 + i) else {
        return Ok(Step::Done);
    };
    if !command.is_literal(1 + i) {
        return Err("a shell -c body that an expansion decides");
    }
    parse_body(body, depth).map(Step::Many)
}

/// Parses a body (`sh -c`, `eval`, `env -S`, a `!` alias) and expands it in turn.
fn parse_body(body: &str, depth: usize) -> Result<Vec<Arc<SimpleCommand>>, Why> {
    if depth + 1 > MAX_DEPTH {
        return Err("shell bodies nested too deeply");
    }
    let commands =
        split_into(body, Arc::new).map_err(|_| "an unparseable shell body (sh -c, eval)")?;
    effective_commands(&commands, depth + 1)
}

/// The commands `find -exec/-execdir/-ok/-okdir … ;|+` run, and `rm -rf START…` for
/// `-delete`.
fn find(words: &[Word], depth: usize) -> Result<Step, Why> {
    let args: Vec<String> = words.iter().map(|w| w.text.clone()).collect();
    let mut synthesized = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        if matches!(arg, "-exec" | "-execdir" | "-ok" | "-okdir") {
            let start = i;
            while i < args.len() && !matches!(args[i].as_str(), ";" | "+") {
                i += 1;
            }
            if i > start {
                synthesized.push(Arc::new(SimpleCommand::from_words(
                    words[start..i].to_vec(),
                    Vec::new(),
                )));
            }
            i += 1;
        } else if arg == "-delete" {
            let mut argv = vec!["rm".to_string(), "-rf".to_string()];
            argv.extend(find_start_points(&args));
            synthesized.push(Arc::new(literal_words(&argv, &[])));
        }
    }
    if synthesized.is_empty() {
        return Ok(Step::Done);
    }
    effective_commands(&synthesized, depth).map(Step::Many)
}

/// The starting points of a `find` (`.` when none is given).
pub(super) fn find_start_points(args: &[String]) -> Vec<String> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match arg.as_str() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            a if a.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let starts: Vec<String> = args[i.min(args.len())..]
        .iter()
        .take_while(|a| !a.starts_with('-') && !matches!(a.as_str(), "(" | "!" | ")" | ","))
        .cloned()
        .collect();
    if starts.is_empty() {
        vec![".".to_string()]
    } else {
        starts
    }
}

/// Git's global options: those with a value (in the next word, or after `=`).
const GIT_GLOBAL_VALUES: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--super-prefix",
    "--list-cmds",
    "--attr-source",
];

/// `git [global options] SUB args…` → `git SUB args…`, with `-c alias.SUB=…` expanded.
fn git(command: &SimpleCommand, args: &[String], depth: usize) -> Result<Step, Why> {
    let mut aliases: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if !arg.starts_with('-') {
            break;
        }
        let (name, attached) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value)),
            _ => (arg.as_str(), None),
        };
        if GIT_GLOBAL_VALUES.contains(&name) {
            let value = match attached {
                Some(value) => value.to_string(),
                None => {
                    i += 1;
                    args.get(i).cloned().unwrap_or_default()
                }
            };
            if name == "--config-env" && value.to_ascii_lowercase().starts_with("alias.") {
                return Err("a git alias taken from the environment");
            }
            if name == "-c"
                && let Some((key, body)) = value.split_once('=')
                && let Some(alias) = key.to_ascii_lowercase().strip_prefix("alias.")
            {
                aliases.push((alias.to_string(), body.to_string()));
            }
        } else if name.starts_with("-c") && name.len() > 2 {
            return Err("a git -c option rein does not know");
        }
        i += 1;
    }
    if i == 0 || i >= args.len() {
        // No global options, or nothing after them: git runs as written.
        return Ok(Step::Done);
    }
    let sub = &args[i];
    let mut words = vec![Word::plain("git")];
    words.extend(command.words_from(1 + i));
    let mut out = vec![Arc::new(derived(words, command))];
    if let Some((_, body)) = aliases.iter().rev().find(|(name, _)| name == sub) {
        let mut line = match body.strip_prefix('!') {
            Some(shell) => shell.to_string(),
            None => format!("git {body}"),
        };
        for arg in &args[i + 1..] {
            line.push(' ');
            line.push_str(arg);
        }
        out.extend(parse_body(&line, depth)?);
    }
    Ok(Step::Many(out))
}
