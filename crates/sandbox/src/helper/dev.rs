//! `/proc` and `/dev` of the new root, as bubblewrap makes them.

use std::path::Path;

use nix::mount::{MsFlags, mount};

use super::Failure;
use super::mounts::{self, Access, Nodes};

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
            mounts::bind(&path, &path, Access::ReadOnly, Nodes::Refused)?;
        }
    }
    Ok(())
}

/// A minimal `/dev` at `dest`: a tmpfs with the harmless device nodes of `host_dev`, a private
/// `devpts`, the usual symlinks and an `shm` folder.
pub(super) fn dev(dest: &Path, host_dev: &Path) -> Result<(), Failure> {
    mounts::tmpfs(dest, "mode=0755")?;
    for node in NODES {
        let target = dest.join(node);
        mounts::bind(
            &host_dev.join(node),
            &target,
            Access::Writable,
            Nodes::Allowed,
        )?;
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
    )))
}
