//! The session's namespace holder: a user, network, PID and mount namespace made once per
//! rein process, which every call joins instead of making its own (a new network namespace
//! alone costs most of a millisecond, and a new PID namespace needs a second process stage
//! per call to mount its `/proc`).
//!
//! Two stages, run once: [`outer`] makes the user, network and PID namespaces and starts
//! [`init`], the PID namespace's first process, which makes the mount namespace with that
//! namespace's `/proc` and then waits. The holder lives while its standard input is open
//! (rein holds the other end): when rein exits or drops its sandbox, the init exits and the
//! kernel ends every process left in the namespace.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

use caps::{CapSet, Capability};
use nix::sched::{CloneFlags, unshare};
use nix::sys::signal::Signal;
use nix::sys::wait::waitpid;
use nix::unistd::{getgid, getuid};

use super::{Failure, dev, mounts};

/// The first argument of the holder's first stage.
pub const HOLD: &str = "__sandbox-hold";

/// The first argument of the holder's init.
pub(super) const HOLD_INIT: &str = "__sandbox-hold-init";

/// What the holder prints once it is ready, before the init's process number.
pub const READY: &str = "ready";

/// Stage 1: the namespaces, the identity mapping, and the init; prints `ready PID` (the init
/// as numbered outside) and waits for the init.
#[allow(clippy::disallowed_methods)] // the sandbox helper re-executes itself inside the namespaces
pub(super) fn outer() -> Result<ExitCode, Failure> {
    let (uid, gid) = (getuid(), getgid());
    unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNET | CloneFlags::CLONE_NEWPID)
        .map_err(Failure::context("cannot create namespaces (unshare)"))?;
    // Without `deny`, an unprivileged process may not write a gid map.
    for (file, text) in [
        ("/proc/self/setgroups", "deny".to_string()),
        ("/proc/self/uid_map", format!("{uid} {uid} 1")),
        ("/proc/self/gid_map", format!("{gid} {gid} 1")),
    ] {
        std::fs::write(file, text).map_err(Failure::context(format!("cannot write {file}")))?;
    }
    // The init mounts; run by a user other than root it would lose every capability at
    // `exec` without an ambient one.
    for set in [CapSet::Inheritable, CapSet::Ambient] {
        caps::raise(None, set, Capability::CAP_SYS_ADMIN).map_err(Failure::context(
            "cannot keep CAP_SYS_ADMIN for the holder's init",
        ))?;
    }
    let mut init = Command::new("/proc/self/exe")
        .arg(HOLD_INIT)
        .stdout(Stdio::piped())
        .spawn()
        .map_err(Failure::context("cannot start the holder's init"))?;
    let mut said = String::new();
    if let Some(out) = init.stdout.take() {
        // One line; the init writes nothing after it.
        let _ = BufReader::new(out).read_line(&mut said);
    }
    if said.trim() != READY {
        let _ = init.kill();
        let _ = init.wait();
        return Err(Failure::new("the holder's init did not start"));
    }
    let mut stdout = std::io::stdout();
    writeln!(stdout, "{READY} {}", init.id())
        .and_then(|()| stdout.flush())
        .map_err(Failure::context("cannot report the holder ready"))?;
    let _ = init.wait();
    Ok(ExitCode::SUCCESS)
}

/// Stage 2, PID 1 of the holder's PID namespace: a mount namespace with that namespace's
/// `/proc` (its machine-wide knobs read-only) and a minimal `/dev`, then reaping the orphans the namespace gets
/// until standard input closes.
pub(super) fn init() -> Result<ExitCode, Failure> {
    // Stage 1 only waits for us; if it is killed, so are we and the whole namespace.
    nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)
        .map_err(Failure::context("cannot ask to die with the parent"))?;
    unshare(CloneFlags::CLONE_NEWNS).map_err(Failure::context(
        "cannot create a mount namespace (unshare)",
    ))?;
    mounts::make_private()?;
    dev::proc(Path::new("/proc"))?;
    dev::dev(Path::new("/dev"))?;
    // The calls' commands see us in `/proc`: nothing of ours (root, descriptors, memory)
    // may be reachable from them, whatever their user.
    nix::sys::prctl::set_dumpable(false).map_err(Failure::context("cannot become undumpable"))?;
    let mut stdout = std::io::stdout();
    writeln!(stdout, "{READY}")
        .and_then(|()| stdout.flush())
        .map_err(Failure::context("cannot report ready"))?;
    // A call's process whose helper died is handed to us: reap it.
    std::thread::spawn(|| {
        loop {
            if waitpid(None, None).is_err() {
                std::thread::sleep(Duration::from_millis(200));
            }
        }
    });
    let mut sink = [0u8; 64];
    let mut stdin = std::io::stdin();
    while matches!(stdin.read(&mut sink), Ok(n) if n > 0) {}
    Ok(ExitCode::SUCCESS)
}
