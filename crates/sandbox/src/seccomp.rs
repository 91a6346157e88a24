//! The network filter: a seccomp program that refuses to create any socket but a Unix one
//! (and `io_uring`, which can create sockets past the filter), with `EPERM`, so a tool says
//! "Operation not permitted" at once instead of timing out.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// The filter compiled for this machine, as the bytes bubblewrap's `--seccomp` reads (an array
/// of `struct sock_filter` in native byte order).
pub(crate) fn network_filter() -> Result<Vec<u8>, String> {
    let program = network_program()?;
    let mut bytes = Vec::with_capacity(program.len() * 8);
    for instruction in program {
        bytes.extend_from_slice(&instruction.code.to_ne_bytes());
        bytes.push(instruction.jt);
        bytes.push(instruction.jf);
        bytes.extend_from_slice(&instruction.k.to_ne_bytes());
    }
    Ok(bytes)
}

/// The filter compiled for this machine, as the instructions the native helper installs.
pub(crate) fn network_program() -> Result<BpfProgram, String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())?;
    let not_unix = SeccompCondition::new(
        0,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Ne,
        libc::AF_UNIX as u64,
    )
    .map_err(|e| e.to_string())?;
    let socket = SeccompRule::new(vec![not_unix]).map_err(|e| e.to_string())?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_socket, vec![socket]);
    // An empty rule list matches the syscall whatever its arguments.
    rules.insert(libc::SYS_io_uring_setup, vec![]);
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())
}

/// The filters that keep a command in its namespaces: no new user namespace (`clone` or
/// `unshare` with `CLONE_NEWUSER` refused with `EPERM`), without which it could make mount
/// and PID namespaces of its own; and `clone3`, whose flags a filter cannot read, answered
/// `ENOSYS`, so the C library falls back to `clone`.
pub(crate) fn namespace_programs() -> Result<[BpfProgram; 2], String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())?;
    let new_user = libc::CLONE_NEWUSER as u64;
    let asks_new_user = || -> Result<SeccompRule, String> {
        let flag = SeccompCondition::new(
            0,
            SeccompCmpArgLen::Qword,
            SeccompCmpOp::MaskedEq(new_user),
            new_user,
        )
        .map_err(|e| e.to_string())?;
        SeccompRule::new(vec![flag]).map_err(|e| e.to_string())
    };
    let mut refused: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    refused.insert(libc::SYS_unshare, vec![asks_new_user()?]);
    refused.insert(libc::SYS_clone, vec![asks_new_user()?]);
    let mut unknown: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    unknown.insert(libc::SYS_clone3, vec![]);
    let compile = |rules, errno: i32| -> Result<BpfProgram, String> {
        SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(errno as u32),
            arch,
        )
        .map_err(|e| e.to_string())?
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())
    };
    Ok([
        compile(refused, libc::EPERM)?,
        compile(unknown, libc::ENOSYS)?,
    ])
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_filter_compiles_to_whole_instructions() {
        let bytes = super::network_filter().unwrap();
        assert!(!bytes.is_empty());
        assert_eq!(bytes.len() % 8, 0);
    }
}
