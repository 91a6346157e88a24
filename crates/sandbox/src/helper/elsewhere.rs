//! The helper on systems other than Linux: the same words, and a clear failure, since rein's
//! sandbox is made of Linux namespaces, mounts and seccomp. `Sandbox::detect` never offers it
//! there, so these run only when someone calls `rein __sandbox` by hand.

/// What the helper says where it cannot build a sandbox.
const NO_SANDBOX: &str =
    "rein has no OS sandbox on this system yet (it is built from Linux namespaces and seccomp)";

pub(super) mod hold {
    use std::process::ExitCode;

    use super::super::Failure;

    /// The holder's first argument (as on Linux).
    pub const HOLD: &str = "__sandbox-hold";
    /// The holder's second stage (as on Linux).
    pub const HOLD_INIT: &str = "__sandbox-hold-init";
    /// What a ready holder prints (as on Linux).
    pub const READY: &str = "ready";

    pub(in super::super) fn outer() -> Result<ExitCode, Failure> {
        Err(Failure::new(super::NO_SANDBOX))
    }

    pub(in super::super) fn init() -> Result<ExitCode, Failure> {
        Err(Failure::new(super::NO_SANDBOX))
    }
}

impl super::plan::Join {
    /// Never: there are no namespaces to join.
    pub fn of(_pid: u32) -> std::io::Result<Self> {
        Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            NO_SANDBOX,
        ))
    }
}

pub(super) mod run {
    use std::process::ExitCode;

    use super::super::Failure;
    use super::super::plan::Plan;

    pub(in super::super) fn run(_plan: &Plan) -> Result<ExitCode, Failure> {
        Err(Failure::new(super::NO_SANDBOX))
    }
}
