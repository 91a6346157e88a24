//! Where the shell ended: reported over a pipe rein opens itself and hands the shell as a
//! fixed descriptor, never through a file an environment variable names (a command could
//! point such a variable anywhere and have the report written there).
//!
//! An `EXIT` trap writes `$PWD` and a NUL to [`CWD_FD`] whichever way the shell exits (a trap
//! keeps the shell's exit status). Whatever the command itself writes there can only change
//! the *reported* directory, which the caller checks through the guard like any other path.

use std::io::Read;
use std::os::fd::OwnedFd;

use command_fds::FdMapping;
use nix::fcntl::{FcntlArg, OFlag, fcntl};

/// The shell's descriptor for the report; high enough that commands do not use it by habit.
pub(super) const CWD_FD: i32 = 77;

/// First line of every script: report the final directory, whatever way the shell exits —
/// the kernel's, not a `PWD` the command may have set (`cd -P .` makes them agree).
pub(super) const CWD_TRAP: &str =
    r#"trap 'builtin cd -P . 2>/dev/null; builtin printf "%s\0" "$PWD" >&77 2>/dev/null' EXIT"#;

/// Longest report read; a command flooding the pipe gets no directory followed.
const MAX_REPORT_BYTES: usize = 64 * 1024;

/// The read end of the report pipe of one call.
pub(super) struct CwdReport(OwnedFd);

impl CwdReport {
    /// Opens the pipe; the mapping gives the command its write end as [`CWD_FD`] (closed in
    /// rein once the command is spawned and dropped).
    pub(super) fn open() -> std::io::Result<(Self, FdMapping)> {
        let (read, write) = pipe()?;
        let mapping = FdMapping {
            parent_fd: write,
            child_fd: CWD_FD,
        };
        Ok((Self(read), mapping))
    }

    /// The directory the shell reported last, once it has exited; `None` when the trap did not
    /// run (killed, `exec`, an `EXIT` trap of the command's own) or the report is unusable.
    /// Never waits: a background process holding the pipe open cannot stall the call.
    pub(super) fn take(self) -> Option<String> {
        let _ = fcntl(&self.0, FcntlArg::F_SETFL(OFlag::O_NONBLOCK));
        let mut bytes = Vec::new();
        let mut file = std::fs::File::from(self.0);
        let mut chunk = [0u8; 4096];
        while bytes.len() <= MAX_REPORT_BYTES {
            match file.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => bytes.extend_from_slice(&chunk[..n]),
            }
        }
        if bytes.len() > MAX_REPORT_BYTES {
            return None;
        }
        last_report(&bytes)
    }
}

/// The last NUL-terminated report in `bytes` (the trap writes last), as UTF-8.
fn last_report(bytes: &[u8]) -> Option<String> {
    let end = bytes.iter().rposition(|b| *b == 0)?;
    let start = bytes[..end]
        .iter()
        .rposition(|b| *b == 0)
        .map_or(0, |i| i + 1);
    let report = std::str::from_utf8(&bytes[start..end]).ok()?;
    (!report.is_empty()).then(|| report.to_string())
}

/// A pipe whose ends close on exec and never block (`pipe2` where the system has it).
#[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
fn pipe() -> nix::Result<(OwnedFd, OwnedFd)> {
    nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK)
}

/// A pipe whose ends close on exec and never block (macOS has no `pipe2`: the flags are set
/// after, before any command is spawned from this thread's descriptors).
#[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
fn pipe() -> nix::Result<(OwnedFd, OwnedFd)> {
    use nix::fcntl::FdFlag;
    let (read, write) = nix::unistd::pipe()?;
    for end in [&read, &write] {
        fcntl(end, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC))?;
        fcntl(end, FcntlArg::F_SETFL(OFlag::O_NONBLOCK))?;
    }
    Ok((read, write))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_complete_report_wins() {
        let cases: &[(&[u8], Option<&str>)] = &[
            (b"/w/src\0", Some("/w/src")),
            (b"/etc\0/w/src\0", Some("/w/src")),
            (b"/w/src\0/etc", Some("/w/src")),
            (b"/w/src", None),
            (b"\0", None),
            (b"", None),
            (b"/w/\xff\0", None),
        ];
        for (bytes, expected) in cases {
            assert_eq!(last_report(bytes).as_deref(), *expected, "{bytes:?}");
        }
    }
}
