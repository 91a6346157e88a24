//! Which OS sandbox policy a `bash` call runs under, and the command that runs it there.

use std::path::{Path, PathBuf};

use command_fds::FdMapping;
use rein_sandbox::{Call, Policy, Sandbox};
use tokio::process::Command;

use crate::ToolContext;

/// What a call is, as far as its confinement goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Confinement {
    /// The user approved running it outside the sandbox.
    Unsandboxed,
    /// A line proven read-only.
    ProvenReadOnly,
    /// Anything else: the session's policy.
    Session,
}

/// A session policy this machine's sandbox cannot enforce.
#[derive(Debug, thiserror::Error)]
#[error(
    "not run: the {required} sandbox is required but unavailable on this machine \
     (see `rein sandbox check`)"
)]
pub(crate) struct Unavailable {
    required: Policy,
}

/// The policy for a call: none when the user approved running it unsandboxed; `read-only`
/// for a line proven read-only (defence in depth for the classifier); else the session's.
/// A sandbox this machine lacks confines nothing for a proven line (rein warned at start);
/// a session policy it lacks is an error.
pub(crate) fn policy(confinement: Confinement, ctx: &ToolContext) -> Result<Policy, Unavailable> {
    let wanted = match confinement {
        Confinement::Unsandboxed => return Ok(Policy::Off),
        Confinement::ProvenReadOnly => ctx.sandbox_policy.stricter(Policy::ReadOnly),
        Confinement::Session => ctx.sandbox_policy,
    };
    match (&ctx.sandbox, ctx.sandbox_policy) {
        (Some(_), _) => Ok(wanted),
        (None, Policy::Off) => Ok(Policy::Off),
        (None, required) => Err(Unavailable { required }),
    }
}

/// `bash`, or the sandbox's launcher (rein's native helper or bubblewrap) running `bash`
/// under `policy`; a seccomp program's descriptor (bubblewrap's) is added to `mappings`.
pub(super) fn command(
    policy: Policy,
    ctx: &ToolContext,
    dirs: (&Path, &Path),
    attach: Attach,
    mappings: &mut Vec<FdMapping>,
) -> std::io::Result<Command> {
    confined(policy, ctx, dirs, (attach, Path::new("bash")), mappings)
}

/// `program`, or the sandbox's launcher running `program` under `policy`, started in
/// `start` with `tmp` as its private temp folder (a language server's process is made this
/// way too).
pub(crate) fn confined(
    policy: Policy,
    ctx: &ToolContext,
    (start, tmp): (&Path, &Path),
    (attach, program): (Attach, &Path),
    mappings: &mut Vec<FdMapping>,
) -> std::io::Result<Command> {
    let Some(sandbox) = ctx.sandbox.as_ref().filter(|_| policy != Policy::Off) else {
        return Ok(attach.command(program));
    };
    let hidden = hidden_here(ctx, sandbox, policy)?;
    let call = Call {
        policy,
        workspace: ctx.guard.root(),
        cwd: start,
        tmp,
        hidden: &hidden,
    };
    let wrapped = sandbox.wrap(&call)?;
    let mut command = attach.command(&wrapped.program);
    command.args(&wrapped.args).arg(program);
    if let Some(filter) = wrapped.filter {
        mappings.push(FdMapping {
            parent_fd: filter,
            child_fd: wrapped.filter_fd,
        });
    }
    for var in rein_sandbox::SOCKET_ENV {
        command.env_remove(var);
    }
    Ok(command)
}

/// What the command's input and output are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Attach {
    /// Pipes (stdin closed): a call that runs to its end or in the background.
    Pipes,
    /// A pseudo-terminal it controls: it starts a session of its own (util-linux's `setsid
    /// --ctty`, the terminal on its stdin becoming its controlling terminal).
    Terminal,
}

impl Attach {
    #[allow(clippy::disallowed_methods)] // the launch path of commands: the sandbox and the hidden variables are applied here
    fn command(self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        match self {
            Self::Pipes => Command::new(program),
            Self::Terminal => {
                // `setsid` execs the program: rein's own helper (`/proc/self/exe`) must be
                // named by rein's pid, or it would be `setsid` itself.
                let program = program.as_ref();
                let own = std::path::PathBuf::from(format!("/proc/{}/exe", std::process::id()));
                let program = if program == "/proc/self/exe" {
                    own.as_os_str()
                } else {
                    program
                };
                let mut command = Command::new("setsid");
                command.arg("--ctty").arg(program);
                command
            }
        }
    }
}

