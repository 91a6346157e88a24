//! The call's view, built in its own copy of the holder's mount namespace: the new root
//! built from the plan's steps, then entered.
//!
//! The steps run with the old root at `/oldroot` and the new one at `/newroot`, both on a
//! tmpfs mounted over `/tmp` and made the root by a first `pivot_root`: sources are read from
//! `/oldroot/SRC`, destinations made at `/newroot/DEST`. A second `pivot_root` makes
//! `/newroot` the root and the old one is detached, so nothing outside the view stays
//! reachable.

use std::fs::File;
use std::path::{Path, PathBuf};

use nix::mount::{MntFlags, umount2};
use nix::unistd::pivot_root;

use super::Failure;
use super::dev;
use super::mounts::{self, Access};
use super::plan::{Op, Plan};

/// The folder the building tmpfs covers (its contents stay untouched outside).
const BASE: &str = "/tmp";
/// The old root, seen from the building tmpfs.
const OLD: &str = "/oldroot";
/// The new root, seen from the building tmpfs.
const NEW: &str = "/newroot";

/// Everything up to and including the switch to the new root and the start folder, in the
/// call's own mount namespace.
/// `proc` is `/proc` as this process knows it (not the holder's, where it does not appear).
pub(super) fn build(plan: &Plan, proc: &File) -> Result<(), Failure> {
    mounts::make_private()?;
    mounts::tmpfs(Path::new(BASE), "mode=0755")?;
    let base = Path::new(BASE);
    let (new, old) = (base.join("newroot"), base.join("oldroot"));
    for dir in [&new, &old] {
        std::fs::create_dir(dir)
            .map_err(Failure::context(format!("cannot create {}", dir.display())))?;
    }
    // `pivot_root` needs the new root to be a mount point.
    mounts::rec_bind(&new, &new).map_err(Failure::context("cannot bind the new root"))?;
    pivot_root(base, &old).map_err(Failure::context("cannot pivot to the building root"))?;
    std::env::set_current_dir("/").map_err(Failure::context("cannot enter the building root"))?;
    for op in &plan.ops {
        apply(op)?;
    }
    lock_submounts(&plan.ops, proc)?;
    enter_new_root()?;
    let start = plan.chdir.as_deref().unwrap_or(Path::new("/"));
    std::env::set_current_dir(start).map_err(Failure::context(format!(
        "cannot start in {}",
        start.display()
    )))
}

/// One step, with sources in the old root and destinations in the new one.
fn apply(op: &Op) -> Result<(), Failure> {
    match op {
        // The holder's `/proc`: only its PID namespace can mount one that shows the call.
        Op::Proc(dest) => mounts::bind_as_is(&inside(OLD, Path::new("/proc")), &inside(NEW, dest)),
        Op::Dev(dest) => dev::call_dev(&inside(OLD, Path::new("/dev")), &inside(NEW, dest)),
        Op::RoBind(src, dest) => {
            mounts::bind(&inside(OLD, src), &inside(NEW, dest), Access::ReadOnly)
        }
        Op::Bind(src, dest) => {
            mounts::bind(&inside(OLD, src), &inside(NEW, dest), Access::Writable)
        }
        Op::Symlink(target, link) => symlink(target, &inside(NEW, link)),
        Op::Tmpfs(dest) => mounts::tmpfs(&inside(NEW, dest), "mode=0755"),
        Op::RemountRo(dest) => mounts::restrict(&inside(NEW, dest), Access::ReadOnly),
    }
}

/// `path` (absolute, checked when the plan was read) under `root`.
fn inside(root: &str, path: &Path) -> PathBuf {
    Path::new(root).join(path.strip_prefix("/").unwrap_or(path))
}

/// Creates `link` pointing at `target` (and its parents); an identical link already there is
/// fine.
fn symlink(target: &Path, link: &Path) -> Result<(), Failure> {
    let what = || format!("cannot create the symlink {}", link.display());
    if let Some(parent) = link.parent() {
        std::fs::create_dir_all(parent).map_err(Failure::context(what()))?;
    }
    match std::os::unix::fs::symlink(target, link) {
        Err(err) if std::fs::read_link(link).ok().as_deref() != Some(target) => {
            Err(Failure::context(what())(err))
        }
        _ => Ok(()),
    }
}

/// Makes every mount below a read-only bind read-only as well (the bind's submounts: `/etc`'s
/// `resolv.conf` in a container, a home on another disk), reading the mount table once. A
/// mount is governed by the last step whose destination holds it; only those governed by a
/// read-only bind, other than that bind's own mount, are remounted.
fn lock_submounts(ops: &[Op], proc: &File) -> Result<(), Failure> {
    let text = mounts::read_at(proc, "self/mountinfo")
        .map_err(Failure::context("cannot read /proc/self/mountinfo"))?;
    for point in mounts::mount_points(&text) {
        let Ok(relative) = point.strip_prefix(NEW) else {
            continue;
        };
        let dest = Path::new("/").join(relative);
        let governing = ops
            .iter()
            .rev()
            .find(|op| op.mount_point().is_some_and(|m| dest.starts_with(m)));
        if let Some(Op::RoBind(_, bound)) = governing
            && *bound != dest
        {
            mounts::restrict(&point, Access::ReadOnly)?;
        }
    }
    Ok(())
}

/// Makes the new root `/` and detaches the building root with the old one under it.
fn enter_new_root() -> Result<(), Failure> {
    std::env::set_current_dir(NEW).map_err(Failure::context("cannot enter the new root"))?;
    pivot_root(".", ".").map_err(Failure::context("cannot pivot to the new root"))?;
    umount2(".", MntFlags::MNT_DETACH).map_err(Failure::context("cannot detach the old root"))?;
    std::env::set_current_dir("/").map_err(Failure::context("cannot enter the new root"))
}
