//! The native sandbox helper: builds the view a [`Wrapped`](crate::Wrapped) call's arguments
//! describe (the subset of bubblewrap's syntax `Sandbox::wrap` emits) with namespaces and
//! mounts made directly, then runs the command. It is rein's own executable run again
//! (`rein __sandbox …`), so no process of rein's ever calls `unshare` or `setns` while it has
//! threads.
//!
//! - **The holder** (`hold.rs`), once per rein process and policy: a user, network and PID
//!   namespace and a mount namespace with that PID namespace's `/proc`, kept alive while rein is.
//! - **A call** (`run.rs`): join the holder's namespaces (checked by inode, `ns.rs`), copy its
//!   mount namespace, build the view on a tmpfs and `pivot_root` into it (`build.rs`), drop
//!   every capability, set `no_new_privs` and install the seccomp filters (`lockdown.rs`),
//!   then run the command as a child and wait for it. One process stage per call: the
//!   command's parent is the helper.
//!
//! Errors print one line `rein sandbox: …` on stderr and exit with [`FAILED`]; nothing panics.

#![cfg_attr(not(target_os = "linux"), allow(dead_code))]

#[cfg(target_os = "linux")]
mod build;
#[cfg(target_os = "linux")]
mod dev;
#[cfg(target_os = "linux")]
mod hold;
#[cfg(target_os = "linux")]
mod lockdown;
#[cfg(target_os = "linux")]
mod mounts;
#[cfg(target_os = "linux")]
mod ns;
mod plan;
#[cfg(target_os = "linux")]
mod run;

// Elsewhere the helper's words are known but it builds nothing: rein's sandbox is made of
// Linux namespaces, mounts and seccomp.
#[cfg(not(target_os = "linux"))]
mod elsewhere;
#[cfg(not(target_os = "linux"))]
use elsewhere::{hold, run};

pub use hold::{HOLD, READY};
pub use plan::Join;

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::process::ExitCode;

/// The first argument that runs the helper's outer stage: `rein __sandbox <options> -- cmd…`.
pub const SUBCOMMAND: &str = "__sandbox";

/// The exit status of a helper that failed before running the command.
pub const FAILED: u8 = 125;

/// Whether `word` (a binary's first argument) asks for the helper; such a binary calls
/// [`main`] before anything else.
pub fn is_subcommand(word: &OsStr) -> bool {
    word == SUBCOMMAND || word == HOLD || word == hold::HOLD_INIT
}

/// Runs the helper with the binary's arguments after its name, the first of which is
/// [`SUBCOMMAND`] (or the holder's words). Returns the command's status, or the helper's
/// own on failure.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let mut args = args.into_iter();
    let stage = args.next();
    let rest: Vec<OsString> = args.collect();
    let result = match stage.as_deref().and_then(OsStr::to_str) {
        Some(SUBCOMMAND) => plan::Plan::parse(&rest).and_then(|plan| run::run(&plan)),
        Some(HOLD) => hold::outer(),
        Some(hold::HOLD_INIT) => hold::init(),
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
