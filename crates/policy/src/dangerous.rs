//! Destructive shell commands that always need a human's yes (or `bypass`, or an explicit
//! allow rule), whatever the mode.
//!
//! The check looks at what actually runs ([`rein_shell::ShellLine::effective`]): a
//! command behind `sudo`, `env`, `xargs`, `sh -c`, `find -exec`, a program path or git's
//! global options is judged like the bare command. A line that cannot be analysed is split
//! naively and each part judged, so quoting or substitution cannot hide a command.

use std::sync::LazyLock;

use regex::Regex;
use rein_shell::{ShellLine, analyse, basename};

/// Why `line` is dangerous, or `None`. Checks every command that runs (wrappers seen
/// through), the redirections, a download run by a shell or interpreter, and a few
/// whole-line shapes (fork bomb).
pub fn dangerous(line: &str) -> Option<String> {
    dangerous_in(line, &analyse(line))
}

/// [`dangerous`] for a line already analysed (a call's facts hold its analysis).
pub fn dangerous_in(line: &str, analysed: &ShellLine) -> Option<String> {
    if line.contains("--no-preserve-root") {
        return Some("rm --no-preserve-root".to_string());
    }
    if let Some(why) = fork_bomb(line) {
        return Some(why);
    }
    let naive;
    let commands: Vec<&[String]> = match analysed.unanalysable {
        None => analysed
            .effective
            .iter()
            .map(|c| c.argv.as_slice())
            .collect(),
        Some(_) => {
            // Quoting is unknown here: the raw shapes are matched too.
            if let Some((_, what)) = LINE_PATTERNS.iter().find(|(p, _)| p.is_match(line)) {
                return Some((*what).to_string());
            }
            naive = naive_commands(line);
            naive.iter().map(Vec::as_slice).collect()
        }
    };
    disk_redirect(analysed)
        .or_else(|| download_run(analysed, &commands))
        .or_else(|| commands.iter().find_map(|argv| dangerous_command(argv)))
}

/// Whole-line shapes of a line rein cannot analyse, with what they are.
static LINE_PATTERNS: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (
            r"\b(curl|wget|fetch)\b[^|;&]*\|\s*(sudo\s+)?(env\s+)?(ba|z|da|k|fi)?sh\b",
            "a download piped into a shell",
        ),
        (
            r"\b(curl|wget)\b[^|;&]*\|\s*(sudo\s+)?(python[0-9.]*|perl|ruby|node)\b",
            "a download piped into an interpreter",
        ),
        (
            r"\b(ba|z|da)?sh\s+(-c\s+)?[\x22']?(<\(|\$\()\s*(curl|wget)\b",
            "a shell running a download",
        ),
        (
            r">\s*/dev/(sd|nvme|hd|vd|xvd|mmcblk|disk)",
            "a write to a raw disk device",
        ),
    ]
    .into_iter()
    .filter_map(|(re, what)| Regex::new(re).ok().map(|re| (re, what)))
    .collect()
});

/// `NAME() { … NAME | NAME & … }` for any name.
static FUNCTION: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"([A-Za-z_:.][A-Za-z0-9_:.-]*)\s*\(\s*\)\s*\{([^}]*)\}").ok());

fn fork_bomb(line: &str) -> Option<String> {
    let function = FUNCTION.as_ref()?;
    function.captures_iter(line).find_map(|captures| {
        let name = captures.get(1)?.as_str();
        let body: String = captures
            .get(2)?
            .as_str()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        body.contains(&format!("{name}|{name}&"))
            .then(|| "a fork bomb".to_string())
    })
}

fn argvs(line: &ShellLine) -> Vec<Vec<String>> {
    line.effective.iter().map(|c| c.argv.clone()).collect()
}

/// For a line rein cannot analyse: split on every separator, and each part analysed on its
/// own when it can be (so wrappers are still seen through), or taken as words.
fn naive_commands(line: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for part in line.split(['\n', ';', '|', '&', '(', ')', '`', '{', '}', '<', '>']) {
        let part = part.trim().trim_start_matches('$').trim();
        if part.is_empty() {
            continue;
        }
        let analysed = analyse(part);
        if analysed.unanalysable.is_none() {
            out.extend(argvs(&analysed));
        } else {
            let words: Vec<String> = part
                .split_whitespace()
                .map(|w| w.trim_matches(['\'', '"', '$']).to_string())
                .filter(|w| !w.is_empty())
                .collect();
            if let Some(first) = words.first() {
                let mut stripped = words.clone();
                stripped[0] = basename(first).to_string();
                out.push(words);
                out.push(stripped);
            }
        }
    }
    out
}

