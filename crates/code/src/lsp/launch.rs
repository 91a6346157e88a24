//! How a server's process is made: the caller decides (rein's tools run it in the OS sandbox,
//! as they run commands).

use std::path::Path;

/// A server's command, ready to spawn, and what must live as long as it runs (its private
/// temp folder, a descriptor the sandbox reads).
pub struct Launched {
    /// The command; the client sets its pipes.
    pub command: tokio::process::Command,
    /// Dropped when the server's client is.
    pub keep: Box<dyn std::any::Any + Send + Sync>,
}

/// Makes the command that runs a language server.
pub trait Launch: Send + Sync {
    /// The command running `program` with `args` in `root`.
    fn command(&self, program: &Path, args: &[String], root: &Path) -> std::io::Result<Launched>;
}

/// Runs servers as plain child processes (no sandbox).
#[derive(Debug, Clone, Copy, Default)]
pub struct Unconfined;

impl Launch for Unconfined {
    #[allow(clippy::disallowed_methods)] // the launch path of language servers: the caller's `Launch` confines it
    fn command(&self, program: &Path, args: &[String], root: &Path) -> std::io::Result<Launched> {
        let mut command = tokio::process::Command::new(program);
        command.args(args).current_dir(root);
        Ok(Launched {
            command,
            keep: Box::new(()),
        })
    }
}
