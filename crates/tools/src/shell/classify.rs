//! Which command lines only observe the world.
//!
//! A line is read-only when it parses ([`split_commands`]), no redirection writes a file, and
//! every simple command is a known observer with arguments that keep it one (`find` without
//! `-delete`/`-exec`, `sed -n` with a print-only script, `git` with a read subcommand). Any
//! doubt answers "not read-only": misjudging a reader costs some concurrency, misjudging a
//! writer would let it run unchecked.

use super::parse::{SimpleCommand, split_commands};

/// Whether running `line` cannot change files or state (conservatively).
pub fn is_read_only(line: &str) -> bool {
    match split_commands(line) {
        Ok(commands) => !commands.is_empty() && commands.iter().all(command_is_read_only),
        Err(_) => false,
    }
}

/// Programs that only read, whatever their arguments (none of them writes files or runs
/// other programs).
const ALWAYS: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "grep",
    "egrep",
    "fgrep",
    "pwd",
    "which",
    "type",
    "stat",
    "du",
    "df",
    "cut",
    "tr",
    "diff",
    "cmp",
    "comm",
    "nl",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "printenv",
    "whoami",
    "id",
    "uname",
    "true",
    "false",
    "sleep",
    "test",
    "[",
    "seq",
    "echo",
    "printf",
    "jq",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "od",
    "hexdump",
    "strings",
    "column",
    "fold",
    "expand",
    "unexpand",
    "rev",
    "tac",
    "paste",
    "join",
    "look",
    "ps",
    "uptime",
    "free",
    "nproc",
    "arch",
    "groups",
    "locale",
    "tty",
    "lsof",
    "getconf",
];

/// `git` subcommands that only read the repository.
const GIT_READ: &[&str] = &[
    "status",
    "diff",
    "log",
    "show",
    "blame",
    "ls-files",
    "ls-tree",
    "rev-parse",
    "describe",
    "shortlog",
    "grep",
    "cat-file",
    "reflog",
    "whatchanged",
    "merge-base",
    "name-rev",
    "count-objects",
    "rev-list",
    "show-ref",
    "for-each-ref",
    "check-ignore",
    "version",
];

fn command_is_read_only(command: &SimpleCommand) -> bool {
    if command.redirects.iter().any(|r| r.writes_file()) {
        return false;
    }
    let Some(program) = command.argv.first() else {
        // Only assignments: they change this shell's variables, which do not outlive the call.
        return true;
    };
    if program.contains(['$', '/'])
        && !program.starts_with("/usr/bin/")
        && !program.starts_with("/bin/")
    {
        return false;
    }
    let name = program.rsplit('/').next().unwrap_or(program);
    let args = &command.argv[1..];
    if ALWAYS.contains(&name) {
        return true;
    }
    match name {
        "find" => !args.iter().any(|a| {
            matches!(
                a.as_str(),
                "-delete"
                    | "-exec"
                    | "-execdir"
                    | "-ok"
                    | "-okdir"
                    | "-fprint"
                    | "-fprint0"
                    | "-fprintf"
                    | "-fls"
            )
        }),
        "fd" | "fdfind" => !args.iter().any(|a| {
            matches!(a.as_str(), "-x" | "-X" | "--exec" | "--exec-batch") || a.starts_with("--exec")
        }),
        "sort" => !args.iter().any(|a| {
            a == "-o" || a.starts_with("--output") || (a.starts_with("-o") && !a.starts_with("--"))
        }),
        "uniq" => args.iter().filter(|a| !a.starts_with('-')).count() <= 1,
        "date" => !args.iter().any(|a| {
            a == "-s" || a.starts_with("--set") || (a.starts_with("-s") && !a.starts_with("--"))
        }),
        "hostname" | "env" => args.is_empty(),
        // `rg --pre CMD` runs a preprocessor; `tree -o FILE` and `file -C` write files.
        "rg" => !args.iter().any(|a| a.starts_with("--pre")),
        "tree" => !args.iter().any(|a| a == "-o"),
        "file" => !args.iter().any(|a| a == "-C" || a == "--compile"),
        "sed" => sed_is_read_only(args),
        "git" => git_is_read_only(args),
        "cargo" => matches!(
            args.first().map(String::as_str),
            Some("tree" | "metadata" | "--version" | "-V")
        ),
        _ => false,
    }
}

/// `sed -n 'N,Mp'`-style calls: no in-place flag, and a script of line addresses and `p`.
fn sed_is_read_only(args: &[String]) -> bool {
    let mut script_seen = false;
    for arg in args {
        if arg.starts_with("-i") || arg.starts_with("--in-place") || arg == "-e" || arg == "-f" {
            return false;
        }
        if arg.starts_with('-') {
            continue;
        }
        if !script_seen {
            script_seen = true;
            let print_only = arg
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, ',' | '$' | 'p' | ';' | ' '));
            if !print_only {
                return false;
            }
        }
    }
    script_seen
}

fn git_is_read_only(args: &[String]) -> bool {
    // Global options before the subcommand could point git anywhere (`-C`, `-c`): not judged.
    let Some(sub) = args.first() else {
        return false;
    };
    let rest = &args[1..];
    if GIT_READ.contains(&sub.as_str()) {
        // `--output=FILE` writes a file; `--ext-diff` and `grep -O` run other programs.
        return !rest.iter().any(|a| {
            a.starts_with("--output")
                || a == "--ext-diff"
                || a == "-O"
                || a.starts_with("--open-files-in-pager")
        });
    }
    match sub.as_str() {
        // Listing forms only: `git branch` / `git tag` with a name create one.
        "branch" => rest.iter().all(|a| {
            matches!(
                a.as_str(),
                "-a" | "-r"
                    | "-v"
                    | "-vv"
                    | "--list"
                    | "--all"
                    | "--remotes"
                    | "--show-current"
                    | "--merged"
                    | "--no-merged"
                    | "--contains"
            )
        }),
        "tag" => rest.is_empty() || rest.iter().all(|a| a == "-l" || a == "--list"),
        "remote" => rest.is_empty() || rest.iter().all(|a| a == "-v" || a == "--verbose"),
        "stash" => matches!(rest.first().map(String::as_str), Some("list" | "show")),
        "config" => {
            rest.first().map(String::as_str) == Some("--get")
                || rest.first().map(String::as_str) == Some("--list")
                || rest.first().map(String::as_str) == Some("-l")
        }
        _ => false,
    }
}

#[cfg(test)]
#[path = "classify_tests.rs"]
mod tests;