/// Under `workspace-write`: a `commondir` the command wrote into the repository's `.git`
/// moved aside (no mount can hold a name that does not exist yet), with a note for each.
pub(super) fn disarm_git(policy: Policy, ctx: &ToolContext) -> Vec<String> {
    match &ctx.sandbox {
        Some(sandbox) if policy == Policy::WorkspaceWrite => sandbox.disarm_git(ctx.guard.root()),
        _ => Vec::new(),
    }
}

/// What a sandboxed command must not see beyond the sandbox's own hidden list: every entry
/// the guard refuses (sensitive names such as `.env*` and the `Read` deny globs) in the
/// workspace at any depth, and in the shown roots (read roots, and writable roots under
/// `workspace-write`) below the fixed part of a deny glob. The guard keeps the tree between
/// calls ([`rein_fs::hidden_tree`]), so a call costs one `lstat` per folder unless folders
/// changed.
fn hidden_here(
    ctx: &ToolContext,
    sandbox: &Sandbox,
    policy: Policy,
) -> std::io::Result<Vec<PathBuf>> {
    let guard = &ctx.guard;
    let settings = sandbox.settings();
    let writable = match policy {
        Policy::WorkspaceWrite => settings.writable_roots.as_slice(),
        Policy::ReadOnly | Policy::Off => &[],
    };
    let shown: Vec<&Path> = guard
        .roots()
        .chain(settings.read_roots.iter().map(PathBuf::as_path))
        .chain(writable.iter().map(PathBuf::as_path))
        .collect();
    // The folders added to the workspace are walked like it: their `.env` files are hidden.
    let mut roots: Vec<PathBuf> = guard.roots().map(Path::to_path_buf).collect();
    let mut exact = Vec::new();
    for glob in guard.sensitive_paths().globs() {
        match fixed_part(glob) {
            Fixed::Whole(path) if shown.iter().any(|r| path.starts_with(r)) => exact.push(path),
            Fixed::Whole(_) => {}
            Fixed::Folder(dir) if shown.iter().any(|r| dir.starts_with(r)) => roots.push(dir),
            // A glob above the shown roots (`~/**/*.pem`) reaches those below it.
            Fixed::Folder(dir) => roots.extend(
                shown
                    .iter()
                    .filter(|r| r.starts_with(&dir))
                    .map(|r| r.to_path_buf()),
            ),
        }
    }
    let found = guard
        .hidden_tree()
        .hidden(&roots, |path| guard.sensitive(path).is_some())
        .map_err(std::io::Error::other)?;
    let mut hidden = found.paths;
    hidden.extend(exact);
    hidden.sort();
    hidden.dedup();
    Ok(hidden)
}

/// The part of an absolute path glob before its first wildcard.
#[derive(Debug, PartialEq, Eq)]
enum Fixed {
    /// The glob has no wildcard: it names one path.
    Whole(PathBuf),
    /// The folder every match lies below.
    Folder(PathBuf),
}

fn fixed_part(glob: &str) -> Fixed {
    match glob.find(['*', '?', '[', '{', '\\']) {
        None => Fixed::Whole(PathBuf::from(glob)),
        Some(wild) => {
            let folder = glob[..wild]
                .rfind('/')
                .map_or("/", |slash| &glob[..slash.max(1)]);
            Fixed::Folder(PathBuf::from(folder))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixed_part_of_a_glob_is_the_path_or_the_folder_before_its_first_wildcard() {
        let cases = [
            ("/ws/secrets", Fixed::Whole("/ws/secrets".into())),
            ("/ws/secrets/**", Fixed::Folder("/ws/secrets".into())),
            ("/ws/**/*.pem", Fixed::Folder("/ws".into())),
            ("/ws/a/key-*.pem", Fixed::Folder("/ws/a".into())),
            ("/**/*.pem", Fixed::Folder("/".into())),
            ("/*.pem", Fixed::Folder("/".into())),
        ];
        for (glob, fixed) in cases {
            assert_eq!(fixed_part(glob), fixed, "{glob}");
        }
    }
}
