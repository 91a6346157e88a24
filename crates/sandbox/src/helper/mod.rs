//! The native sandbox helper: builds the view a [`Wrapped`](crate::Wrapped) call's arguments
//! describe (the subset of bubblewrap's syntax `Sandbox::wrap` emits) with namespaces and
//! mounts made directly, then `exec`s the command. It is rein's own executable run again
//! (`rein __sandbox …`), so no process of rein's ever calls `unshare` while it has threads.
//!
//! Two stages, because a new PID namespace only applies to the children of the process that
//! asks for it:
//! 1. **Outside** ([`outside`]): `unshare` a user, mount, PID (and network) namespace, map the
//!    caller's uid and gid to themselves, and run stage 2 as a child; wait for it and exit with
//!    its status (128 + the signal when a signal ended it).
//! 2. **Inside** ([`inside`]), PID 1 of the new namespace: build the new root on a tmpfs from
//!    the operations in order, `pivot_root` into it, drop every capability
//!    ([`lockdown`]), set `no_new_privs`, install the network filter, and `exec` the command.
//!    When it exits, the kernel kills every process left in the namespace.
//!
//! Errors print one line `rein sandbox: …` on stderr and exit with [`FAILED`]; nothing panics.

mod dev;
mod inside;
mod lockdown;
mod mounts;
mod outside;
mod plan;

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::process::ExitCode;

/// The first argument that runs the helper's outer stage: `rein __sandbox <options> -- cmd…`.
pub const SUBCOMMAND: &str = "__sandbox";

/// The first argument of the inner stage, which the outer one runs.
const INSIDE: &str = "__sandbox-inside";

/// The exit status of a helper that failed before running the command.
pub const FAILED: u8 = 125;

/// Whether `word` (a binary's first argument) asks for the helper; such a binary calls
/// [`main`] before anything else.
pub fn is_subcommand(word: &OsStr) -> bool {
    word == SUBCOMMAND || word == INSIDE
}

/// Runs the helper with the binary's arguments after its name, the first of which is
/// [`SUBCOMMAND`] (or the inner stage's word). Returns only on failure or, in the outer
/// stage, with the command's status.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let mut args = args.into_iter();
    let stage = args.next();
    let rest: Vec<OsString> = args.collect();
    let result = match stage.as_deref().and_then(OsStr::to_str) {
        Some(SUBCOMMAND) => plan::Plan::parse(&rest).and_then(|plan| outside::run(&plan, &rest)),
        Some(INSIDE) => plan::Plan::parse(&rest).and_then(|plan| Err(inside::run(&plan))),
        _ => Err(Failure::new(format!(
            "the first argument must be {SUBCOMMAND}"
        ))),
    };
    match result {
        Ok(code) => code,
        Err(failure) => failure.exit(),
    }
}

/// Why the helper could not run the command: one line with context.
#[derive(Debug)]
pub(crate) struct Failure {
    message: String,
    code: u8,
}

impl Failure {
    /// A failure setting the sandbox up.
    fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            code: FAILED,
        }
    }

    /// The command itself could not be started: 127 when it is not there, else 126, as a
    /// shell says.
    fn exec(program: &OsStr, err: &std::io::Error) -> Self {
        let code = if err.kind() == std::io::ErrorKind::NotFound {
            127
        } else {
            126
        };
        Self {
            message: format!("cannot run {}: {err}", program.to_string_lossy()),
            code,
        }
    }

    /// A closure wrapping an error with what was being done.
    fn context<E: fmt::Display>(what: impl fmt::Display) -> impl FnOnce(E) -> Self {
        move |err| Self::new(format!("{what}: {err}"))
    }

    /// Prints the line and gives the status to exit with.
    fn exit(self) -> ExitCode {
        eprintln!("rein sandbox: {}", self.message);
        ExitCode::from(self.code)
    }
}
