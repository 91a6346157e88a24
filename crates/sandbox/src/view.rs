//! The bubblewrap-style command line for one call (read by bubblewrap or the native helper):
//! what the command sees of the file system, and whether it has a network.

use std::ffi::OsString;
use std::io::{self, Write};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use crate::{Launcher, Policy, Sandbox};

/// System folders shown read-only when they exist (a symlink, as `/bin` → `usr/bin` on a
/// merged-`/usr` system, is recreated as the same symlink). Not `/sys`: its dozen cgroup
/// submounts make the bind cost more than anything a build reads there is worth.
const SYSTEM: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix",
];

/// Paths inside the workspace a `workspace-write` command may read but not change: git's hooks
/// and config (a hook or `core.fsmonitor` runs code at the next `git` call; the `git` module
/// holds these and everything else git trusts), and the agents' own settings (they grant
/// permissions and start MCP servers).
pub const PROTECTED: &[&str] = &[".git/hooks", ".git/config", ".rein", ".claude", ".mcp.json"];

/// The agents' settings of [`PROTECTED`]; git's are planned by `git::plan`.
const AGENT_SETTINGS: &[&str] = &[".rein", ".claude", ".mcp.json"];

/// Variables naming sockets outside the sandbox (an ssh agent, a Docker daemon, a desktop
/// bus), removed from a restricted command's environment: a socket reached through them would
/// escape any file sandbox.
pub const SOCKET_ENV: &[&str] = &[
    "SSH_AUTH_SOCK",
    "DOCKER_HOST",
    "CONTAINER_HOST",
    "PODMAN_HOST",
    "DBUS_SESSION_BUS_ADDRESS",
    "DBUS_SYSTEM_BUS_ADDRESS",
    "GPG_AGENT_INFO",
    "XDG_RUNTIME_DIR",
];

/// The descriptor the command's bubblewrap reads the seccomp program from.
pub const SECCOMP_FD: i32 = 78;

/// One call to wrap.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// Its policy (not [`Policy::Off`]).
    pub policy: Policy,
    /// The workspace root.
    pub workspace: &'a Path,
    /// Where the command starts (inside the workspace).
    pub cwd: &'a Path,
    /// The call's private temp folder, writable under both policies.
    pub tmp: &'a Path,
    /// Files and folders inside the workspace to hide (sensitive ones, e.g. `.env`).
    pub hidden: &'a [PathBuf],
}

/// A wrapped call: run `program` with `args`, then the command's own program and arguments,
/// with `filter` mapped to descriptor `filter_fd` when present.
#[derive(Debug)]
pub struct Wrapped {
    /// The launcher: the native helper's executable or bubblewrap.
    pub program: PathBuf,
    /// Its arguments (for the helper, starting with
    /// [`helper::SUBCOMMAND`](crate::helper::SUBCOMMAND)), ending with `--`.
    pub args: Vec<OsString>,
    /// The read end of a pipe holding the seccomp program (network off, bubblewrap only: the
    /// helper builds the program itself).
    pub filter: Option<OwnedFd>,
    /// The descriptor the child must see `filter` as.
    pub filter_fd: i32,
}

impl Sandbox {
    /// The launcher's command line that runs a command for `call`.
    pub fn wrap(&self, call: &Call<'_>) -> io::Result<Wrapped> {
        let mut args = Args::default();
        match self.launcher {
            Launcher::Helper(_) => {
                args.flag(crate::helper::SUBCOMMAND);
                args.pair("--join", self.holder_join(call.policy)?.to_arg());
            }
            // Run by root, bubblewrap keeps every capability for the command (enough to
            // unmount the protected binds); the helper always drops them.
            Launcher::Bubblewrap(_) => args.pair("--cap-drop", "ALL"),
        }
        args.flag("--die-with-parent");
        args.flag("--unshare-pid");
        system_view(&mut args);
        let writable = call.policy == Policy::WorkspaceWrite;
        self.bind_folders(&mut args, call, writable)?;
        self.hide_secrets(&mut args, call, writable);
        // Nothing but the call's temp folder is writable in the private `/tmp`, and nothing in
        // the root bubblewrap builds the view on: a write outside says "Read-only file system".
        args.pair("--remount-ro", "/tmp");
        args.pair("--remount-ro", "/");
        args.pair("--chdir", call.cwd);
        let filter = self.network(&mut args)?;
        args.flag("--");
        let (Launcher::Helper(program) | Launcher::Bubblewrap(program)) = &self.launcher;
        Ok(Wrapped {
            program: program.clone(),
            args: args.0,
            filter,
            filter_fd: SECCOMP_FD,
        })
    }

    /// The folders a call sees besides the system's: the read roots, the writable roots and
    /// the workspace (written only when `writable`, its git metadata pinned and its
    /// protected paths read-only), and the call's temp folder.
    fn bind_folders(&self, args: &mut Args, call: &Call<'_>, writable: bool) -> io::Result<()> {
        let settings = &self.settings;
        for root in settings.read_roots.iter().filter(|r| r.exists()) {
            args.triple("--ro-bind", root, root);
        }
        if writable {
            for root in settings.writable_roots.iter().filter(|r| r.exists()) {
                args.triple("--bind", root, root);
            }
        }
        let bind = if writable { "--bind" } else { "--ro-bind" };
        args.triple(bind, call.workspace, call.workspace);
        args.triple("--bind", call.tmp, call.tmp);
        if writable {
            let git = crate::git::plan(call.workspace, settings, crate::git::Placeholders::Create)
                .map_err(|why| {
                    io::Error::other(format!("workspace-write cannot run here: {why}"))
                })?;
            for step in &git {
                match step {
                    crate::git::Step::Pin(dir) => args.triple("--bind", dir, dir),
                    crate::git::Step::ReadOnly(path) => args.triple("--ro-bind", path, path),
                }
            }
            protect(args, call.workspace);
        }
        Ok(())
    }

