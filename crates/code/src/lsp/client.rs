//! One running language server: JSON-RPC over its standard input and output, the documents
//! rein has opened in it, and the diagnostics it published.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::BufReader;
use tokio::process::{Child, ChildStdin};
use tokio::sync::oneshot;

use super::incoming::{Shared, keep_stderr, read_loop};
use super::launch::Launch;
use super::{LspError, ServerSpec, language_id, uri};

pub use super::incoming::Published;

/// How long a server may take to answer `initialize`.
pub const INIT_TIMEOUT: Duration = Duration::from_secs(30);

/// The quiet a server keeps after a publication before its diagnostics count as settled (a
/// server may publish a file twice for one change: syntax first, then types).
const QUIET: Duration = Duration::from_millis(150);

/// A document as the server has it.
#[derive(Debug)]
struct Doc {
    version: i32,
    text: String,
    /// The last publication before this text was sent.
    since: u64,
}

/// A sent change the server's diagnostics can be awaited for.
#[derive(Debug, Clone)]
pub struct Sent {
    /// The file.
    pub path: PathBuf,
    /// The last publication before the change.
    pub since: u64,
    /// The document version sent.
    pub version: i32,
}

/// A running language server.
pub struct Client {
    name: String,
    root: PathBuf,
    pid: Option<u32>,
    writer: Arc<tokio::sync::Mutex<ChildStdin>>,
    shared: Arc<Shared>,
    next_id: AtomicI64,
    capabilities: Value,
    server_info: Option<String>,
    docs: tokio::sync::Mutex<HashMap<PathBuf, Doc>>,
    child: Mutex<Option<Child>>,
    _keep: Box<dyn std::any::Any + Send + Sync>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("name", &self.name)
            .field("root", &self.root)
            .field("pid", &self.pid)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Starts `spec`'s server on `root` through `launch` and initialises it (waiting at most
    /// `init_timeout` for its answer).
    pub async fn start(
        spec: &ServerSpec,
        program: &Path,
        root: &Path,
        launch: &dyn Launch,
        init_timeout: Duration,
    ) -> Result<Self, LspError> {
        let name = spec.name.clone();
        let spawn_error = |source| LspError::Spawn {
            server: name.clone(),
            source,
        };
        let mut launched = launch
            .command(program, &spec.command[1..], root)
            .map_err(spawn_error)?;
        let mut child = launched
            .command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(spawn_error)?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(spawn_error(std::io::Error::other("no pipes")));
        };
        let writer = Arc::new(tokio::sync::Mutex::new(stdin));
        let shared = Arc::new(Shared::default());
        tokio::spawn(keep_stderr(stderr, Arc::clone(&shared)));
        tokio::spawn(read_loop(
            BufReader::new(stdout),
            Arc::clone(&writer),
            Arc::clone(&shared),
            root.to_path_buf(),
        ));
        let mut client = Self {
            name,
            root: root.to_path_buf(),
            pid: child.id(),
            writer,
            shared,
            next_id: AtomicI64::new(1),
            capabilities: Value::Null,
            server_info: None,
            docs: tokio::sync::Mutex::default(),
            child: Mutex::new(Some(child)),
            _keep: launched.keep,
        };
        let answer = client
            .request("initialize", initialize_params(spec, root), init_timeout)
            .await?;
        client.capabilities = answer.get("capabilities").cloned().unwrap_or_default();
        client.server_info = answer.get("serverInfo").map(|info| {
            let name = info.get("name").and_then(Value::as_str).unwrap_or_default();
            match info.get("version").and_then(Value::as_str) {
                Some(version) => format!("{name} {version}"),
                None => name.to_string(),
            }
        });
        client.notify("initialized", json!({})).await?;
        Ok(client)
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The folder it works on.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The name and version it gave at start (`serverInfo`), when it did.
    pub fn server_info(&self) -> Option<&str> {
        self.server_info.as_deref()
    }

    /// Its process id (of the sandbox's launcher when confined).
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Why it ended, once it has (exited, crashed, closed its output).
    pub fn ended(&self) -> Option<String> {
        self.shared.ended.borrow().clone()
    }

    /// Whether its capabilities name `provider` (`definitionProvider`) as anything but
    /// `false`.
    pub fn supports(&self, provider: &str) -> bool {
        self.capabilities
            .get(provider)
            .is_some_and(|v| !v.is_null() && *v != Value::Bool(false))
    }

