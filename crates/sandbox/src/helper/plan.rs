//! The helper's arguments read into a plan: the bubblewrap options `Sandbox::wrap` emits, in
//! order, then `--` and the command.

use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

use super::Failure;

/// One step of building the view, in the order given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Op {
    /// `--proc DEST`: the new PID namespace's `/proc`.
    Proc(PathBuf),
    /// `--dev DEST`: a minimal `/dev`.
    Dev(PathBuf),
    /// `--ro-bind SRC DEST`: `SRC` shown read-only (with everything mounted below it).
    RoBind(PathBuf, PathBuf),
    /// `--bind SRC DEST`: `SRC` shown writable.
    Bind(PathBuf, PathBuf),
    /// `--symlink TARGET LINK`.
    Symlink(PathBuf, PathBuf),
    /// `--tmpfs DEST`: an empty folder.
    Tmpfs(PathBuf),
    /// `--remount-ro DEST`: the mount at `DEST` (alone) made read-only.
    RemountRo(PathBuf),
}

impl Op {
    /// Where in the new root the step mounts something (a symlink mounts nothing).
    pub(super) fn mount_point(&self) -> Option<&Path> {
        match self {
            Self::Proc(dest)
            | Self::Dev(dest)
            | Self::RoBind(_, dest)
            | Self::Bind(_, dest)
            | Self::Tmpfs(dest) => Some(dest),
            Self::Symlink(..) | Self::RemountRo(_) => None,
        }
    }
}

/// Which of the holder's namespaces besides its user and mount ones the command joins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Namespaces {
    /// `--unshare-pid`: the holder's PID namespace (its `/proc` then shows the command).
    pub pid: bool,
    /// `--unshare-net`: the holder's network namespace, which has no interface up.
    pub net: bool,
}

/// Everything one call asks for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Plan {
    /// The view's steps, in order.
    pub ops: Vec<Op>,
    /// New namespaces.
    pub unshare: Namespaces,
    /// `--die-with-parent`: the sandbox dies with the process that started it.
    pub die_with_parent: bool,
    /// `--network-filter`: install rein's seccomp network filter.
    pub network_filter: bool,
    /// `--join PID:USER:NET:MNT:PID`: the session's namespace holder (the helper's own
    /// option; bubblewrap makes its namespaces per call).
    pub join: Option<Join>,
    /// `--chdir DIR`: where the command starts (else `/`).
    pub chdir: Option<PathBuf>,
    /// The command and its arguments.
    pub command: Vec<OsString>,
}

impl Plan {
    /// Reads `args` (the options, `--`, the command).
    pub(super) fn parse(args: &[OsString]) -> Result<Self, Failure> {
        let mut plan = Self::default();
        let mut rest = args.iter();
        while let Some(flag) = rest.next() {
            let mut path = |what: &str| -> Result<PathBuf, Failure> {
                let value = rest
                    .next()
                    .ok_or_else(|| Failure::new(format!("{what} needs a value")))?;
                Ok(PathBuf::from(value))
            };
            let flag = flag.to_str().unwrap_or("");
            match flag {
                "--" => {
                    plan.command = rest.cloned().collect();
                    break;
                }
                "--die-with-parent" => plan.die_with_parent = true,
                "--unshare-pid" => plan.unshare.pid = true,
                "--unshare-net" => plan.unshare.net = true,
                "--network-filter" => plan.network_filter = true,
                "--chdir" => plan.chdir = Some(absolute(path(flag)?)?),
                "--join" => {
                    let value = path(flag)?;
                    let join = value.to_str().and_then(Join::parse).ok_or_else(|| {
                        Failure::new(format!("--join takes PID:USER:NET:MNT:PID, not {value:?}"))
                    })?;
                    plan.join = Some(join);
                }
                "--proc" => plan.ops.push(Op::Proc(absolute(path(flag)?)?)),
                "--dev" => plan.ops.push(Op::Dev(absolute(path(flag)?)?)),
                "--tmpfs" => plan.ops.push(Op::Tmpfs(absolute(path(flag)?)?)),
                "--remount-ro" => plan.ops.push(Op::RemountRo(absolute(path(flag)?)?)),
                "--ro-bind" | "--bind" | "--symlink" => {
                    let first = path(flag)?;
                    let second = absolute(path(flag)?)?;
                    plan.ops.push(match flag {
                        "--ro-bind" => Op::RoBind(absolute(first)?, second),
                        "--bind" => Op::Bind(absolute(first)?, second),
                        // A symlink's target is kept as written (relative ones are usual).
                        _ => Op::Symlink(first, second),
                    });
                }
                other => {
                    return Err(Failure::new(format!(
                        "unknown option {:?}",
                        OsStr::new(other)
                    )));
                }
            }
        }
        if plan.command.is_empty() {
            return Err(Failure::new("no command after --"));
        }
        Ok(plan)
    }
}