/// `> /dev/sda` and the like, on any command.
fn disk_redirect(line: &ShellLine) -> Option<String> {
    line.effective
        .iter()
        .flat_map(|c| &c.redirects)
        .any(|r| r.writes_file() && is_disk(&r.target))
        .then(|| "a write to a raw disk device".to_string())
}

/// A block device (not `/dev/null`, a terminal or a descriptor).
fn is_disk(target: &str) -> bool {
    let Some(device) = target.strip_prefix("/dev/") else {
        return false;
    };
    !matches!(
        device,
        "null" | "zero" | "stdout" | "stderr" | "stdin" | "tty" | "random" | "urandom"
    ) && !device.starts_with("fd/")
        && !device.starts_with("pts/")
}

const DOWNLOADERS: &[&str] = &["curl", "wget", "fetch", "aria2c", "http", "https", "xh"];

/// Shells and interpreters that run what they read.
fn is_interpreter(program: &str) -> bool {
    matches!(
        program,
        "sh" | "bash"
            | "dash"
            | "zsh"
            | "ksh"
            | "mksh"
            | "ash"
            | "fish"
            | "perl"
            | "ruby"
            | "node"
            | "nodejs"
            | "php"
            | "lua"
            | "deno"
            | "bun"
            | "tclsh"
            | "source"
            | "."
            | "eval"
    ) || program.starts_with("python")
        || program.starts_with("pypy")
}

/// A download followed by a shell or interpreter reading its program from standard input
/// (`curl x | sh`, `| sudo bash -s`, `| python3 -`), or, on a line rein cannot analyse, a
/// download and a shell anywhere (`sh <(curl …)`, `bash -c "$(curl …)"`).
/// The name of the program `argv` runs.
fn program(argv: &[String]) -> Option<&str> {
    argv.first().map(|p| basename(p))
}

fn download_run(line: &ShellLine, commands: &[&[String]]) -> Option<String> {
    if line.unanalysable.is_some() {
        let words: Vec<&str> = line.naive_words.iter().map(|w| basename(w)).collect();
        let downloads = words.iter().any(|w| DOWNLOADERS.contains(w));
        let runs = words.iter().any(|w| is_interpreter(w));
        return (downloads && runs).then(|| "a shell running a download".to_string());
    }
    let first_download = commands
        .iter()
        .position(|argv| program(argv).is_some_and(|p| DOWNLOADERS.contains(&p)))?;
    commands[first_download + 1..]
        .iter()
        .any(|argv| {
            program(argv).is_some_and(is_interpreter)
                && argv[1..]
                    .iter()
                    .find(|a| !a.starts_with('-') || a.as_str() == "-")
                    .is_none_or(|a| is_stdin(a))
        })
        .then(|| "a download piped into a shell or interpreter".to_string())
}

/// A file name that is the standard input.
fn is_stdin(path: &str) -> bool {
    matches!(path, "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0")
}

/// Targets whose recursive deletion or permission change is a disaster: the root, the home
/// directory, a directory right under the root, everything in one of them (`/*`, `~/*`, `*`),
/// or anything above the current directory — however spelled (`//`, `/.`, `/usr/..`,
/// `$HOME/`, `"${HOME}"`, `~/.`).
fn is_precious(target: &str) -> bool {
    enum Base {
        Root,
        Home,
        Relative,
    }
    let (first, rest) = target.split_once('/').unwrap_or((target, ""));
    // `~`, `~user`, `$HOME`, `${HOME}`, `${HOME:?}`…
    let home = first.starts_with('~') || (first.starts_with('$') && first.contains("HOME"));
    let (base, rest) = if first.is_empty() && target.starts_with('/') {
        (Base::Root, rest)
    } else if home {
        (Base::Home, rest)
    } else {
        (Base::Relative, target)
    };
    let mut stack: Vec<&str> = Vec::new();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if stack.pop().is_none() && !matches!(base, Base::Root) {
                    // Above home or above the current directory.
                    return true;
                }
            }
            other => stack.push(other),
        }
    }
    matches!(
        (base, stack.as_slice()),
        (Base::Root | Base::Home, []) | (_, ["*" | ".*"]) | (Base::Root, [_])
    )
}

