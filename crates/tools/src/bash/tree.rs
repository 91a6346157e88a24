//! Every process a call started, found again when the call is killed.
//!
//! The shell leads its own process group, and a timeout or cancellation kills the group; but
//! `setsid` (or `setpgid`) takes a process out of it. So each call's processes carry a mark
//! in their environment ([`MARK_VAR`]), which children inherit; a kill also looks through
//! `/proc` for that mark and kills what it finds. A process that cleared its environment
//! (`env -i`) cannot be found this way unless it runs in rein's sandbox, where the call's
//! mount namespace finds it ([`call_namespace`]); what is found and survives is reported,
//! never hidden.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// The environment variable that marks a call's processes.
pub(super) const MARK_VAR: &str = "REIN_CALL";

/// Distinguishes the calls of this rein process.
static NEXT: AtomicU64 = AtomicU64::new(1);

/// The mark of one call: `REIN_CALL=<rein's pid>-<n>`.
#[derive(Debug, Clone)]
pub(super) struct CallMark {
    value: String,
}

impl CallMark {
    pub(super) fn new() -> Self {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        Self {
            value: format!("{}-{n}", std::process::id()),
        }
    }

    /// The value children carry.
    pub(super) fn value(&self) -> &str {
        &self.value
    }

    /// Kills every live process carrying this mark, or in mount namespace `namespace` (the
    /// call's, see [`call_namespace`]) (`SIGKILL`); returns those still alive afterwards
    /// (neither gone nor a zombie), which the model must be told about.
    pub(super) fn kill_marked(&self, namespace: Option<&Path>) -> Vec<i32> {
        let marked = self.marked(namespace);
        for pid in &marked {
            let _ = kill(Pid::from_raw(*pid), Signal::SIGKILL);
        }
        if marked.is_empty() {
            return marked;
        }
        // SIGKILL is delivered before kill(2) returns for a process we may signal; give the
        // kernel a moment to take it down, then look again.
        std::thread::sleep(std::time::Duration::from_millis(20));
        marked.into_iter().filter(|pid| alive(*pid)).collect()
    }

    /// The live processes whose environment holds this mark, or in mount namespace
    /// `namespace`.
    fn marked(&self, namespace: Option<&Path>) -> Vec<i32> {
        let needle = format!("{MARK_VAR}={}\0", self.value);
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| {
                namespace.is_some_and(|ns| {
                    std::fs::read_link(format!("/proc/{pid}/ns/mnt")).is_ok_and(|n| n == ns)
                }) || std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|environ| {
                    environ
                        .split_inclusive(|b| *b == 0)
                        .any(|var| var == needle.as_bytes())
                })
            })
            .filter(|pid| alive(*pid))
            .collect()
    }
}

/// The mount namespace of the sandboxed call led by `leader` (as `/proc/PID/ns/mnt` names
/// it), once rein's sandbox helper has made it: the helper copies the mount namespace before
/// it joins the PID namespace its command goes to, so a leader whose children go elsewhere is
/// in the call's own. Every process of the call is in it and none can leave it (the sandbox
/// refuses new user namespaces, without which no other mount namespace can be made), even
/// one that cleared its environment and left the group. `None` for an unconfined call, under
/// bubblewrap (whose PID namespace ends with the call anyway), or before the helper got there.
pub(super) fn call_namespace(leader: i32) -> Option<PathBuf> {
    let ns = |pid: &str, kind: &str| std::fs::read_link(format!("/proc/{pid}/ns/{kind}")).ok();
    let leader = leader.to_string();
    if ns(&leader, "pid_for_children")? == ns("self", "pid")? {
        return None;
    }
    let mount = ns(&leader, "mnt")?;
    (mount != ns("self", "mnt")?).then_some(mount)
}

/// Whether `pid` exists and is not a zombie.
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        // The state follows the command name, which is in parentheses and may hold spaces.
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[allow(clippy::disallowed_methods)] // the launch path of a tty command, confined by the caller
    #[test]
    fn a_marked_process_that_left_the_group_is_found_and_killed() {
        let mark = CallMark::new();
        let mut child = std::process::Command::new("setsid")
            .args(["sleep", "30"])
            .env(MARK_VAR, mark.value())
            .spawn()
            .unwrap();
        // `setsid` execs sleep (a new session, since it is not a group leader).
        std::thread::sleep(std::time::Duration::from_millis(100));
        let pid = i32::try_from(child.id()).unwrap();
        assert!(mark.marked(None).contains(&pid));
        assert!(
            CallMark::new().marked(None).is_empty(),
            "another call's mark"
        );
        assert!(mark.kill_marked(None).is_empty());
        let status = child.wait().unwrap();
        assert!(!status.success());
        assert!(mark.marked(None).is_empty());
    }
}
