//! The last steps before the command starts: no capability can come back, no privilege can
//! be gained, no namespace can be made, and the network filter is in place.
//!
//! Inside its user namespace the helper holds every capability, and when rein runs as root the
//! command runs as uid 0 there, so an `exec` would hand them all back (enough to `umount` the
//! read-only binds over `.git/hooks`). Emptying the bounding, inheritable and ambient sets
//! leaves an `exec`ed program none, whatever its uid.

use std::fs::File;

use caps::CapSet;

use super::Failure;
use super::plan::Plan;
use crate::seccomp::Network;

/// Drops every capability for good, sets `no_new_privs`, installs the filters that keep the
/// command in its namespaces, and the network filter when `plan` asks for it.
/// `proc` is `/proc` as this process knows it.
pub(super) fn apply(plan: &Plan, proc: &File) -> Result<(), Failure> {
    for set in [CapSet::Bounding, CapSet::Ambient, CapSet::Inheritable] {
        caps::clear(None, set).map_err(Failure::context(format!(
            "cannot clear the {set:?} capabilities"
        )))?;
    }
    check_bounding_set(proc)?;
    nix::sys::prctl::set_no_new_privs().map_err(Failure::context("cannot set no_new_privs"))?;
    let network = if plan.network_filter {
        Network::Refused
    } else {
        Network::Allowed
    };
    let programs = crate::seccomp::helper_programs(network)
        .map_err(Failure::context("cannot build the seccomp filters"))?;
    for program in &programs {
        seccompiler::apply_filter(program)
            .map_err(Failure::context("cannot install the seccomp filters"))?;
    }
    Ok(())
}

/// Fails when the kernel knows a capability the `caps` crate does not (it only drops those it
/// knows), read from our `/proc/self/status`.
fn check_bounding_set(proc: &File) -> Result<(), Failure> {
    let status = super::mounts::read_at(proc, "self/status")
        .map_err(Failure::context("cannot read /proc/self/status"))?;
    let bounding = status
        .lines()
        .find_map(|line| line.strip_prefix("CapBnd:"))
        .map(str::trim);
    match bounding {
        Some(mask) if mask.bytes().all(|b| b == b'0') => Ok(()),
        other => Err(Failure::new(format!(
            "capabilities left in the bounding set: {}",
            other.unwrap_or("unknown")
        ))),
    }
}
