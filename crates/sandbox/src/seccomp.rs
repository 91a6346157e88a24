//! The seccomp programs. The network filter refuses to create any socket but a Unix one (and
//! `io_uring`, which can create sockets past the filter), with `EPERM`, so a tool says
//! "Operation not permitted" at once instead of timing out; bubblewrap gets it as bytes. The
//! native helper also refuses new user namespaces ([`helper_programs`]).

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// Why a seccomp program could not be built for this machine, as seccompiler says it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SeccompError {
    /// A rule or filter this machine's backend refused.
    #[error(transparent)]
    Backend(#[from] seccompiler::BackendError),
    /// An architecture seccompiler does not know.
    #[error(transparent)]
    Arch(#[from] seccompiler::Error),
}

/// The filter compiled for this machine, as the bytes bubblewrap's `--seccomp` reads (an array
/// of `struct sock_filter` in native byte order).
pub(crate) fn network_filter() -> Result<Vec<u8>, SeccompError> {
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

/// The network filter alone, as the instructions bubblewrap gets.
fn network_program() -> Result<BpfProgram, SeccompError> {
    let mut rules = BTreeMap::new();
    network_rules(&mut rules)?;
    compile(rules, libc::EPERM)
}

/// What the network filter refuses: a socket of any family but `AF_UNIX`, and `io_uring`.
fn network_rules(rules: &mut BTreeMap<i64, Vec<SeccompRule>>) -> Result<(), SeccompError> {
    let not_unix = SeccompCondition::new(
        0,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Ne,
        libc::AF_UNIX as u64,
    )?;
    let socket = SeccompRule::new(vec![not_unix])?;
    rules.insert(libc::SYS_socket, vec![socket]);
    // An empty rule list matches the syscall whatever its arguments.
    rules.insert(libc::SYS_io_uring_setup, vec![]);
    Ok(())
}

/// Whether the helper's filters refuse the network too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Network {
    /// Sockets of every family may be made.
    Allowed,
    /// The network filter's rules are added.
    Refused,
}

/// The native helper's filters: new user namespaces refused (`clone` or `unshare` with
/// `CLONE_NEWUSER`, `EPERM`), without which a command could make mount and PID namespaces of
/// its own, plus the network filter's rules with [`Network::Refused`]; and `clone3`, whose
/// flags a filter cannot read, answered `ENOSYS`, so the C library falls back to `clone`.
pub(crate) fn helper_programs(network: Network) -> Result<[BpfProgram; 2], SeccompError> {
    let new_user = libc::CLONE_NEWUSER as u64;
    let asks_new_user = || -> Result<SeccompRule, SeccompError> {
        let flag = SeccompCondition::new(
            0,
            SeccompCmpArgLen::Qword,
            SeccompCmpOp::MaskedEq(new_user),
            new_user,
        )?;
        Ok(SeccompRule::new(vec![flag])?)
    };
    let mut refused = BTreeMap::new();
    refused.insert(libc::SYS_unshare, vec![asks_new_user()?]);
    refused.insert(libc::SYS_clone, vec![asks_new_user()?]);
    if network == Network::Refused {
        network_rules(&mut refused)?;
    }
    let mut unknown = BTreeMap::new();
    unknown.insert(libc::SYS_clone3, vec![]);
    Ok([
        compile(refused, libc::EPERM)?,
        compile(unknown, libc::ENOSYS)?,
    ])
}

/// `rules` as a program for this machine that fails the calls they match with `errno`.
fn compile(rules: BTreeMap<i64, Vec<SeccompRule>>, errno: i32) -> Result<BpfProgram, SeccompError> {
    let arch = TargetArch::try_from(std::env::consts::ARCH)?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        arch,
    )?;
    Ok(filter.try_into()?)
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