    /// Hides the configured secrets the call could otherwise see, and the call's own.
    fn hide_secrets(&self, args: &mut Args, call: &Call<'_>, writable: bool) {
        let settings = &self.settings;
        let shown = |path: &Path| {
            path.starts_with(call.workspace)
                || settings.read_roots.iter().any(|r| path.starts_with(r))
                || (writable && settings.writable_roots.iter().any(|r| path.starts_with(r)))
        };
        for path in settings
            .hidden
            .iter()
            .filter(|p| shown(p))
            .chain(call.hidden)
        {
            hide(args, path);
        }
    }

    /// Cuts the network unless the settings allow it: a namespace of its own, and the
    /// seccomp filter (built by the helper, or given to bubblewrap as the pipe returned).
    fn network(&self, args: &mut Args) -> io::Result<Option<OwnedFd>> {
        Ok(match &self.launcher {
            _ if self.settings.network => None,
            // A descriptor left open would reach the command: the helper needs none.
            Launcher::Helper(_) => {
                args.flag("--unshare-net");
                args.flag("--network-filter");
                None
            }
            Launcher::Bubblewrap(_) => {
                args.flag("--unshare-net");
                args.pair("--seccomp", SECCOMP_FD.to_string());
                Some(self.filter_pipe()?)
            }
        })
    }

    /// The namespaces of the helper's holder for `policy` (started if need be).
    fn holder_join(&self, policy: Policy) -> io::Result<crate::helper::Join> {
        let holders = self
            .holders
            .as_ref()
            .ok_or_else(|| io::Error::other("the native helper has no namespace holder"))?;
        // A panic elsewhere while holding the lock leaves the holders as usable as before.
        let mut holders = holders
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        holders.join(policy).map_err(io::Error::other)
    }

    /// A pipe holding the compiled filter, its write end closed.
    fn filter_pipe(&self) -> io::Result<OwnedFd> {
        let (read, write) = nix::unistd::pipe().map_err(io::Error::from)?;
        // A few hundred bytes: far under a pipe's buffer, so the write never blocks.
        std::fs::File::from(write).write_all(&self.filter)?;
        Ok(read)
    }
}

/// The system as every call sees it: a PID namespace's `/proc`, a minimal `/dev`, the
/// system folders read-only, and a private `/tmp`.
fn system_view(args: &mut Args) {
    args.pair("--proc", "/proc");
    args.pair("--dev", "/dev");
    for dir in SYSTEM {
        let path = Path::new(dir);
        match std::fs::read_link(path) {
            Ok(target) => args.triple("--symlink", target.as_os_str(), path.as_os_str()),
            Err(_) if path.is_dir() => args.triple("--ro-bind", path, path),
            Err(_) => {}
        }
    }
    args.pair("--tmpfs", "/tmp");
}

/// Binds the agents' settings that exist in `workspace` read-only over it. Not one reached
/// through a symlink: the bind would show whatever the link points at (a command can aim
/// `.git` at a folder of secrets outside the view, and see its `config` at the next call),
/// and it would not protect the path anyway, the link itself staying replaceable.
fn protect(args: &mut Args, workspace: &Path) {
    let Ok(real) = workspace.canonicalize() else {
        return;
    };
    for name in AGENT_SETTINGS {
        let path = workspace.join(name);
        if path.canonicalize().is_ok_and(|p| p == real.join(name)) {
            args.triple("--ro-bind", &path, &path);
        }
    }
}

/// Covers `path` with an empty read-only folder or file, when it exists and is not a symlink
/// (a symlink leads somewhere the view shows or does not).
fn hide(args: &mut Args, path: &Path) {
    match path.symlink_metadata() {
        Ok(meta) if meta.is_dir() => {
            args.pair("--tmpfs", path);
            args.pair("--remount-ro", path);
        }
        Ok(meta) if meta.is_file() => args.triple("--ro-bind", "/dev/null", path),
        _ => {}
    }
}

#[derive(Default)]
struct Args(Vec<OsString>);

impl Args {
    fn flag(&mut self, flag: &str) {
        self.0.push(flag.into());
    }

    fn pair(&mut self, flag: &str, value: impl AsRef<std::ffi::OsStr>) {
        self.0.push(flag.into());
        self.0.push(value.as_ref().to_owned());
    }

    fn triple(
        &mut self,
        flag: &str,
        a: impl AsRef<std::ffi::OsStr>,
        b: impl AsRef<std::ffi::OsStr>,
    ) {
        self.0.push(flag.into());
        self.0.push(a.as_ref().to_owned());
        self.0.push(b.as_ref().to_owned());
    }
}

/// Whether `path` is `root` or under it, after removing `.` and `..` lexically.
pub(crate) fn lexically_inside(path: &Path, root: &Path) -> bool {
    lexically_clean(path).starts_with(root)
}

/// `path` with `.` and `..` removed lexically.
pub(crate) fn lexically_clean(path: &Path) -> PathBuf {
    let mut clean = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                clean.pop();
            }
            std::path::Component::CurDir => {}
            other => clean.push(other),
        }
    }
    clean
}