fn dangerous_command(argv: &[String]) -> Option<String> {
    let program = basename(argv.first()?);
    let args = &argv[1..];
    let has = |flags: &[&str]| args.iter().any(|a| flags.contains(&a.as_str()));
    let short_flag = |c: char| {
        args.iter()
            .take_while(|a| a.as_str() != "--")
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(c))
    };
    let targets = || {
        let options_end = args.iter().position(|a| a == "--");
        args.iter()
            .enumerate()
            .filter(move |(i, a)| options_end.is_some_and(|end| *i > end) || !a.starts_with('-'))
            .map(|(_, a)| a)
    };
    match program {
        "sudo" | "doas" => Some("a command run as root (sudo)".to_string()),
        "rm" => {
            let recursive = short_flag('r') || short_flag('R') || has(&["--recursive"]);
            let precious = targets().find(|t| is_precious(t));
            match (recursive, precious) {
                (true, Some(t)) => Some(format!("a recursive delete of {t}")),
                _ => None,
            }
        }
        p if p.starts_with("mkfs") => Some("formatting a filesystem (mkfs)".to_string()),
        "wipefs" | "blkdiscard" => Some(format!("wiping a disk ({program})")),
        // `cp`/`mv` write to their last operand; `shred` and `tee` to every one.
        "shred" | "tee" => targets()
            .any(|t| is_disk(t))
            .then(|| format!("{program} writing to a device")),
        "cp" | "mv" => targets()
            .next_back()
            .is_some_and(|t| is_disk(t))
            .then(|| format!("{program} writing to a device")),
        "dd" => args
            .iter()
            .any(|a| a.strip_prefix("of=").is_some_and(is_disk))
            .then(|| "dd writing to a device".to_string()),
        "chmod" | "chown" | "chgrp" => {
            let recursive = short_flag('R') || has(&["--recursive"]);
            if !recursive {
                return None;
            }
            if let Some(t) = targets().skip(1).find(|t| is_precious(t)) {
                return Some(format!("a recursive {program} of {t}"));
            }
            (program == "chmod" && has(&["777", "a+rwx", "ugo+rwx"]))
                .then(|| "a recursive chmod 777".to_string())
        }
        "git" => git_dangerous(args),
        "shutdown" | "reboot" | "halt" | "poweroff" => Some(program.to_string()),
        // `kill -9 -1` signals every process the user owns.
        "kill" => (args.last().map(String::as_str) == Some("-1"))
            .then(|| "killing every process".to_string()),
        // `find ~ -exec rm -rf {} +` removes the start point itself.
        "find" => {
            let removes = has(&["-delete"])
                || (has(&["-exec", "-execdir", "-ok", "-okdir"])
                    && args.iter().any(|a| basename(a) == "rm"));
            let precious = args
                .iter()
                .skip_while(|a| matches!(a.as_str(), "-H" | "-L" | "-P"))
                .take_while(|a| !a.starts_with('-') && !matches!(a.as_str(), "(" | "!"))
                .any(|root| is_precious(root));
            (removes && precious).then(|| "find deleting / or home".to_string())
        }
        _ => None,
    }
}

/// `git push --force` (or `--delete`, `:main`) to main/master (or without a refspec, which
/// may be main). Git's
/// global options are already gone ([`rein_shell::ShellLine::effective`]).
fn git_dangerous(args: &[String]) -> Option<String> {
    if args.first().map(String::as_str) != Some("push") {
        return None;
    }
    let rest = &args[1..];
    let deletes = rest
        .iter()
        .any(|a| a == "--delete" || a == "-d" || a.starts_with(':'));
    let force = deletes
        || rest.iter().any(|a| {
            a == "--force"
                || a.starts_with("--force-with-lease")
                || a == "--force-if-includes"
                || a == "--mirror"
                || (a.starts_with('-') && !a.starts_with("--") && a.contains('f'))
                || a.starts_with('+')
        });
    if !force {
        return None;
    }
    let refspecs: Vec<&String> = rest
        .iter()
        .filter(|a| !a.starts_with('-'))
        .skip(1)
        .collect();
    let to_main = refspecs.is_empty()
        || refspecs.iter().any(|r| {
            let dest = r.rsplit(':').next().unwrap_or(r).trim_start_matches('+');
            matches!(
                dest,
                "main" | "master" | "refs/heads/main" | "refs/heads/master" | "HEAD"
            )
        });
    let what = if deletes {
        "a push deleting main"
    } else {
        "a force push to main"
    };
    to_main.then(|| what.to_string())
}

#[cfg(test)]
#[path = "dangerous_tests.rs"]
mod tests;
