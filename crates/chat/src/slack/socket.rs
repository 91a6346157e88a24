//! Slack's Socket Mode: no public address; rein opens a WebSocket with the app-level token
//! (`apps.connections.open`, then the `wss://` address it gives) and Slack sends the same
//! Events API and interactivity payloads over it, each in an envelope rein acknowledges with
//! its `envelope_id`. A `disconnect` (Slack refreshing the connection) is followed by a new
//! connection at once; a connection that closes or goes quiet makes [`Socket::next`] fail,
//! and the caller's backoff opens another.

use std::sync::Arc;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::{events, unreachable};
use crate::webhook::Seen;
use crate::{ChatError, Incoming};

type Connection = WebSocketStream<MaybeTlsStream<tokio::net::TcpStream>>;

/// How long a quiet connection waits before rein pings it, and then for any answer.
const QUIET: Duration = Duration::from_secs(60);

/// A Socket Mode connection, opened when first asked.
pub(super) struct Socket {
    api: Arc<str>,
    /// `Bearer xapp-…`: never shown.
    authorization: String,
    connection: tokio::sync::Mutex<Option<Connection>>,
    seen: Seen,
}

impl Socket {
    pub(super) fn new(api: Arc<str>, app_token: &str) -> Self {
        Self {
            api,
            authorization: format!("Bearer {app_token}"),
            connection: tokio::sync::Mutex::default(),
            seen: Seen::default(),
        }
    }

    /// Opens a connection: asks Slack for its address, then connects.
    async fn connect(&self) -> Result<Connection, ChatError> {
        let method = "apps.connections.open";
        let client = crate::client(super::SLACK)?;
        let request = client
            .post(format!("{}/{method}", self.api))
            .header(reqwest::header::AUTHORIZATION, &self.authorization)
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            );
        let opened = super::answer(method, request).await?;
        let url = opened["url"]
            .as_str()
            .ok_or_else(|| unreachable(format!("{method}: no url")))?;
        let connecting = tokio_tungstenite::connect_async(url);
        match tokio::time::timeout(Duration::from_secs(30), connecting).await {
            Ok(Ok((socket, _))) => Ok(socket),
            Ok(Err(e)) => Err(unreachable(format!("Socket Mode: {e}"))),
            Err(_) => Err(unreachable("Socket Mode: no connection within 30 s".into())),
        }
    }

    /// Waits for the next message or press, connecting first when there is no connection.
    pub(super) async fn next(&self) -> Result<Vec<Incoming>, ChatError> {
        let mut connection = self.connection.lock().await;
        let mut pinged = false;
        loop {
            let socket = match connection.as_mut() {
                Some(socket) => socket,
                None => connection.insert(self.connect().await?),
            };
            let frame = match tokio::time::timeout(QUIET, socket.next()).await {
                Ok(frame) => frame,
                // Quiet since the ping too: the connection is gone without a word.
                Err(_) if pinged => None,
                Err(_) => {
                    pinged = true;
                    match socket.send(Message::Ping(Vec::new().into())).await {
                        Ok(()) => continue,
                        Err(_) => None,
                    }
                }
            };
            pinged = false;
            let text = match frame {
                Some(Ok(Message::Text(text))) => text,
                Some(Ok(Message::Close(_)) | Err(_)) | None => {
                    *connection = None;
                    return Err(unreachable("Socket Mode: the connection closed".into()));
                }
                Some(Ok(_)) => continue,
            };
            let mut envelope: Value = serde_json::from_str(text.as_str()).unwrap_or_default();
            if let Some(id) = envelope["envelope_id"].as_str() {
                let ack = json!({ "envelope_id": id }).to_string();
                if socket.send(Message::text(ack)).await.is_err() {
                    *connection = None;
                    return Err(unreachable("Socket Mode: the connection closed".into()));
                }
            }
            let kind = envelope["type"].as_str().unwrap_or_default().to_string();
            // Slack is about to close this connection: a new one at once.
            if kind == "disconnect" {
                let _ = socket.close(None).await;
                *connection = None;
                continue;
            }
            // `hello` and anything new carry nothing for rein.
            let payload = envelope["payload"].take();
            if let Some(item) = events::from_socket(&kind, payload, &self.seen) {
                return Ok(vec![item]);
            }
        }
    }
}
