//! The Socket Mode half of [`crate::FakeSlack`]: `apps.connections.open` (for the app-level
//! token) hands out a `ws://` address on the fake; a connection gets `hello`, then the
//! envelopes the test pushes (`events_api`, `interactive`, `disconnect`); the app's
//! acknowledgements (`{"envelope_id": …}`) are recorded; [`SocketSide::drop_connection`]
//! hangs up without a close frame, as a network failure looks. Shapes from
//! `fixtures/slack/socket_mode_*.json` and `apps_connections_open_ok.json`.

use std::sync::{Arc, Mutex, MutexGuard};

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use serde_json::{Value, json};
use tokio::sync::mpsc;

const HELLO: &str = include_str!("../fixtures/slack/socket_mode_hello.json");
const EVENTS_API: &str = include_str!("../fixtures/slack/socket_mode_events_api.json");
const INTERACTIVE: &str = include_str!("../fixtures/slack/socket_mode_interactive.json");
const DISCONNECT: &str = include_str!("../fixtures/slack/socket_mode_disconnect.json");
pub(crate) const OPENED: &str = include_str!("../fixtures/slack/apps_connections_open_ok.json");

/// What the fake sends down the open connection.
#[derive(Debug)]
enum Down {
    Text(String),
    /// Hang up.
    Drop,
}

#[derive(Debug, Default)]
struct State {
    /// The open connection's sender.
    open: Option<mpsc::UnboundedSender<Down>>,
    connections: usize,
    acks: Vec<String>,
    next: u64,
}

/// The Socket Mode side of the fake Slack.
#[derive(Debug, Default)]
pub struct SocketSide {
    state: Mutex<State>,
}

fn fixture(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_default()
}

impl SocketSide {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How many connections were opened.
    pub fn connections(&self) -> usize {
        self.state().connections
    }

    /// Whether a connection is open now.
    pub fn connected(&self) -> bool {
        self.state().open.as_ref().is_some_and(|s| !s.is_closed())
    }

    /// The envelope ids acknowledged.
    pub fn acks(&self) -> Vec<String> {
        self.state().acks.clone()
    }

    /// Sends `down` on the open connection; whether there was one.
    fn send(&self, down: Down) -> bool {
        let state = self.state();
        state.open.as_ref().is_some_and(|s| s.send(down).is_ok())
    }

    /// Pushes the Events API body `event` (JSON) in an `events_api` envelope; its envelope
    /// id, when a connection was open.
    pub fn push_event(&self, event: &str) -> Option<String> {
        let mut envelope = fixture(EVENTS_API);
        envelope["payload"] = serde_json::from_str(event).unwrap_or_default();
        self.push(envelope)
    }

    /// Pushes the interactivity `payload=` body `press` in an `interactive` envelope.
    pub fn push_press(&self, press: &str) -> Option<String> {
        let json = url::form_urlencoded::parse(press.as_bytes())
            .find(|(k, _)| k == "payload")
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default();
        let mut envelope = fixture(INTERACTIVE);
        envelope["payload"] = serde_json::from_str(&json).unwrap_or_default();
        self.push(envelope)
    }

    /// Pushes the slash command body `form` (form-encoded) in a `slash_commands` envelope, its
    /// fields as a JSON object (the envelope as `events_api`'s, its type changed).
    pub fn push_slash(&self, form: &str) -> Option<String> {
        let fields: serde_json::Map<String, Value> = url::form_urlencoded::parse(form.as_bytes())
            .map(|(k, v)| (k.into_owned(), json!(v.into_owned())))
            .collect();
        let mut envelope = fixture(EVENTS_API);
        envelope["type"] = json!("slash_commands");
        envelope["payload"] = Value::Object(fields);
        self.push(envelope)
    }

    /// Asks the app to reconnect (`disconnect`, `refresh_requested`).
    pub fn push_disconnect(&self) -> bool {
        self.send(Down::Text(fixture(DISCONNECT).to_string()))
    }

    /// Hangs up the open connection without a word.
    pub fn drop_connection(&self) -> bool {
        self.send(Down::Drop)
    }

    fn push(&self, mut envelope: Value) -> Option<String> {
        let id = {
            let mut state = self.state();
            state.next += 1;
            format!("envelope-{}", state.next)
        };
        envelope["envelope_id"] = json!(id);
        self.send(Down::Text(envelope.to_string())).then_some(id)
    }

    /// Takes an upgraded connection: `hello`, then what is pushed, until either side ends.
    pub(crate) fn upgrade(self: Arc<Self>, upgrade: WebSocketUpgrade) -> Response {
        upgrade.on_upgrade(move |socket| self.serve(socket))
    }

    async fn serve(self: Arc<Self>, mut socket: WebSocket) {
        let (sender, mut down) = mpsc::unbounded_channel();
        {
            let mut state = self.state();
            state.connections += 1;
            state.open = Some(sender);
        }
        if socket.send(Message::text(HELLO)).await.is_err() {
            return;
        }
        loop {
            tokio::select! {
                pushed = down.recv() => match pushed {
                    Some(Down::Text(text)) => {
                        if socket.send(Message::text(text)).await.is_err() {
                            return;
                        }
                    }
                    Some(Down::Drop) | None => return,
                },
                up = socket.recv() => match up {
                    Some(Ok(Message::Text(text))) => {
                        let ack: Value = serde_json::from_str(text.as_str()).unwrap_or_default();
                        if let Some(id) = ack["envelope_id"].as_str() {
                            self.state().acks.push(id.to_string());
                        }
                    }
                    Some(Ok(Message::Close(_)) | Err(_)) | None => return,
                    Some(Ok(_)) => {}
                },
            }
        }
    }
}
