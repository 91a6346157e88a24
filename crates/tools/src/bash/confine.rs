//! Which OS sandbox policy a `bash` call runs under, and the command that runs it there.

use std::path::{Path, PathBuf};

use command_fds::FdMapping;
use rein_sandbox::{Call, Policy};
use tokio::process::Command;

use crate::ToolContext;

/// The policy for a call: none when the user approved running it unsandboxed; `read-only`
/// for a line proven read-only (defence in depth for the classifier); else the session's.
/// A sandbox this machine lacks confines nothing for a proven line (rein warned at start);
/// a session policy it lacks is an error.
pub(super) fn policy(unsandboxed: bool, proven: bool, ctx: &ToolContext) -> Result<Policy, String> {
    if unsandboxed {
        return Ok(Policy::Off);
    }
    let wanted = if proven {
        ctx.sandbox_policy.stricter(Policy::ReadOnly)
    } else {
        ctx.sandbox_policy
    };
    match (&ctx.sandbox, ctx.sandbox_policy) {
        (Some(_), _) => Ok(wanted),
        (None, Policy::Off) => Ok(Policy::Off),
        (None, required) => Err(format!(
            "not run: the {required} sandbox is required but unavailable on this machine \
             (see `rein sandbox check`)"
        )),
    }
}

/// `bash`, or the sandbox's launcher (rein's native helper or bubblewrap) running `bash`
/// under `policy`; a seccomp program's descriptor (bubblewrap's) is added to `mappings`.
pub(super) fn command(
    policy: Policy,
    ctx: &ToolContext,
    start: &Path,
    tmp: &Path,
    mappings: &mut Vec<FdMapping>,
) -> std::io::Result<Command> {
    let Some(sandbox) = ctx.sandbox.as_ref().filter(|_| policy != Policy::Off) else {
        return Ok(Command::new("bash"));
    };
    let hidden = hidden_here(ctx, start);
    let call = Call {
        policy,
        workspace: ctx.guard.root(),
        cwd: start,
        tmp,
        hidden: &hidden,
    };
    let wrapped = sandbox.wrap(&call)?;
    let mut command = Command::new(&wrapped.program);
    command.args(&wrapped.args).arg("bash");
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

/// Under `workspace-write`: a `commondir` the command wrote into the repository's `.git`
/// moved aside (no mount can hold a name that does not exist yet), with a note for each.
pub(super) fn disarm_git(policy: Policy, ctx: &ToolContext) -> Vec<String> {
    match &ctx.sandbox {
        Some(sandbox) if policy == Policy::WorkspaceWrite => sandbox.disarm_git(ctx.guard.root()),
        _ => Vec::new(),
    }
}

/// Sensitive entries (`.env`…) of the workspace root and the start folder, to hide. Deeper
/// ones are the permission rules' to refuse: listing the whole tree per call costs too much.
fn hidden_here(ctx: &ToolContext, start: &Path) -> Vec<PathBuf> {
    let root = ctx.guard.root();
    let mut dirs = vec![root];
    if start != root {
        dirs.push(start);
    }
    dirs.into_iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flat_map(|entries| entries.filter_map(Result::ok).map(|e| e.path()))
        .filter(|path| ctx.guard.sensitive(path).is_some())
        .collect()
}
