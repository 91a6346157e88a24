//! The OS sandbox under rein's permission rules: a shell command runs inside a bubblewrap
//! mount namespace that shows only what its policy allows, with the network cut by a network
//! namespace and a seccomp filter.
//!
//! Why bubblewrap and not landlock alone: a `workspace-write` command must not change
//! `.git/hooks`, `.git/config`, `.rein/`, `.claude/` or `.mcp.json` inside the writable
//! workspace (a hook written there runs unconfined later). Landlock cannot make a read-only
//! hole inside a writable tree; a read-only bind mount can. bubblewrap is the helper process
//! that sets the namespace up and `exec`s the command (rein itself stays free of `unsafe` and
//! `pre_exec`); the seccomp program is compiled here with `seccompiler` and handed to it on a
//! descriptor.
//!
//! What a policy shows ([`view`]):
//! - system folders (`/usr`, `/etc`, `/opt`, …) read-only; `/proc`, a minimal `/dev`;
//! - a private, empty `/tmp` and the call's own temp folder;
//! - the workspace: read-only under [`Policy::ReadOnly`], writable under
//!   [`Policy::WorkspaceWrite`] except the protected paths above;
//! - read roots (toolchains: `~/.cargo`, `~/.rustup`, …) read-only, writable roots writable
//!   (`workspace-write` only);
//! - sensitive paths inside any of those hidden (an empty folder or file in their place);
//! - nothing else: the rest of the home folder, `/run` (and the sockets there), `/root` are
//!   simply not there.

mod probe;
mod refusal;
mod seccomp;
mod settings;
mod view;

pub use probe::{Support, Unavailable};
pub use refusal::refusal_note;
pub use settings::{DEFAULT_READ_ROOTS, Policy, Settings};
pub use view::{Call, PROTECTED, SOCKET_ENV, Wrapped};

use std::path::PathBuf;

/// A working sandbox: bubblewrap found and tried on this machine, and the settings every
/// call is wrapped with.
#[derive(Debug)]
pub struct Sandbox {
    bwrap: PathBuf,
    settings: Settings,
    /// The compiled network filter, as the bytes bubblewrap reads.
    filter: Vec<u8>,
}

impl Sandbox {
    /// Finds bubblewrap and checks that it can build a namespace here (a container may
    /// forbid it), with `settings` for every call. Costs one short process run.
    pub fn detect(settings: Settings) -> Result<Self, Unavailable> {
        let bwrap = probe::find_bwrap().ok_or(Unavailable::NoBubblewrap)?;
        let filter = seccomp::network_filter().map_err(Unavailable::Seccomp)?;
        let sandbox = Self {
            bwrap,
            settings,
            filter,
        };
        probe::try_run(&sandbox)?;
        Ok(sandbox)
    }

    /// The settings calls are wrapped with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Where bubblewrap is.
    pub fn bwrap(&self) -> &std::path::Path {
        &self.bwrap
    }
}