    /// Sends a request and waits at most `timeout` for its answer.
    pub async fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, LspError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (answer, answered) = oneshot::channel();
        Shared::lock(&self.shared.pending).insert(id, answer);
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if let Err(e) = self.send(&message).await {
            Shared::lock(&self.shared.pending).remove(&id);
            return Err(e);
        }
        let mut ended = self.shared.ended.subscribe();
        let outcome = tokio::select! {
            answer = answered => answer.map_err(|_| self.ended_error()),
            () = tokio::time::sleep(timeout) => Err(LspError::Timeout {
                server: self.name.clone(),
                method: method.to_string(),
                after: timeout,
            }),
            _ = ended.wait_for(Option::is_some) => Err(self.ended_error()),
        };
        Shared::lock(&self.shared.pending).remove(&id);
        outcome?.map_err(|message| LspError::Rpc {
            server: self.name.clone(),
            method: method.to_string(),
            message,
        })
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Value) -> Result<(), LspError> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await
    }

    async fn send(&self, message: &Value) -> Result<(), LspError> {
        if self.ended().is_some() {
            return Err(self.ended_error());
        }
        let mut writer = self.writer.lock().await;
        super::wire::write_message(&mut *writer, message)
            .await
            .map_err(|_| self.ended_error())
    }

    fn ended_error(&self) -> LspError {
        let reason = self
            .ended()
            .unwrap_or_else(|| "it stopped answering".into());
        // Its first words are what it failed with (a backtrace may follow).
        let stderr: String = Shared::lock(&self.shared.stderr)
            .lines()
            .map(str::trim)
            .find(|line| !line.is_empty())
            .unwrap_or_default()
            .chars()
            .take(300)
            .collect();
        LspError::Ended {
            server: self.name.clone(),
            reason: if stderr.is_empty() {
                reason
            } else {
                format!("{reason}; it said: {stderr}")
            },
        }
    }

    /// Gives the server `path`'s contents as they are now: `didOpen` the first time,
    /// `didChange` and `didSave` when they changed since, `didClose` when the file is gone.
    /// `None` when the server already has them and published for them.
    pub async fn sync(&self, path: &Path) -> Result<Option<Sent>, LspError> {
        let text = std::fs::read(path)
            .ok()
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
        let mut docs = self.docs.lock().await;
        let since = *self.shared.seq.borrow();
        let uri = uri::from_path(path);
        let sent = |version| Sent {
            path: path.to_path_buf(),
            since,
            version,
        };
        match (docs.get_mut(path), text) {
            // Sent already (by a read's opening, perhaps a moment ago): awaited until the
            // server published for it.
            (Some(doc), Some(text)) if doc.text == text => {
                let published = Shared::lock(&self.shared.published)
                    .get(path)
                    .is_some_and(|p| p.seq > doc.since);
                Ok((!published).then(|| Sent {
                    path: path.to_path_buf(),
                    since: doc.since,
                    version: doc.version,
                }))
            }
            (Some(doc), Some(text)) => {
                doc.version += 1;
                doc.since = since;
                let version = doc.version;
                let document = json!({"uri": uri, "version": version});
                let change = json!({"textDocument": document, "contentChanges": [{"text": text}]});
                self.notify("textDocument/didChange", change).await?;
                let save = json!({"textDocument": {"uri": uri}, "text": text});
                doc.text = text;
                self.notify("textDocument/didSave", save).await?;
                Ok(Some(sent(version)))
            }
            (None, Some(text)) => {
                let item = json!({"uri": uri, "languageId": language_id(path), "version": 1, "text": text});
                self.notify("textDocument/didOpen", json!({"textDocument": item}))
                    .await?;
                let doc = Doc {
                    version: 1,
                    text,
                    since,
                };
                docs.insert(path.to_path_buf(), doc);
                Ok(Some(sent(1)))
            }
            (Some(_), None) => {
                docs.remove(path);
                let close = json!({"textDocument": {"uri": uri}});
                self.notify("textDocument/didClose", close).await?;
                Shared::lock(&self.shared.published).remove(path);
                Ok(None)
            }
            (None, None) => Ok(None),
        }
    }

    /// The files the server has open.
    pub async fn open_files(&self) -> Vec<PathBuf> {
        self.docs.lock().await.keys().cloned().collect()
    }

    /// Waits until the server published diagnostics for `sent`'s file after the change (for
    /// its version, or without one and then kept quiet a moment), or until `deadline`;
    /// whether it published.
    pub async fn settle(&self, sent: &Sent, deadline: tokio::time::Instant) -> bool {
        let mut seq = self.shared.seq.subscribe();
        // A publication since the change, unless it names an older version: a server may
        // send what it found in the last version after this one reached it, and that is not
        // this change's answer.
        let published_since = |shared: &Shared| {
            Shared::lock(&shared.published)
                .get(&sent.path)
                .is_some_and(|p| p.seq > sent.since && p.version.is_none_or(|v| v >= sent.version))
        };
        let first = async {
            while !published_since(&self.shared) {
                if seq.changed().await.is_err() {
                    return false;
                }
            }
            true
        };
        // A server that ends meanwhile publishes nothing more: no wait for the deadline.
        let mut ended = self.shared.ended.subscribe();
        let published = tokio::select! {
            published = tokio::time::timeout_at(deadline, first) => published,
            _ = ended.wait_for(Option::is_some) => return false,
        };
        let Ok(true) = published else {
            return false;
        };
        // Diagnostics for the very version sent are the server's answer to it (pyright,
        // typescript-language-server, clangd and gopls publish once per version).
        let versioned = Shared::lock(&self.shared.published)
            .get(&sent.path)
            .is_some_and(|p| p.version == Some(sent.version));
        if versioned {
            return true;
        }
        // A server that does not say which version it checked may publish again (a quick
        // syntax pass, then types): wait for a quiet moment.
        loop {
            let quiet = tokio::time::Instant::now() + QUIET;
            match tokio::time::timeout_at(quiet.min(deadline), seq.changed()).await {
                Ok(Ok(())) if tokio::time::Instant::now() < deadline => continue,
                // What stands last must still be this change's (not an older version's).
                _ => return published_since(&self.shared),
            }
        }
    }

    /// What the server last published for `path`.
    pub fn published(&self, path: &Path) -> Option<Published> {
        Shared::lock(&self.shared.published).get(path).cloned()
    }

    /// Everything it published, by file.
    pub fn all_published(&self) -> Vec<(PathBuf, Published)> {
        let mut all: Vec<_> = Shared::lock(&self.shared.published)
            .iter()
            .map(|(p, d)| (p.clone(), d.clone()))
            .collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }

    /// Asks the server to shut down and exit, waiting at most `grace`; then kills it.
    pub async fn shutdown(&self, grace: Duration) {
        let polite = async {
            if self.request("shutdown", Value::Null, grace).await.is_ok() {
                let _ = self.notify("exit", Value::Null).await;
            }
            let mut ended = self.shared.ended.subscribe();
            let _ = ended.wait_for(Option::is_some).await;
        };
        let _ = tokio::time::timeout(grace, polite).await;
        let child = Shared::lock(&self.child).take();
        if let Some(mut child) = child {
            let _ = child.start_kill();
            let _ = tokio::time::timeout(grace, child.wait()).await;
        }
    }
}

/// `initialize`'s parameters: the root, and what rein as a client takes part in.
fn initialize_params(spec: &ServerSpec, root: &Path) -> Value {
    let root_uri = uri::from_path(root);
    let folder_name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut params = json!({
        "processId": std::process::id(),
        "clientInfo": {"name": "rein", "version": env!("CARGO_PKG_VERSION")},
        "rootUri": root_uri,
        "rootPath": root,
        "workspaceFolders": [{"uri": root_uri, "name": folder_name}],
        "capabilities": {
            "workspace": {"configuration": true, "workspaceFolders": true},
            "textDocument": {
                "synchronization": {"didSave": true, "dynamicRegistration": false},
                "publishDiagnostics": {"versionSupport": true, "relatedInformation": false},
                "hover": {"contentFormat": ["plaintext", "markdown"]},
                "definition": {"linkSupport": true},
                "references": {},
            },
            "general": {"positionEncodings": ["utf-16"]},
        },
    });
    if let Some(options) = &spec.init_options {
        params["initializationOptions"] = options.clone();
    }
    params
}
