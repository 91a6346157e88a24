//! `/proc` and `/dev` as bubblewrap makes them, made once in the holder's mount namespace
//! and shown by every call's view.

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;

use nix::fcntl::{OFlag, open};
use nix::mount::{MsFlags, mount};
use nix::sys::stat::Mode;

use super::Failure;
use super::mounts::{self, Access};

/// Entries of `/proc` where a write reaches the whole machine: covered read-only, since a
/// process of rein run as root is root to their permission checks, namespace or not.
const PROC_COVERED: &[&str] = &["sys", "sysrq-trigger", "irq", "bus"];

/// The device nodes shown, bound from the host's `/dev`.
const NODES: &[&str] = &["null", "zero", "full", "random", "urandom", "tty"];

/// The symlinks of `/dev`.
const LINKS: &[(&str, &str)] = &[
    ("fd", "/proc/self/fd"),
    ("stdin", "/proc/self/fd/0"),
    ("stdout", "/proc/self/fd/1"),
    ("stderr", "/proc/self/fd/2"),
    ("ptmx", "pts/ptmx"),
];

/// Mounts the (new PID namespace's) `proc` at `dest`, its machine-wide knobs read-only.
pub(super) fn proc(dest: &Path) -> Result<(), Failure> {
    let what = || format!("cannot mount proc at {}", dest.display());
    std::fs::create_dir_all(dest).map_err(Failure::context(what()))?;
    mount(
        Some("proc"),
        dest,
        Some("proc"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
        None::<&str>,
    )
    .map_err(Failure::context(what()))?;
    for name in PROC_COVERED {
        let path = dest.join(name);
        if path.exists() {
            mounts::bind(&path, &path, Access::ReadOnly)?;
        }
    }
    Ok(())
}

/// A minimal `/dev` over `dest` (the holder's own `/dev`, which every call shows): a tmpfs
/// with the harmless device nodes found there, a private `devpts`, the usual symlinks and an
/// `shm` folder (each call mounts its own tmpfs there); read-only once made.
pub(super) fn dev(dest: &Path) -> Result<(), Failure> {
    // Held by descriptor: the tmpfs is about to cover them.
    let nodes: Vec<(&str, OwnedFd)> = NODES
        .iter()
        .filter_map(|name| {
            let path = dest.join(name);
            let fd = open(&path, OFlag::O_PATH | OFlag::O_CLOEXEC, Mode::empty()).ok()?;
            Some((*name, fd))
        })
        .collect();
    mounts::tmpfs(dest, "mode=0755")?;
    for (name, fd) in &nodes {
        let target = dest.join(name);
        std::fs::File::create(&target).map_err(Failure::context(format!(
            "cannot create {}",
            target.display()
        )))?;
        let source = format!("/proc/self/fd/{}", fd.as_raw_fd());
        mount(
            Some(source.as_str()),
            &target,
            None::<&str>,
            MsFlags::MS_BIND,
            None::<&str>,
        )
        .map_err(Failure::context(format!(
            "cannot bind {}",
            target.display()
        )))?;
    }
    for (link, target) in LINKS {
        std::os::unix::fs::symlink(target, dest.join(link)).map_err(Failure::context(format!(
            "cannot create {}/{link}",
            dest.display()
        )))?;
    }
    let pts = dest.join("pts");
    for dir in [dest.join("shm"), pts.clone()] {
        std::fs::create_dir(&dir)
            .map_err(Failure::context(format!("cannot create {}", dir.display())))?;
    }
    mount(
        Some("devpts"),
        &pts,
        Some("devpts"),
        MsFlags::MS_NOSUID | MsFlags::MS_NOEXEC,
        Some("newinstance,ptmxmode=0666,mode=620"),
    )
    .map_err(Failure::context(format!(
        "cannot mount devpts at {}",
        pts.display()
    )))?;
    mounts::restrict(dest, Access::ReadOnly)
}

/// A call's `/dev` at `dest`: the holder's (`holder_dev`, with everything mounted in it) and a
/// private, writable `shm`.
pub(super) fn call_dev(holder_dev: &Path, dest: &Path) -> Result<(), Failure> {
    mounts::bind_as_is(holder_dev, dest)?;
    mounts::tmpfs(&dest.join("shm"), "mode=1777")
}
