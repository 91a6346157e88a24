//! A stdio server's process and the transport over its pipes.
//!
//! rmcp's own child-process transport reads at most 16 MiB per message and silently drops a
//! longer one, so a tool answering with 50 MB left its call waiting for the tool timeout
//! (600 s) and then said "timed out". Here the process is spawned by rein and its standard
//! output read through [`FrameWatch`]: messages up to [`FRAME_LIMIT`] are taken (the output
//! budget then cuts the result and saves it whole, like any tool's), and one past it is
//! dropped *and counted*, so the calls waiting on the server fail at once, naming the limit.
//!
//! The child's environment loses the provider keys ([`rein_tool::HiddenEnv`]), as commands'
//! and hooks' do; the variables the configuration sets for it are added after.

use std::collections::BTreeMap;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::Arc;
use std::task::{Context, Poll};

use rein_tool::HiddenEnv;
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::config::ServerConfig;

/// Longest message read from a stdio server: the most the output budget saves of one result.
pub(crate) const FRAME_LIMIT: usize = 64 * 1024 * 1024;

/// Counts the messages of a server that were longer than [`FRAME_LIMIT`] (and dropped); calls
/// wait on it beside their answer.
#[derive(Debug, Clone)]
pub(crate) struct Oversized(Arc<tokio::sync::watch::Sender<u64>>);

impl Default for Oversized {
    fn default() -> Self {
        Self(Arc::new(tokio::sync::watch::channel(0).0))
    }
}

impl Oversized {
    /// A receiver that sees the next oversized message, not the earlier ones.
    pub(crate) fn watch(&self) -> tokio::sync::watch::Receiver<u64> {
        let mut rx = self.0.subscribe();
        rx.borrow_and_update();
        rx
    }

    fn count(&self) {
        self.0.send_modify(|n| *n += 1);
    }
}

/// The server's process, spawned in its own process group without the provider keys.
pub(crate) struct Spawned {
    pub(crate) transport: ChildTransport,
    pub(crate) stderr: Option<tokio::process::ChildStderr>,
    pub(crate) pid: Option<u32>,
}

/// Starts `command args` for `config`, its environment cleaned of `hidden` and given `env`.
#[allow(clippy::disallowed_methods)] // the launch path of stdio MCP servers: the hidden variables are cleared here
pub(crate) fn spawn(
    config: &ServerConfig,
    command: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
    hidden: &HiddenEnv,
    oversized: &Oversized,
) -> std::io::Result<Spawned> {
    let mut cmd = tokio::process::Command::new(command);
    hidden.apply(&mut cmd);
    // What the configuration sets on purpose stays, a key among it (the user's own file; a
    // workspace's cannot name a key's value: its variables are not expanded there).
    cmd.args(args)
        .envs(env)
        .process_group(0)
        .kill_on_drop(true)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(cwd) = &config.cwd {
        cmd.current_dir(cwd);
    }
    let mut child = cmd.spawn()?;
    let missing = || std::io::Error::other("the server's pipes were not opened");
    let stdout = child.stdout.take().ok_or_else(missing)?;
    let stdin = child.stdin.take().ok_or_else(missing)?;
    let stderr = child.stderr.take();
    let pid = child.id();
    let watched = FrameWatch {
        inner: stdout,
        line: 0,
        oversized: oversized.clone(),
    };
    let inner = AsyncRwTransport::new(watched, stdin).with_max_line_length(FRAME_LIMIT);
    Ok(Spawned {
        transport: ChildTransport { inner, child },
        stderr,
        pid,
    })
}

/// The transport over the child's pipes, owning the child (killed when dropped).
pub(crate) struct ChildTransport {
    inner: AsyncRwTransport<RoleClient, FrameWatch, ChildStdin>,
    child: Child,
}

impl Transport<RoleClient> for ChildTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.inner.receive()
    }

    /// Closes the server's input and waits for it to exit (the caller bounds the wait; its
    /// process group is killed after).
    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner.close().await?;
        self.child.wait().await.map(drop)
    }
}

/// The server's standard output, counting the bytes of the message being read: one that
/// grows past [`FRAME_LIMIT`] is counted in [`Oversized`] as soon as it does.
pub(crate) struct FrameWatch {
    inner: ChildStdout,
    /// Bytes since the last newline.
    line: usize,
    oversized: Oversized,
}

impl AsyncRead for FrameWatch {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &polled {
            let fresh = &buf.filled()[before..];
            let mut line = self.line;
            for chunk in fresh.split_inclusive(|b| *b == b'\n') {
                let was = line;
                line += chunk.len();
                if was <= FRAME_LIMIT && line > FRAME_LIMIT {
                    self.oversized.count();
                }
                if chunk.ends_with(b"\n") {
                    line = 0;
                }
            }
            self.line = line;
        }
        polled
    }
}
