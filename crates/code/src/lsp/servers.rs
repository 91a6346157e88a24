//! The session's language servers: each started the first time a file of its type is
//! touched, given the files rein changes, restarted with backoff after a crash, and shut down
//! with the session.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lsp_types::Diagnostic;
use tokio::time::Instant;

use super::client::{Client, INIT_TIMEOUT, Sent};
use super::launch::Launch;
use super::report::FileReport;
use super::{LspError, LspSettings, ServerSpec};

/// A crashed server lasting at least this long before it crashed starts again at once.
const STABLE: Duration = Duration::from_secs(60);

/// The longest wait before another start.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// A server found on this machine, and where its program is.
#[derive(Debug, Clone)]
pub struct Found {
    /// Its table entry.
    pub spec: ServerSpec,
    /// Its program.
    pub program: PathBuf,
}

/// One server on one root: running, or waiting to start again.
#[derive(Debug, Default)]
struct Slot {
    client: Option<Arc<Client>>,
    started: Option<Instant>,
    failures: u32,
    retry_at: Option<Instant>,
    last_error: Option<String>,
}

type Key = (usize, PathBuf);

/// The session's language servers.
pub struct Servers {
    workspace: PathBuf,
    found: Vec<Found>,
    settings: LspSettings,
    slots: Mutex<HashMap<Key, Arc<tokio::sync::Mutex<Slot>>>>,
    /// Set at shutdown: a server still starting is abandoned, none starts after.
    closed: tokio::sync::watch::Sender<bool>,
}

impl std::fmt::Debug for Servers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Servers")
            .field("workspace", &self.workspace)
            .field("found", &self.found)
            .finish_non_exhaustive()
    }
}

/// A running server, as `/status` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Running {
    /// Its name.
    pub name: String,
    /// The folder it works on.
    pub root: PathBuf,
    /// Its process id.
    pub pid: Option<u32>,
}

impl Servers {
    /// Servers for `workspace` (canonical) among `found`, none started yet.
    pub fn new(workspace: PathBuf, found: Vec<Found>, settings: LspSettings) -> Self {
        Self {
            workspace,
            found,
            settings,
            slots: Mutex::default(),
            closed: tokio::sync::watch::Sender::new(false),
        }
    }

    /// The workspace.
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// The settings.
    pub fn settings(&self) -> &LspSettings {
        &self.settings
    }

    /// Whether the workspace is a project of a server found: one of its root markers
    /// (`Cargo.toml`, `pyproject.toml`, `package.json`…) at the workspace's top. The tools
    /// asking the servers are offered then; changes are checked wherever a server reads the
    /// file.
    pub fn serves_workspace(&self) -> bool {
        self.found.iter().any(|found| {
            found
                .spec
                .root_markers
                .iter()
                .any(|marker| self.workspace.join(marker).exists())
        })
    }

    /// Whether a server reads `path` (one that works only inside a project, when `path` is
    /// in one).
    pub fn reads(&self, path: &Path) -> bool {
        self.server_for(path).is_some()
    }

    /// The first server reading `path`, and the root it works on for it.
    fn server_for(&self, path: &Path) -> Option<(usize, PathBuf)> {
        self.found.iter().enumerate().find_map(|(index, found)| {
            let root = found
                .spec
                .reads(path)
                .then(|| found.spec.root_for(path, &self.workspace))??;
            Some((index, root))
        })
    }

    /// The clients of the servers running now. A slot busy starting its server is passed
    /// over rather than waited for (a start may take up to 30 s, and has nothing open yet).
    fn clients(&self) -> Vec<Arc<Client>> {
        let slots: Vec<_> = self.lock_slots().values().cloned().collect();
        slots
            .iter()
            .filter_map(|slot| slot.try_lock().ok()?.client.clone())
            .filter(|client| client.ended().is_none())
            .collect()
    }

