//! The OS sandbox under rein's permission rules: a shell command runs inside a mount
//! namespace that shows only what its policy allows, with the network cut by a network
//! namespace and a seccomp filter.
//!
//! Why mount namespaces and not landlock alone: a `workspace-write` command must not change
//! `.git/hooks`, `.git/config`, `.rein/`, `.claude/` or `.mcp.json` inside the writable
//! workspace (a hook written there runs unconfined later). Landlock cannot make a read-only
//! hole inside a writable tree; a read-only bind mount can. A helper process sets the
//! namespace up and `exec`s the command (rein itself stays free of `unsafe` and `pre_exec`):
//! the native [`helper`] (rein's own executable run again as `rein __sandbox …`, with nix's
//! safe calls) or, without one, bubblewrap. Both read the same bubblewrap-style command line
//! ([`Sandbox::wrap`]); the seccomp program is compiled here with `seccompiler`, handed to
//! bubblewrap on a descriptor and installed by the helper itself.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use rein_sandbox::{Call, Policy, Sandbox, Settings};
//! let exe = std::env::current_exe()?;
//! let sandbox = Sandbox::detect_with_helper(Settings::default(), &exe)?;
//! let ws = std::path::Path::new("/work/project");
//! let tmp = std::path::Path::new("/tmp/call-1");
//! let call = Call { policy: Policy::WorkspaceWrite, workspace: ws, cwd: ws, tmp, hidden: &[] };
//! let wrapped = sandbox.wrap(&call)?;
//! let status = std::process::Command::new(&wrapped.program)
//!     .args(&wrapped.args)
//!     .args(["bash", "-c", "cargo test"])
//!     .status()?;
//! # Ok(()) }
//! ```
//!
//! What a policy shows (`view.rs`):
//! - system folders (`/usr`, `/etc`, `/opt`, …) read-only; `/proc`, a minimal `/dev`;
//! - a private, empty `/tmp` and the call's own temp folder;
//! - the workspace: read-only under [`Policy::ReadOnly`], writable under
//!   [`Policy::WorkspaceWrite`] except the agents' settings above and what git runs or
//!   trusts (`git/`: every git folder pinned, its hooks, config, `info`, `commondir`… and
//!   `core.hooksPath` read-only; where no mount can hold it, [`Unprotected`], the call is
//!   refused);
//! - read roots (toolchains: `~/.cargo`, `~/.rustup`, …) read-only, writable roots writable
//!   (`workspace-write` only);
//! - sensitive paths inside any of those hidden (an empty folder or file in their place);
//! - nothing else: the rest of the home folder, `/run` (and the sockets there), `/root` are
//!   simply not there.

#![deny(missing_docs)]

pub mod bounded;
mod git;
pub mod helper;
mod holder;
mod probe;
mod refusal;
#[cfg(target_os = "linux")]
mod seccomp;
mod settings;
mod view;

pub use git::{GitReport, Unprotected};
pub use probe::{Support, Unavailable};
pub use refusal::refusal_note;
pub use settings::{DEFAULT_READ_ROOTS, Policy, Settings, UnknownPolicy};
pub use view::{Call, PROTECTED, SOCKET_ENV, Wrapped};

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The program that builds a call's namespace and runs the command in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launcher {
    /// The native helper ([`helper`]) in this executable, run as `EXE __sandbox …`.
    Helper(PathBuf),
    /// bubblewrap.
    Bubblewrap(PathBuf),
}

impl fmt::Display for Launcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Helper(exe) if exe == Path::new("/proc/self/exe") => {
                write!(
                    f,
                    "native helper: this executable, run as {}",
                    helper::SUBCOMMAND
                )
            }
            Self::Helper(exe) => {
                write!(f, "native helper: {} {}", exe.display(), helper::SUBCOMMAND)
            }
            Self::Bubblewrap(bwrap) => write!(f, "bubblewrap at {}", bwrap.display()),
        }
    }
}

/// A working sandbox: a launcher found and tried on this machine, and the settings every
/// call is wrapped with.
#[derive(Debug)]
pub struct Sandbox {
    launcher: Launcher,
    settings: Settings,
    /// The compiled network filter, as the bytes bubblewrap reads (empty for the helper,
    /// which compiles its own).
    filter: Vec<u8>,
    /// The native helper's namespace holders (one per policy), which calls join.
    holders: Option<Mutex<holder::Holders>>,
}

impl Sandbox {
    /// Finds bubblewrap and checks that it can build a namespace here (a container may
    /// forbid it), with `settings` for every call. Costs one short process run.
    pub fn detect(settings: Settings) -> Result<Self, Unavailable> {
        let bwrap = probe::find_bwrap().ok_or(Unavailable::NoBubblewrap)?;
        Self::tried(Launcher::Bubblewrap(bwrap), settings)
    }

    /// Like [`detect`](Self::detect) with the native helper of executable `exe` (one whose
    /// `main` hands `__sandbox` to [`helper::main`]); bubblewrap when the helper cannot
    /// build a namespace here and bubblewrap can.
    pub fn detect_with_helper(settings: Settings, exe: &Path) -> Result<Self, Unavailable> {
        match Self::tried(Launcher::Helper(exe.to_path_buf()), settings.clone()) {
            Ok(sandbox) => Ok(sandbox),
            Err(why) => Self::detect(settings).map_err(|_| why),
        }
    }

    /// [`detect_with_helper`](Self::detect_with_helper) when `helper` names an executable,
    /// else [`detect`](Self::detect).
    pub fn find(settings: Settings, helper: Option<&Path>) -> Result<Self, Unavailable> {
        match helper {
            Some(exe) => Self::detect_with_helper(settings, exe),
            None => Self::detect(settings),
        }
    }

    /// The sandbox with `launcher` once a read-only run of `true` worked.
    fn tried(launcher: Launcher, settings: Settings) -> Result<Self, Unavailable> {
        // rein's sandbox is made of Linux namespaces and seccomp: nowhere else is one offered.
        if cfg!(not(target_os = "linux")) {
            return Err(Unavailable::Unsupported);
        }
        let (filter, holders) = match &launcher {
            Launcher::Helper(exe) => (Vec::new(), Some(Mutex::new(holder::Holders::new(exe)))),
            Launcher::Bubblewrap(_) => (network_filter()?, None),
        };
        let sandbox = Self {
            launcher,
            settings,
            filter,
            holders,
        };
        probe::try_run(&sandbox)?;
        Ok(sandbox)
    }

    /// The settings calls are wrapped with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// What builds the namespaces.
    pub fn launcher(&self) -> &Launcher {
        &self.launcher
    }

    /// After a `workspace-write` call in `workspace`: moves aside a `commondir` the command
    /// wrote into a main git folder (no mount can hold a name that does not exist yet) and
    /// returns a note for each.
    pub fn disarm_git(&self, workspace: &Path) -> Vec<String> {
        git::disarm(workspace, &self.settings.writable_roots)
    }

    /// What `workspace-write` holds still of git in `workspace`, for `rein sandbox check`.
    pub fn git_report(&self, workspace: &Path) -> GitReport {
        GitReport::new(workspace, &self.settings)
    }
}

/// The seccomp program bubblewrap installs (only Linux has seccomp).
#[cfg(target_os = "linux")]
fn network_filter() -> Result<Vec<u8>, Unavailable> {
    seccomp::network_filter().map_err(|e| Unavailable::Seccomp(e.to_string()))
}

#[cfg(not(target_os = "linux"))]
fn network_filter() -> Result<Vec<u8>, Unavailable> {
    Err(Unavailable::Unsupported)
}