/// `path` when it is absolute with no `..` (a path with one could leave the new root).
fn absolute(path: PathBuf) -> Result<PathBuf, Failure> {
    let clean = path.is_absolute()
        && path
            .components()
            .all(|c| !matches!(c, Component::ParentDir));
    if clean {
        Ok(path)
    } else {
        Err(Failure::new(format!(
            "{} is not an absolute path without ..",
            path.display()
        )))
    }
}

/// The holder's process (as numbered outside) and the inode of each of its user, network,
/// mount and PID namespaces (the order `ns` joins them), which a call joins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Join {
    /// The holder's init, numbered as rein sees it.
    pub pid: u32,
    /// The inode of its user, network, mount and PID namespace.
    pub ids: [u64; 4],
}

impl Join {
    /// `PID:USER:NET:MNT:PID`, as `--join` takes it.
    pub fn to_arg(&self) -> String {
        let [user, net, mnt, pid] = self.ids;
        format!("{}:{user}:{net}:{mnt}:{pid}", self.pid)
    }

    /// Reads [`to_arg`](Self::to_arg)'s form.
    pub(super) fn parse(text: &str) -> Option<Self> {
        let mut parts = text.split(':');
        let pid = parts.next()?.parse().ok()?;
        let mut ids = [0; 4];
        for id in &mut ids {
            *id = parts.next()?.parse().ok()?;
        }
        parts.next().is_none().then_some(Self { pid, ids })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    #[test]
    fn a_wrapped_command_line_reads_into_ordered_steps() {
        let plan = Plan::parse(&args(&[
            "--die-with-parent",
            "--unshare-pid",
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--symlink",
            "usr/bin",
            "/bin",
            "--ro-bind",
            "/usr",
            "/usr",
            "--tmpfs",
            "/tmp",
            "--bind",
            "/ws",
            "/ws",
            "--remount-ro",
            "/",
            "--chdir",
            "/ws",
            "--join",
            "42:1:2:3:4",
            "--unshare-net",
            "--network-filter",
            "--",
            "bash",
            "-c",
            "true",
        ]))
        .unwrap();
        let p = PathBuf::from;
        assert_eq!(
            plan,
            Plan {
                ops: vec![
                    Op::Proc(p("/proc")),
                    Op::Dev(p("/dev")),
                    Op::Symlink(p("usr/bin"), p("/bin")),
                    Op::RoBind(p("/usr"), p("/usr")),
                    Op::Tmpfs(p("/tmp")),
                    Op::Bind(p("/ws"), p("/ws")),
                    Op::RemountRo(p("/")),
                ],
                unshare: Namespaces {
                    pid: true,
                    net: true
                },
                die_with_parent: true,
                network_filter: true,
                join: Some(Join {
                    pid: 42,
                    ids: [1, 2, 3, 4]
                }),
                chdir: Some(p("/ws")),
                command: args(&["bash", "-c", "true"]),
            }
        );
    }

    #[test]
    fn unknown_options_relative_paths_and_a_missing_command_are_refused() {
        for bad in [
            &["--seccomp", "78", "--", "true"][..],
            &["--bind", "ws", "/ws", "--", "true"],
            &["--tmpfs", "/a/../../etc", "--", "true"],
            &["--bind", "/ws"],
            &["--unshare-pid", "--"],
            &["--join", "42:1:2", "--", "true"],
            &["--join", "x:1:2:3:4", "--", "true"],
        ] {
            assert!(Plan::parse(&args(bad)).is_err(), "{bad:?}");
        }
    }
}
