//! Proving that a command line only reads, and creates, changes, moves or deletes files
//! inside the workspace: what `accept-edits` runs without asking, as Claude Code's
//! `acceptEdits` runs common filesystem commands (`mkdir -p build && touch build/out.txt`,
//! `cat a > b`, `rm -rf old`).
//!
//! The proof is the read-only classifier's ([`super::classify`]) with two more shapes: a
//! command the classifier proves, whose only writes are redirections to files; and one of a
//! few file programs (`mkdir`, `touch`, `rm`, `rmdir`, `mv`, `cp`) with options from an exact
//! table. Every path must be literal (nothing bash could expand), resolve inside the workspace
//! for writing, be outside the sensitive list, not be a workspace root, and have a single
//! name; a recursive operand has every entry below it checked. Protected files, dangerous
//! commands and deny rules are judged by the policy before this, whatever it says.

use std::path::Path;

use super::classify::{command_is_read_only, every_command, program_name, redirects_read_only};
use super::options::{OptionSpec, Order, parse_options};
use super::reads::Reads;
use super::repo_memo::RepoMemo;
use crate::WorkspaceGuard;
use rein_fs::lstats::Lstats;
use rein_shell::{ShellLine, SimpleCommand};

/// A file program: its options and how its operands are used.
struct FileProgram {
    name: &'static str,
    spec: OptionSpec,
    /// Fewest operands (`mv` and `cp` need a source and a destination).
    min_operands: usize,
    /// When it reaches into folders (then every entry below an operand is checked).
    walks: Walks,
}

/// When a file program reaches the entries below a folder operand.
#[derive(Debug, Clone, Copy)]
enum Walks {
    /// Never (`mkdir`, `touch`, `rmdir`).
    Never,
    /// With one of these options (`rm -r`, `cp -a`).
    With(&'static [&'static str]),
    /// Always (`mv` takes a folder's entries along).
    Always,
}

/// `rmdir -p`, `cp -l`/`-s` (links to what may lie outside), `touch -r` and `cp`/`mv`'s
/// `-t`/`--backup` are left out on purpose: adding one is a decision, not a fix.
const PROGRAMS: &[FileProgram] = &[
    FileProgram {
        name: "mkdir",
        spec: OptionSpec {
            flags: "pv",
            values: "m",
            long_flags: &["--parents", "--verbose"],
            long_values: &["--mode"],
            ..OptionSpec::NONE
        },
        min_operands: 1,
        walks: Walks::Never,
    },
    FileProgram {
        name: "touch",
        spec: OptionSpec {
            flags: "acm",
            values: "dt",
            long_flags: &["--no-create"],
            long_values: &["--date"],
            ..OptionSpec::NONE
        },
        min_operands: 1,
        walks: Walks::Never,
    },
    FileProgram {
        name: "rm",
        spec: OptionSpec {
            flags: "fiIrRvd",
            long_flags: &["--force", "--recursive", "--verbose", "--dir"],
            ..OptionSpec::NONE
        },
        min_operands: 1,
        walks: Walks::With(&["-r", "-R", "--recursive"]),
    },
    FileProgram {
        name: "rmdir",
        spec: OptionSpec {
            flags: "v",
            long_flags: &["--verbose", "--ignore-fail-on-non-empty"],
            ..OptionSpec::NONE
        },
        min_operands: 1,
        walks: Walks::Never,
    },
    FileProgram {
        name: "mv",
        spec: OptionSpec {
            flags: "finuvT",
            long_flags: &[
                "--force",
                "--interactive",
                "--no-clobber",
                "--update",
                "--verbose",
                "--no-target-directory",
            ],
            ..OptionSpec::NONE
        },
        min_operands: 2,
        walks: Walks::Always,
    },
    FileProgram {
        name: "cp",
        spec: OptionSpec {
            flags: "rRafinuvTPp",
            long_flags: &[
                "--recursive",
                "--archive",
                "--force",
                "--interactive",
                "--no-clobber",
                "--update",
                "--verbose",
                "--no-target-directory",
                "--no-dereference",
            ],
            ..OptionSpec::NONE
        },
        min_operands: 2,
        walks: Walks::With(&["-r", "-R", "-a", "--recursive", "--archive"]),
    },
];

/// Whether every command of `line` only reads, or changes files inside `guard`'s workspace,
/// for a shell whose current directory is `cwd` (see the module documentation).
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use rein_tools::shell::{analyse, only_changes_workspace_files};
/// let dir = tempfile::tempdir()?;
/// let guard = rein_tools::WorkspaceGuard::new(dir.path())?;
/// let cwd = guard.root().to_path_buf();
/// assert!(only_changes_workspace_files(&analyse("mkdir -p build && touch build/a"), &guard, &cwd));
/// assert!(!only_changes_workspace_files(&analyse("touch /tmp/x"), &guard, &cwd));
/// assert!(!only_changes_workspace_files(&analyse("cargo build"), &guard, &cwd));
/// # Ok(()) }
/// ```
pub fn only_changes_workspace_files(line: &ShellLine, guard: &WorkspaceGuard, cwd: &Path) -> bool {
    only_changes_workspace_files_with(line, guard, cwd, &Lstats::default(), &RepoMemo::default())
}

/// [`only_changes_workspace_files`], asking `lstats` about the file system and `memo` about
/// repository configurations.
pub(crate) fn only_changes_workspace_files_with(
    line: &ShellLine,
    guard: &WorkspaceGuard,
    cwd: &Path,
    lstats: &Lstats,
    memo: &RepoMemo,
) -> bool {
    let reads = Reads::new(guard, cwd, lstats, memo);
    every_command(line, &reads, command_ok)
}

fn command_ok(command: &SimpleCommand, reads: &Reads) -> bool {
    if !command.assignments.is_empty() || !command.all_literal() {
        return false;
    }
    let (writes, others): (Vec<_>, Vec<_>) =
        command.redirects.iter().partition(|r| r.writes_file());
    if !writes
        .iter()
        .all(|r| r.literal && reads.writable(&r.target))
    {
        return false;
    }
    let Some((program, args)) = command.argv.split_first() else {
        return false;
    };
    let file_program = program_name(program).and_then(|n| PROGRAMS.iter().find(|p| p.name == n));
    match file_program {
        Some(file_program) => {
            redirects_read_only(others.iter().copied(), reads)
                && operands_ok(file_program, args, reads)
        }
        None if writes.is_empty() => command_is_read_only(command, reads),
        None => {
            let reading = SimpleCommand {
                redirects: others.into_iter().cloned().collect(),
                ..command.clone()
            };
            command_is_read_only(&reading, reads)
        }
    }
}

fn operands_ok(program: &FileProgram, args: &[String], reads: &Reads) -> bool {
    let Some(parsed) = parse_options(args, &program.spec, Order::Gnu) else {
        return false;
    };
    let recursive = match program.walks {
        Walks::Never => false,
        Walks::With(options) => parsed.has(options),
        Walks::Always => true,
    };
    parsed.operands.len() >= program.min_operands
        && parsed
            .operands
            .iter()
            .all(|operand| reads.writable(operand) && (!recursive || reads.tree(operand)))
}

#[cfg(test)]
#[path = "file_ops_tests.rs"]
mod tests;
