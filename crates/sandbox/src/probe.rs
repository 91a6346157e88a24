//! Whether this machine can sandbox: the native helper or bubblewrap, allowed to build
//! namespaces.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use command_fds::{CommandFdExt, FdMapping};

use crate::{Call, Policy, Sandbox};

/// Why commands cannot be sandboxed here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unavailable {
    /// No `bwrap` on `PATH`.
    NoBubblewrap,
    /// The seccomp program could not be built for this machine.
    Seccomp(String),
    /// The launcher is there but failed (a container forbidding namespaces, an old kernel).
    Fails(String),
    /// Not on Linux: rein's sandbox is made of Linux namespaces and seccomp.
    Unsupported,
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoBubblewrap => write!(
                f,
                "bubblewrap (bwrap) is not installed; install it (Debian/Ubuntu: apt-get \
                 install bubblewrap; Fedora: dnf install bubblewrap)"
            ),
            Self::Seccomp(why) => write!(f, "the seccomp network filter cannot be built: {why}"),
            Self::Fails(why) => write!(
                f,
                "no sandbox can be built here (a container or kernel that forbids user \
                 namespaces?): {why}"
            ),
            Self::Unsupported => write!(
                f,
                "rein has no OS sandbox on this operating system yet (it is built from Linux \
                 namespaces and seccomp)"
            ),
        }
    }
}

impl std::error::Error for Unavailable {}

/// What `rein sandbox check` prints: whether restricted policies work here, and with what.
#[derive(Debug)]
pub struct Support {
    /// The sandbox, or why there is none.
    pub sandbox: Result<Sandbox, Unavailable>,
}

impl Support {
    /// Detects the sandbox with `settings`, with the native helper of `helper` when given.
    pub fn check(settings: crate::Settings, helper: Option<&Path>) -> Self {
        Self {
            sandbox: Sandbox::find(settings, helper),
        }
    }
}

impl fmt::Display for Support {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sandbox = match &self.sandbox {
            Ok(sandbox) => sandbox,
            Err(why) => {
                writeln!(f, "sandbox: unavailable: {why}")?;
                writeln!(
                    f,
                    "  read-only and workspace-write cannot be enforced; commands run unconfined"
                )?;
                return writeln!(f, "  --permission-mode auto refuses to start");
            }
        };
        let settings = sandbox.settings();
        writeln!(f, "sandbox: available ({})", sandbox.launcher())?;
        writeln!(
            f,
            "  file system: mount namespace (read-only binds, hidden sensitive paths)"
        )?;
        let network = if settings.network {
            "allowed (config sandbox_settings.network = true)"
        } else {
            "off (network namespace + seccomp: only Unix sockets)"
        };
        writeln!(f, "  network: {network}")?;
        let list = |paths: &[PathBuf]| {
            let shown: Vec<String> = paths
                .iter()
                .filter(|p| p.exists())
                .map(|p| p.display().to_string())
                .collect();
            if shown.is_empty() {
                "(none)".to_string()
            } else {
                shown.join(", ")
            }
        };
        writeln!(f, "  read roots: {}", list(&settings.read_roots))?;
        writeln!(f, "  writable roots: {}", list(&settings.writable_roots))?;
        writeln!(
            f,
            "  protected in the workspace: {}",
            crate::PROTECTED.join(", ")
        )
    }
}

/// The first `bwrap` on `PATH`.
#[allow(clippy::disallowed_methods)] // PATH to find bubblewrap, as the shell would
pub(crate) fn find_bwrap() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("bwrap"))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

/// Runs `true` the way a read-only call runs, to learn whether the launcher works here.
#[allow(clippy::disallowed_methods)] // the probe runs the sandbox it tests
pub(crate) fn try_run(sandbox: &Sandbox) -> Result<(), Unavailable> {
    let fails = |why: String| Unavailable::Fails(why);
    let dir = std::env::temp_dir();
    let call = Call {
        policy: Policy::ReadOnly,
        workspace: &dir,
        cwd: &dir,
        tmp: &dir,
        hidden: &[],
    };
    let wrapped = sandbox.wrap(&call).map_err(|e| fails(e.to_string()))?;
    let mut command = Command::new(&wrapped.program);
    command
        .args(&wrapped.args)
        .arg("true")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(filter) = wrapped.filter {
        command
            .fd_mappings(vec![FdMapping {
                parent_fd: filter,
                child_fd: wrapped.filter_fd,
            }])
            .map_err(|e| fails(e.to_string()))?;
    }
    let output = command.output().map_err(|e| fails(e.to_string()))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    Err(fails(format!(
        "{} exited with {}: {}",
        sandbox.launcher(),
        output.status,
        stderr.trim()
    )))
}
