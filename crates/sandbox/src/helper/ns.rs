//! The namespaces of the session's holder ([`super::hold`]) that a call joins, named by the
//! holder's process number and checked by each namespace's inode: a holder that died, its
//! number since reused by another process, is refused rather than joined.

use std::fs::File;
use std::os::unix::fs::MetadataExt;

use nix::sched::{CloneFlags, setns, unshare};

use super::Failure;
use super::plan::{Join, Namespaces};

/// The kinds of namespace a call joins, in the order it joins them (the user namespace
/// first: it grants the rights to join the others).
const KINDS: [(&str, CloneFlags); 4] = [
    ("user", CloneFlags::CLONE_NEWUSER),
    ("net", CloneFlags::CLONE_NEWNET),
    ("mnt", CloneFlags::CLONE_NEWNS),
    ("pid", CloneFlags::CLONE_NEWPID),
];

impl Join {
    /// The namespaces process `pid` is in now.
    pub fn of(pid: u32) -> std::io::Result<Self> {
        let mut ids = [0; 4];
        for (id, (kind, _)) in ids.iter_mut().zip(KINDS) {
            *id = std::fs::metadata(format!("/proc/{pid}/ns/{kind}"))?.ino();
        }
        Ok(Self { pid, ids })
    }

    /// Joins the holder's user and mount namespaces, and its network and PID namespaces when
    /// `also` asks for them; the mount namespace is then copied into the call's own, before
    /// the PID namespace is joined, so a helper whose children go to the holder's PID
    /// namespace is already in the call's mount namespace (how rein finds a call's processes
    /// to kill). Every namespace is opened and checked before the first is joined (the
    /// process number means nothing once the mount namespace has changed).
    pub(super) fn enter(&self, also: Namespaces) -> Result<(), Failure> {
        let wanted = |flag: CloneFlags| match flag {
            CloneFlags::CLONE_NEWNET => also.net,
            CloneFlags::CLONE_NEWPID => also.pid,
            _ => true,
        };
        let mut opened = Vec::with_capacity(KINDS.len());
        for ((kind, flag), id) in KINDS.into_iter().zip(self.ids) {
            if wanted(flag) {
                opened.push((self.open(kind, id)?, flag, kind));
            }
        }
        for (file, flag, kind) in opened {
            setns(file, flag).map_err(Failure::context(format!(
                "cannot join the holder's {kind} namespace"
            )))?;
            if flag == CloneFlags::CLONE_NEWNS {
                unshare(CloneFlags::CLONE_NEWNS).map_err(Failure::context(
                    "cannot create a mount namespace (unshare)",
                ))?;
            }
        }
        Ok(())
    }

    /// The holder's namespace `kind`, when it is still the one with inode `id`.
    fn open(&self, kind: &str, id: u64) -> Result<File, Failure> {
        let path = format!("/proc/{}/ns/{kind}", self.pid);
        let gone = || {
            Failure::new(format!(
                "the sandbox's namespace holder (process {}) is gone",
                self.pid
            ))
        };
        let file = File::open(&path).map_err(|_| gone())?;
        match file.metadata() {
            Ok(meta) if meta.ino() == id => Ok(file),
            _ => Err(gone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_join_reads_back_what_it_writes_and_refuses_the_rest() {
        let join = Join {
            pid: 7,
            ids: [40, 41, 42, 43],
        };
        assert_eq!(join.to_arg(), "7:40:41:42:43");
        assert_eq!(Join::parse(&join.to_arg()), Some(join));
        for bad in [
            "7:40:41:42",
            "7:40:41:42:43:44",
            "-7:1:2:3:4",
            "7:a:2:3:4",
            "",
        ] {
            assert_eq!(Join::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_process_whose_namespaces_changed_is_not_joined() {
        let mut join = Join::of(std::process::id()).unwrap();
        join.ids[0] += 1;
        let err = join.enter(Namespaces::default()).unwrap_err();
        assert!(format!("{err:?}").contains("is gone"), "{err:?}");
    }
}
