//! Proving that a command line only observes ("prove or ask").
//!
//! A line is proven read-only when it was fully analysed, and every simple command in it has
//! no assignment prefix, no word bash could expand, no redirection but reads, `/dev/null` and
//! descriptor copies, and is a program of the small allow-list ([`super::programs`],
//! [`super::git`]) with options from its exact table and path operands that resolve inside
//! the workspace, outside the sensitive list, and not to a file with several hard links.
//! Anything else is not proven and the user is asked: misjudging a reader costs a question,
//! misjudging a writer would run it unchecked.

use std::path::Path;

use super::git::git_is_read_only;
use super::programs::program_is_read_only;
use super::reads::Reads;
use super::repo_memo::RepoMemo;
use crate::WorkspaceGuard;
use rein_fs::lstats::Lstats;
use rein_shell::ShellLine;
use rein_shell::{Redirect, SimpleCommand};

/// Whether every command of `line` is provably read-only, for a shell whose current
/// directory is `cwd` in `guard`'s workspace. See the module documentation for the rules;
/// run a proven line with [`super::read_only_env`].
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use rein_tools::shell::{analyse, is_read_only};
/// let dir = tempfile::tempdir()?;
/// let guard = rein_tools::WorkspaceGuard::new(dir.path())?;
/// let cwd = guard.root().to_path_buf();
/// assert!(is_read_only(&analyse("ls -la"), &guard, &cwd));
/// assert!(!is_read_only(&analyse("cat /etc/passwd"), &guard, &cwd));
/// assert!(!is_read_only(&analyse("PAGER=x ls"), &guard, &cwd));
/// # Ok(()) }
/// ```
pub fn is_read_only(line: &ShellLine, guard: &WorkspaceGuard, cwd: &Path) -> bool {
    is_read_only_with(line, guard, cwd, &Lstats::default(), &RepoMemo::default())
}

/// [`is_read_only`], asking `lstats` about the file system and keeping what it finds about
/// repository configurations in `memo`.
pub(crate) fn is_read_only_with(
    line: &ShellLine,
    guard: &WorkspaceGuard,
    cwd: &Path,
    lstats: &Lstats,
    memo: &RepoMemo,
) -> bool {
    let reads = Reads::new(guard, cwd, lstats, memo);
    every_command(line, &reads, command_is_read_only)
}

/// Whether `line` was analysed, `proven` holds for each of its commands, and the current
/// directory may be read (programs without operands read it).
pub(super) fn every_command(
    line: &ShellLine,
    reads: &Reads,
    proven: impl Fn(&SimpleCommand, &Reads) -> bool,
) -> bool {
    if line.unanalysable.is_some() || line.commands.is_empty() {
        return false;
    }
    let Some(cwd_text) = reads.cwd.to_str() else {
        return false;
    };
    // The commands first: most lines that are not proven say so cheaply, before the current
    // directory costs a `realpath`.
    line.commands.iter().all(|command| proven(command, reads))
        && reads
            .guard
            .resolve_read_with(cwd_text, reads.lstats)
            .is_ok()
}

/// Whether one command of a line is provably read-only.
pub(super) fn command_is_read_only(command: &SimpleCommand, reads: &Reads) -> bool {
    if !command.assignments.is_empty() || !command.all_literal() {
        return false;
    }
    if !redirects_read_only(command.redirects.iter(), reads) {
        return false;
    }
    let Some((program, args)) = command.argv.split_first() else {
        return false;
    };
    let Some(name) = program_name(program) else {
        return false;
    };
    match name {
        "git" => git_is_read_only(args, reads),
        _ => program_is_read_only(name, args, reads),
    }
}

/// Whether `redirects` write no file: each is literal, and one reading a file reads a
/// readable one (descriptor copies and `/dev/null` pass).
pub(super) fn redirects_read_only<'a>(
    mut redirects: impl Iterator<Item = &'a Redirect>,
    reads: &Reads,
) -> bool {
    redirects.all(|redirect| {
        redirect.literal
            && !redirect.writes_file()
            && (redirect.op != "<" || reads.path(&redirect.target))
    })
}

/// The program's name when it is run from the search path or from `/usr/bin` or `/bin`
/// exactly; any other path (`./cat`, `node_modules/.bin/ls`, `../../bin/sh`) is not proven.
pub(super) fn program_name(program: &str) -> Option<&str> {
    let name = program
        .strip_prefix("/usr/bin/")
        .or_else(|| program.strip_prefix("/bin/"))
        .unwrap_or(program);
    (!name.is_empty() && !name.contains('/')).then_some(name)
}

#[cfg(test)]
#[path = "classify_tests.rs"]
mod tests;
