//! What typed keys reach: the program in a terminal's foreground, and whether it reads
//! commands (an interactive shell, an interpreter's prompt) or data (a script asking a
//! question, `npm init`, an editor).

use std::path::PathBuf;

/// Shells: a line typed at their prompt is a shell command.
const SHELLS: &[&str] = &[
    "bash", "sh", "dash", "zsh", "ksh", "mksh", "fish", "ash", "busybox",
];

/// Interpreters with a prompt: a line typed at it is code.
const INTERPRETERS: &[&str] = &[
    "python",
    "python2",
    "python3",
    "ipython",
    "ipython3",
    "node",
    "nodejs",
    "deno",
    "bun",
    "ruby",
    "irb",
    "perl",
    "php",
    "lua",
    "luajit",
    "R",
    "julia",
    "ghci",
    "sqlite3",
    "psql",
    "mysql",
    "mariadb",
    "redis-cli",
    "mongosh",
    "guile",
    "racket",
    "erl",
    "iex",
    "scala",
    "jshell",
    "tclsh",
    "wish",
    "gdb",
    "lldb",
    "pdb",
];

/// Interpreters whose plain words name a database to open.
const DATABASE_CLIENTS: &[&str] = &[
    "sqlite3",
    "psql",
    "mysql",
    "mariadb",
    "redis-cli",
    "mongosh",
];

/// Who reads what is typed into a terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reader {
    /// An interactive shell: each line is a command, run in `cwd`.
    Shell {
        /// Its name (`bash`).
        program: String,
        /// Its working directory, when it can be read.
        cwd: Option<PathBuf>,
    },
    /// An interpreter at its prompt: each line is code.
    Interpreter {
        /// Its name (`python3`).
        program: String,
        /// Its working directory, when it can be read.
        cwd: Option<PathBuf>,
    },
    /// Any other program (a question, an editor, a pager): keys are its input.
    Program,
}

/// The reader of the terminal whose foreground process group is `group`: the first process
/// of the group that is a shell or interpreter reading from its prompt; else, when a program
/// holds the terminal in front of an interactive shell of the same session (`sleep` run at
/// its prompt), that shell — keys the program does not read are read by the shell next, so a
/// line typed now is that shell's command; else a program.
pub(crate) fn reader(group: i32) -> Reader {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Reader::Program;
    };
    let mut all: Vec<(i32, Ids)> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| Some((pid, ids(pid)?)))
        .collect();
    all.sort_unstable_by_key(|(pid, _)| *pid);
    let members: Vec<&(i32, Ids)> = all.iter().filter(|(_, i)| i.group == group).collect();
    if let Some(found) = members.iter().find_map(|(pid, _)| prompt_of(*pid)) {
        return found;
    }
    let Some((_, first)) = members.first() else {
        return Reader::Program;
    };
    all.iter()
        .filter(|(_, i)| i.session == first.session && i.group != group)
        .find_map(|(pid, _)| prompt_of(*pid).filter(|r| matches!(r, Reader::Shell { .. })))
        .unwrap_or(Reader::Program)
}

/// The reader `pid` is when it reads from its prompt. It is known by its command line or by
/// the program it runs (`/proc/PID/exe`): `exec -a notashell bash` is still bash.
fn prompt_of(pid: i32) -> Option<Reader> {
    let argv = command_line(pid)?;
    let program = prompt_reader(&argv).or_else(|| {
        let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
        let mut real = argv.clone();
        real[0] = exe.to_string_lossy().into_owned();
        prompt_reader(&real)
    })?;
    let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).ok();
    Some(match SHELLS.contains(&program.as_str()) {
        true => Reader::Shell { program, cwd },
        false => Reader::Interpreter { program, cwd },
    })
}

/// A process's group and session.
#[derive(Debug, Clone, Copy)]
struct Ids {
    group: i32,
    session: i32,
}

/// The program's name when `argv` is a shell or interpreter reading commands from its
/// terminal: no script, no `-c`/`-e` code, only options (`bash`, `bash -i`, `python3 -q`).
pub(crate) fn prompt_reader(argv: &[String]) -> Option<String> {
    let name = argv.first()?.rsplit('/').next()?.trim_start_matches('-');
    // `python3.12` is `python3`.
    let base = name.split('.').next().unwrap_or(name);
    let known = |n: &str| SHELLS.contains(&n) || INTERPRETERS.contains(&n);
    let program = [name, base].into_iter().find(|n| known(n))?;
    // A database client's word is the database it opens, not a script.
    let words_are_scripts = !DATABASE_CLIENTS.contains(&program);
    let reads_code_from_arguments = argv[1..].iter().any(|arg| {
        (words_are_scripts && !arg.starts_with('-'))
            || matches!(
                arg.as_str(),
                "-c" | "-e" | "-m" | "-p" | "-r" | "--eval" | "--command"
            )
    });
    // `-i` forces a prompt even with a script.
    let forced = argv[1..].iter().any(|a| a == "-i" || a == "--interactive");
    (forced || !reads_code_from_arguments).then(|| program.to_string())
}

/// The process group and session of `pid` (the fifth and sixth fields of `/proc/PID/stat`).
fn ids(pid: i32) -> Option<Ids> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The name (field 2) is in parentheses and may hold spaces: read after its end.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(2);
    Some(Ids {
        group: fields.next()?.parse().ok()?,
        session: fields.next()?.parse().ok()?,
    })
}

fn command_line(pid: i32) -> Option<Vec<String>> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let argv: Vec<String> = raw
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    (!argv.is_empty()).then_some(argv)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Vec<String> {
        line.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn shells_and_interpreters_at_their_prompt_read_commands() {
        for (line, program) in [
            ("bash", "bash"),
            ("/usr/bin/bash -i", "bash"),
            ("-bash", "bash"),
            ("python3", "python3"),
            ("/usr/bin/python3.11 -q", "python3"),
            ("python3 -i script.py", "python3"),
            ("node", "node"),
            ("sqlite3 -batch", "sqlite3"),
            ("sqlite3 app.db", "sqlite3"),
        ] {
            assert_eq!(
                prompt_reader(&argv(line)).as_deref(),
                Some(program),
                "{line}"
            );
        }
    }

    #[test]
    fn scripts_and_other_programs_read_data() {
        for line in [
            "bash -c read",
            "bash script.sh",
            "python3 ask.py",
            "python3 -c input()",
            "node -e 1",
            "psql -c select",
            "npm init",
            "git rebase -i HEAD~2",
            "less notes.txt",
            "sudo -k",
        ] {
            assert_eq!(prompt_reader(&argv(line)), None, "{line}");
        }
    }
}
