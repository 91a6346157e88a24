//! Stage 1, outside the sandbox: new namespaces, the identity mapping, and stage 2 as the
//! first process of the new PID namespace.

use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitCode};

use nix::sched::{CloneFlags, unshare};
use nix::sys::signal::Signal;
use nix::unistd::{getgid, getuid};

use super::plan::Plan;
use super::{Failure, INSIDE};

/// Creates the namespaces `plan` asks for, runs stage 2 with `args` in them and returns its
/// status.
pub(super) fn run(plan: &Plan, args: &[OsString]) -> Result<ExitCode, Failure> {
    if plan.die_with_parent {
        nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)
            .map_err(Failure::context("cannot ask to die with the parent"))?;
    }
    let (uid, gid) = (getuid(), getgid());
    let mut flags = CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNS;
    if plan.unshare.pid {
        flags |= CloneFlags::CLONE_NEWPID;
    }
    if plan.unshare.net {
        flags |= CloneFlags::CLONE_NEWNET;
    }
    unshare(flags).map_err(Failure::context("cannot create namespaces (unshare)"))?;
    // Without `deny`, an unprivileged process may not write a gid map.
    for (file, text) in [
        ("/proc/self/setgroups", "deny".to_string()),
        ("/proc/self/uid_map", format!("{uid} {uid} 1")),
        ("/proc/self/gid_map", format!("{gid} {gid} 1")),
    ] {
        std::fs::write(file, text).map_err(Failure::context(format!("cannot write {file}")))?;
    }
    // This very executable, whatever happened to its path since it started.
    let status = Command::new("/proc/self/exe")
        .arg(INSIDE)
        .args(args)
        .status()
        .map_err(Failure::context("cannot start the sandbox's first process"))?;
    let code = match (status.code(), status.signal()) {
        (Some(code), _) => code,
        (None, Some(signal)) => 128 + signal,
        (None, None) => i32::from(super::FAILED),
    };
    Ok(ExitCode::from(u8::try_from(code).unwrap_or(super::FAILED)))
}