    /// The servers running now.
    pub fn running(&self) -> Vec<Running> {
        let mut running: Vec<Running> = self
            .clients()
            .into_iter()
            .map(|client| Running {
                name: client.name().to_string(),
                root: client.root().to_path_buf(),
                pid: client.pid(),
            })
            .collect();
        running.sort_by(|a, b| (&a.name, &a.root).cmp(&(&b.name, &b.root)));
        running
    }

    fn lock_slots(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Arc<tokio::sync::Mutex<Slot>>>> {
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The running client of the server for `path`, started (or started again after a crash,
    /// once its backoff passed) when needed.
    pub async fn client(
        &self,
        path: &Path,
        launch: &dyn Launch,
    ) -> Option<Result<Arc<Client>, LspError>> {
        let (index, root) = self.server_for(path)?;
        let found = &self.found[index];
        let slot = Arc::clone(self.lock_slots().entry((index, root.clone())).or_default());
        let mut slot = slot.lock().await;
        Some(self.ready(&mut slot, found, &root, launch).await)
    }

    async fn ready(
        &self,
        slot: &mut Slot,
        found: &Found,
        root: &Path,
        launch: &dyn Launch,
    ) -> Result<Arc<Client>, LspError> {
        let now = Instant::now();
        if let Some(client) = &slot.client {
            match client.ended() {
                None => return Ok(Arc::clone(client)),
                Some(reason) => {
                    let lasted = slot.started.map(|s| now - s).unwrap_or_default();
                    slot.failures = if lasted >= STABLE {
                        1
                    } else {
                        slot.failures + 1
                    };
                    slot.retry_at = Some(now + backoff(slot.failures));
                    slot.last_error = Some(format!("{} ended: {reason}", client.name()));
                    slot.client = None;
                }
            }
        }
        if let Some(at) = slot.retry_at.filter(|at| *at > now) {
            return Err(LspError::Waiting {
                server: found.spec.name.clone(),
                last: slot.last_error.clone().unwrap_or_default(),
                retry_in: at - now,
            });
        }
        let init = self.settings.init_timeout.unwrap_or(INIT_TIMEOUT);
        let mut closed = self.closed.subscribe();
        let started = tokio::select! {
            started = Client::start(&found.spec, &found.program, root, launch, init) => started,
            // Dropping the start kills the process.
            _ = closed.wait_for(|closed| *closed) => Err(LspError::Ended {
                server: found.spec.name.clone(),
                reason: "the session ended".into(),
            }),
        };
        match started {
            Ok(client) => {
                let client = Arc::new(client);
                slot.client = Some(Arc::clone(&client));
                slot.started = Some(Instant::now());
                Ok(client)
            }
            Err(e) => {
                slot.failures += 1;
                slot.retry_at = Some(Instant::now() + backoff(slot.failures).max(MIN_RETRY));
                slot.last_error = Some(e.to_string());
                Err(e)
            }
        }
    }

    /// Gives each server the current contents of `paths` it reads (starting it when needed)
    /// and waits, until `settle` has passed at most, for its diagnostics of them. Work left
    /// when the time is up goes on in the background: the next call finds the server ready.
    pub async fn changed(
        self: &Arc<Self>,
        paths: &[PathBuf],
        launch: Arc<dyn Launch>,
    ) -> Vec<FileReport> {
        let deadline = Instant::now() + self.settings.settle;
        let mut tasks = Vec::new();
        for path in paths.iter().filter(|p| self.reads(p)) {
            let servers = Arc::clone(self);
            let launch = Arc::clone(&launch);
            let path = path.clone();
            tasks.push(tokio::spawn(async move {
                servers.change_one(&path, launch.as_ref(), deadline).await
            }));
        }
        let mut reports = Vec::new();
        for task in tasks {
            if let Ok(Ok(Some(report))) = tokio::time::timeout_at(deadline, task).await {
                reports.push(report);
            }
        }
        reports
    }

    async fn change_one(
        &self,
        path: &Path,
        launch: &dyn Launch,
        deadline: Instant,
    ) -> Option<FileReport> {
        // A server that cannot start says nothing here: the `diagnostics` tool and `rein lsp
        // check` say why, and the change's result stays the change's.
        let client = self.client(path, launch).await?.ok()?;
        let before = client.published(path).map(|p| p.items);
        let sent = client.sync(path).await.ok()??;
        self.settled_report(&client, &sent, before, deadline).await
    }

    async fn settled_report(
        &self,
        client: &Client,
        sent: &Sent,
        before: Option<Vec<Diagnostic>>,
        deadline: Instant,
    ) -> Option<FileReport> {
        if !client.settle(sent, deadline).await {
            return None;
        }
        let now = client.published(&sent.path)?.items;
        Some(FileReport {
            path: sent.path.clone(),
            server: client.name().to_string(),
            before: before.unwrap_or_default(),
            now,
        })
    }

    /// What `path`'s server says of it now: the file given to the server as it is on disk
    /// and its diagnostics awaited (until the settle time at most); `None` when no server
    /// reads it or it has not reported yet.
    pub async fn diagnostics_of(
        &self,
        path: &Path,
        launch: &dyn Launch,
    ) -> Result<Option<(String, Vec<Diagnostic>)>, LspError> {
        let deadline = Instant::now() + self.settings.settle;
        let Some(client) = self.client(path, launch).await else {
            return Ok(None);
        };
        let client = client?;
        if let Some(sent) = client.sync(path).await? {
            client.settle(&sent, deadline).await;
        }
        Ok(client
            .published(path)
            .map(|published| (client.name().to_string(), published.items)))
    }

    /// Opens `path` in its server in the background (a read: the server warms up before the
    /// first edit); returns at once. The caller checked that a server [`reads`](Self::reads)
    /// it.
    pub fn opened(self: &Arc<Self>, path: &Path, launch: Arc<dyn Launch>) {
        let servers = Arc::clone(self);
        let path = path.to_path_buf();
        tokio::spawn(async move {
            if let Some(Ok(client)) = servers.client(&path, launch.as_ref()).await {
                let _ = client.sync(&path).await;
            }
        });
    }

    /// The files the running servers have open whose contents changed on disk since (a
    /// command changed them), given to their servers and awaited like
    /// [`Servers::changed`]'s.
    pub async fn after_command(self: &Arc<Self>, launch: Arc<dyn Launch>) -> Vec<FileReport> {
        let mut open = Vec::new();
        for client in self.clients() {
            open.extend(client.open_files().await);
        }
        // A file whose contents the server already has is not sent again, nor waited for.
        self.changed(&open, launch).await
    }

    /// Everything the running servers published, by file (for `diagnostics` without a path).
    pub fn all_published(&self) -> Vec<(String, PathBuf, Vec<Diagnostic>)> {
        let mut all = Vec::new();
        for client in self.clients() {
            for (path, published) in client.all_published() {
                all.push((client.name().to_string(), path, published.items));
            }
        }
        all.sort_by(|a, b| a.1.cmp(&b.1));
        all
    }

    /// Shuts every server down, each given `grace` to exit.
    pub async fn shutdown(&self, grace: Duration) {
        self.closed.send_replace(true);
        let slots: Vec<_> = self.lock_slots().drain().map(|(_, slot)| slot).collect();
        let mut stopping = tokio::task::JoinSet::new();
        for slot in slots {
            if let Some(client) = slot.lock().await.client.take() {
                stopping.spawn(async move { client.shutdown(grace).await });
            }
        }
        stopping.join_all().await;
    }
}

/// The shortest wait before starting again a server that failed to start.
const MIN_RETRY: Duration = Duration::from_secs(1);

/// The wait before the `failures`-th start again: none after the first crash, then 1 s,
/// 2 s, 4 s… up to a minute.
fn backoff(failures: u32) -> Duration {
    match failures {
        0 | 1 => Duration::ZERO,
        n => Duration::from_secs(1 << (n - 2).min(6)).min(MAX_BACKOFF),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_to_a_minute() {
        let waits: Vec<u64> = (1..=9).map(|n| backoff(n).as_secs()).collect();
        assert_eq!(waits, [0, 1, 2, 4, 8, 16, 32, 60, 60]);
    }
}
