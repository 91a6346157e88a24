//! What a server sends: answers to rein's requests, its diagnostics, and the requests it
//! makes of its client; and the state the reading task shares with the client.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use lsp_types::Diagnostic;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, BufReader};
use tokio::process::ChildStdin;
use tokio::sync::{oneshot, watch};

use super::uri;

/// The diagnostics a server published for one file.
#[derive(Debug, Clone, Default)]
pub struct Published {
    /// The document version they are for, when the server said.
    pub version: Option<i32>,
    /// The diagnostics.
    pub items: Vec<Diagnostic>,
    /// The publication's number in the server's sequence.
    pub seq: u64,
}

/// What the reader task and the callers share.
#[derive(Debug, Default)]
pub(super) struct Shared {
    pub(super) pending: Mutex<HashMap<i64, oneshot::Sender<Result<Value, String>>>>,
    pub(super) published: Mutex<HashMap<PathBuf, Published>>,
    /// The number of the last publication.
    pub(super) seq: watch::Sender<u64>,
    /// Why the server ended, once it has.
    pub(super) ended: watch::Sender<Option<String>>,
    /// The end of what the server wrote to standard error.
    pub(super) stderr: Mutex<String>,
}

impl Shared {
    pub(super) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
        mutex.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Reads the server's messages until its output ends: answers go to their callers,
/// diagnostics are kept, and the requests a server makes of its client get plain answers.
pub(super) async fn read_loop(
    mut reader: BufReader<tokio::process::ChildStdout>,
    writer: Arc<tokio::sync::Mutex<ChildStdin>>,
    shared: Arc<Shared>,
    root: PathBuf,
) {
    let reason = loop {
        let message = match super::wire::read_message(&mut reader).await {
            Ok(Some(message)) => message,
            Ok(None) => break "it exited".to_string(),
            Err(e) => break e.to_string(),
        };
        let method = message.get("method").and_then(Value::as_str);
        match (method, message.get("id")) {
            (None, Some(id)) => answer(&shared, id, &message),
            (Some(method), Some(id)) => {
                let reply = reply_to(method, message.get("params"), &root);
                let mut reply = reply;
                reply["jsonrpc"] = json!("2.0");
                reply["id"] = id.clone();
                let mut writer = writer.lock().await;
                if super::wire::write_message(&mut *writer, &reply)
                    .await
                    .is_err()
                {
                    break "its input closed".to_string();
                }
            }
            (Some("textDocument/publishDiagnostics"), None) => publish(&shared, message),
            _ => {}
        }
    };
    // Callers waiting for answers learn the server is gone.
    Shared::lock(&shared.pending).clear();
    shared.ended.send_replace(Some(reason));
}

fn answer(shared: &Shared, id: &Value, message: &Value) {
    let Some(id) = id.as_i64() else { return };
    let Some(waiting) = Shared::lock(&shared.pending).remove(&id) else {
        return;
    };
    let outcome = match message.get("error") {
        Some(error) => Err(error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("an error without a message")
            .to_string()),
        None => Ok(message.get("result").cloned().unwrap_or_default()),
    };
    let _ = waiting.send(outcome);
}

fn publish(shared: &Shared, message: Value) {
    let Some(params) = message.get("params") else {
        return;
    };

    let Some(path) = params
        .get("uri")
        .and_then(Value::as_str)
        .and_then(uri::to_path)
    else {
        return;
    };
    let items: Vec<Diagnostic> = params
        .get("diagnostics")
        .and_then(|d| serde_json::from_value(d.clone()).ok())
        .unwrap_or_default();
    let version = params
        .get("version")
        .and_then(Value::as_i64)
        .and_then(|v| i32::try_from(v).ok());
    // Only this task moves the sequence on: the next number is the last one plus one.
    let seq = *shared.seq.borrow() + 1;
    Shared::lock(&shared.published).insert(
        path,
        Published {
            version,
            items,
            seq,
        },
    );
    shared.seq.send_replace(seq);
}

/// The answer to a request the server makes of rein: no settings of its own
/// (`workspace/configuration` gets one `null` per item), the one workspace folder, and
/// acceptance of progress tokens and registrations; anything else is not supported.
fn reply_to(method: &str, params: Option<&Value>, root: &Path) -> Value {
    match method {
        "workspace/configuration" => {
            let items = params
                .and_then(|p| p.get("items"))
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            json!({"result": vec![Value::Null; items]})
        }
        "workspace/workspaceFolders" => {
            json!({"result": [{"uri": uri::from_path(root), "name": "workspace"}]})
        }
        "window/workDoneProgress/create"
        | "client/registerCapability"
        | "client/unregisterCapability"
        | "window/showMessageRequest"
        | "workspace/diagnostic/refresh"
        | "workspace/semanticTokens/refresh"
        | "workspace/inlayHint/refresh"
        | "workspace/codeLens/refresh" => json!({"result": null}),
        _ => {
            json!({"error": {"code": -32601, "message": format!("rein does not handle {method}")}})
        }
    }
}

/// Keeps the last 2 KiB the server wrote to standard error, for the message when it ends.
pub(super) async fn keep_stderr(mut stderr: tokio::process::ChildStderr, shared: Arc<Shared>) {
    let mut chunk = [0u8; 4096];
    while let Ok(n) = stderr.read(&mut chunk).await {
        if n == 0 {
            break;
        }
        let mut kept = Shared::lock(&shared.stderr);
        kept.push_str(&String::from_utf8_lossy(&chunk[..n]));
        if kept.len() > 2048 {
            let mut cut = kept.len() - 2048;
            while !kept.is_char_boundary(cut) {
                cut += 1;
            }
            kept.drain(..cut);
        }
    }
}
