//! One call: join the session's holder, build the view in a copy of its mount namespace,
//! lock down, run the command as a child and wait for it.
//!
//! What the command leaves running in the background (`server &`) stays in the holder's
//! namespaces, as confined as the command was, until it ends or rein does (the holder's end
//! ends its PID namespace); a timeout or cancellation kills it with the call's process group
//! and mark, as for an unconfined command.

use std::fs::File;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitCode, ExitStatus};

use nix::sys::signal::Signal;

use super::plan::Plan;
use super::{Failure, build, lockdown};

/// Runs `plan`'s command in its view and returns its status.
#[allow(clippy::disallowed_methods)] // the sandbox helper runs the confined program: this is the sandbox
pub(super) fn run(plan: &Plan) -> Result<ExitCode, Failure> {
    if plan.die_with_parent {
        nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)
            .map_err(Failure::context("cannot ask to die with the parent"))?;
    }
    let join = plan
        .join
        .ok_or_else(|| Failure::new("no namespace holder to join (--join)"))?;
    let (program, args) = plan
        .command
        .split_first()
        .ok_or_else(|| Failure::new("no command"))?;
    // Our own `/proc`, kept open to read our mount table and status once the view (with the
    // holder's `/proc`, where we are not) is our root.
    let host_proc = File::open("/proc").map_err(Failure::context("cannot open /proc"))?;
    join.enter(plan.unshare)?;
    build::build(plan, &host_proc)?;
    lockdown::apply(plan, &host_proc)?;
    let status = Command::new(program)
        .args(args)
        .status()
        .map_err(|err| Failure::exec(program, &err))?;
    Ok(exit_code(status))
}

/// The command's status as ours: its code, or its signal raised on ourselves (a shell then
/// reports the same death), else `128 + signal` as a shell would.
fn exit_code(status: ExitStatus) -> ExitCode {
    if let Some(code) = status.code() {
        return ExitCode::from(u8::try_from(code).unwrap_or(super::FAILED));
    }
    let signal = status.signal().unwrap_or(0);
    if let Ok(sig) = Signal::try_from(signal) {
        let _ = nix::sys::signal::raise(sig);
    }
    ExitCode::from(u8::try_from(128 + signal).unwrap_or(super::FAILED))
}
