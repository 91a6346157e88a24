//! A safety net for code that must never block (opening a FIFO, reading `/dev/zero`): the
//! work runs on its own thread, and a hang fails the test instead of holding it forever. The
//! limit is generous on purpose: this proves "does not block", not "is fast" (speed is for the
//! benchmarks).

use std::time::Duration;

/// How long work may take before it counts as hung.
pub const HANG_LIMIT: Duration = Duration::from_secs(60);

/// What `work` returns; a panic naming `what` when it has not returned within [`HANG_LIMIT`].
#[allow(clippy::panic)] // A test helper: failing the test is its job.
pub fn without_hanging<T: Send + 'static>(
    what: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (done, result) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(work());
    });
    match result.recv_timeout(HANG_LIMIT) {
        Ok(value) => value,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what} hung (no answer within {HANG_LIMIT:?})")
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("{what} panicked"),
    }
}
