//! A fake of Slack for `rein serve`'s tests. Its Web API on 127.0.0.1 records
//! `chat.postMessage`, `chat.update` and the file upload's three steps
//! (`files.getUploadURLExternal`, the upload, `files.completeUploadExternal`); a wrong bot
//! token gets the documented `invalid_auth`, and [`FakeSlack::rate_limit`] the documented
//! 429. Its other half sends rein what Slack would: Events API requests and interactivity
//! presses, signed as Slack documents with the app's signing secret (or not, for the
//! forgery tests). Payloads are made from `fixtures/slack/` (sources in its `SOURCE.md`).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::BotCall;
use crate::slack_socket::SocketSide;
use crate::to_rein::{Rein, epoch_secs};
use axum::extract::ws::WebSocketUpgrade;

const MESSAGE: &str = include_str!("../fixtures/slack/event_callback_message.json");
const MENTION: &str = include_str!("../fixtures/slack/event_callback_app_mention.json");
const BLOCK_ACTIONS: &str = include_str!("../fixtures/slack/block_actions.json");
const POSTED: &str = include_str!("../fixtures/slack/chat_postMessage_ok.json");
const UPDATED: &str = include_str!("../fixtures/slack/chat_update_ok.json");
const INVALID_AUTH: &str = include_str!("../fixtures/slack/error_invalid_auth.json");
const RATELIMITED: &str = include_str!("../fixtures/slack/error_ratelimited.json");
/// Slack's worked example of a signed request: a slash command's body.
const SLASH_EXAMPLE: &str = include_str!("../fixtures/slack/signature_example.json");

#[derive(Debug, Default)]
struct Log {
    calls: Vec<BotCall>,
    next: u64,
    /// Calls still to refuse with a 429.
    limited: usize,
}

#[derive(Debug)]
struct Shared {
    token: String,
    /// The app-level token Socket Mode connections are opened with.
    app_token: Mutex<Option<String>>,
    socket: Arc<SocketSide>,
    log: Mutex<Log>,
}

impl Shared {
    fn log(&self) -> MutexGuard<'_, Log> {
        self.log.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The fake Slack. Shuts down when dropped.
#[derive(Debug)]
pub struct FakeSlack {
    addr: SocketAddr,
    shared: Arc<Shared>,
    secret: String,
    /// rein's webhook server (`http://127.0.0.1:…`).
    rein: Rein,
    task: JoinHandle<()>,
}

impl Drop for FakeSlack {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn fixture(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_default()
}

/// Slack's signature of `body` at `timestamp` with `secret` (`v0=` and the hex HMAC-SHA256
/// of `v0:{timestamp}:{body}`).
pub fn slack_signature(secret: &str, timestamp: i64, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap_or_else(|_| {
        unreachable!("HMAC takes a key of any length");
    });
    mac.update(format!("v0:{timestamp}:").as_bytes());
    mac.update(body);
    format!("v0={}", hex::encode(mac.finalize().into_bytes()))
}

impl FakeSlack {
    /// Serves the app whose bot token is `token` and whose signing secret is `secret`.
    pub async fn start(token: &str, secret: &str) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            token: token.to_string(),
            app_token: Mutex::default(),
            socket: Arc::default(),
            log: Mutex::default(),
        });
        let app = Router::new()
            .route("/api/{method}", axum::routing::post(api))
            .route("/socket", axum::routing::get(socket))
            .route("/upload/{file}", axum::routing::post(upload))
            .with_state(Arc::clone(&shared));
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Self {
            addr,
            shared,
            secret: secret.to_string(),
            rein: Rein::default(),
            task,
        })
    }

    /// The `api_base` to give rein.
    pub fn url(&self) -> String {
        format!("http://{}/api", self.addr)
    }

    /// Where rein's webhook server is (`http://127.0.0.1:…`).
    pub fn deliver_to(&self, url: &str) {
        self.rein.set(url);
    }

    /// Lets Socket Mode connections be opened with the app-level token `app_token`.
    pub fn socket_mode(&self, app_token: &str) {
        let mut kept = self
            .shared
            .app_token
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        *kept = Some(app_token.to_string());
    }

    /// Its Socket Mode side: pushes envelopes, drops the connection, counts them.
    pub fn socket(&self) -> &SocketSide {
        &self.shared.socket
    }

    /// The next `count` Web API calls are refused with the documented 429.
    pub fn rate_limit(&self, count: usize) {
        self.shared.log().limited = count;
    }

    /// The calls received so far.
    pub fn calls(&self) -> Vec<BotCall> {
        self.shared.log().calls.clone()
    }

    /// Sends `body` to rein's `path` with `headers`; the status rein answered, and its body.
    pub async fn send(
        &self,
        path: &str,
        headers: &[(&str, String)],
        body: String,
    ) -> (u16, String) {
        self.rein.post(path, headers, body).await
    }

    /// Sends `body` to `path` signed at `timestamp` with `secret`.
    pub async fn signed(
        &self,
        path: &str,
        body: String,
        timestamp: i64,
        secret: &str,
    ) -> (u16, String) {
        let headers = [
            ("x-slack-request-timestamp", timestamp.to_string()),
            (
                "x-slack-signature",
                slack_signature(secret, timestamp, body.as_bytes()),
            ),
            ("content-type", content_type(&body).to_string()),
        ];
        self.send(path, &headers, body).await
    }

    /// Sends `body` to `path` as Slack would, signed now with the app's secret.
    pub async fn deliver(&self, path: &str, body: String) -> (u16, String) {
        let secret = self.secret.clone();
        self.signed(path, body, epoch_secs(), &secret).await
    }

    /// The Events API body of a direct message from `user` in `channel` (`event_id` `id`).
    pub fn direct_message(user: &str, channel: &str, text: &str, id: &str) -> String {
        let mut body = fixture(MESSAGE);
        body["event"]["user"] = json!(user);
        body["event"]["channel"] = json!(channel);
        body["event"]["channel_type"] = json!("im");
        body["event"]["text"] = json!(text);
        body["event_id"] = json!(id);
        body.to_string()
    }

    /// The Events API body of a mention of the bot by `user` in `channel` at `ts`.
    pub fn mention(user: &str, channel: &str, ts: &str, text: &str, id: &str) -> String {
        let mut body = fixture(MENTION);
        body["event"]["user"] = json!(user);
        body["event"]["channel"] = json!(channel);
        body["event"]["ts"] = json!(ts);
        body["event"]["text"] = json!(format!("<@U0LAN0Z89> {text}"));
        body["event_id"] = json!(id);
        body.to_string()
    }

    /// The body of `user`'s slash command `command` with `text` in `channel` (form-encoded,
    /// the other fields as in Slack's example).
    pub fn slash(user: &str, channel: &str, command: &str, text: &str) -> String {
        let example = fixture(SLASH_EXAMPLE);
        let body = example["body"].as_str().unwrap_or_default();
        let mut form = url::form_urlencoded::Serializer::new(String::new());
        for (field, value) in url::form_urlencoded::parse(body.as_bytes()) {
            let value = match &*field {
                "user_id" => user.to_string(),
                "channel_id" => channel.to_string(),
                "command" => command.to_string(),
                "text" => text.to_string(),
                _ => value.into_owned(),
            };
            form.append_pair(&field, &value);
        }
        form.finish()
    }

    /// The interactivity body of `user`'s press of the button with `value` under the
    /// message `ts` in `channel` (in the thread `thread`, if any).
    pub fn press(user: &str, channel: &str, ts: &str, thread: Option<&str>, value: &str) -> String {
        let mut payload = fixture(BLOCK_ACTIONS);
        payload["user"]["id"] = json!(user);
        payload["channel"]["id"] = json!(channel);
        payload["container"]["channel_id"] = json!(channel);
        payload["container"]["message_ts"] = json!(ts);
        payload["message"]["ts"] = json!(ts);
        if let Some(thread) = thread {
            payload["container"]["thread_ts"] = json!(thread);
            payload["message"]["thread_ts"] = json!(thread);
        }
        payload["actions"][0]["value"] = json!(value);
        payload["actions"][0]["action_id"] = json!(value);
        format!(
            "payload={}",
            url::form_urlencoded::byte_serialize(payload.to_string().as_bytes())
                .collect::<String>()
        )
    }
}

fn content_type(body: &str) -> &'static str {
    match body.starts_with("payload=") {
        true => "application/x-www-form-urlencoded",
        false => "application/json",
    }
}

async fn api(
    State(shared): State<Arc<Shared>>,
    Path(method): Path<String>,
    headers: HeaderMap,
    body: String,
) -> Response {
    let given = headers.get("authorization").and_then(|v| v.to_str().ok());
    if method == "apps.connections.open" {
        return open_connection(&shared, given, &headers);
    }
    if given != Some(format!("Bearer {}", shared.token).as_str()) {
        return axum::Json(fixture(INVALID_AUTH)).into_response();
    }
    {
        let mut log = shared.log();
        if log.limited > 0 {
            log.limited -= 1;
            let headers = [(axum::http::header::RETRY_AFTER, "1")];
            return (
                StatusCode::TOO_MANY_REQUESTS,
                headers,
                fixture_text(RATELIMITED),
            )
                .into_response();
        }
    }
    let parsed: Value = match method.as_str() {
        // Form-encoded, as its documentation shows.
        "files.getUploadURLExternal" => {
            let fields: serde_json::Map<String, Value> =
                url::form_urlencoded::parse(body.as_bytes())
                    .map(|(k, v)| (k.into_owned(), json!(v.into_owned())))
                    .collect();
            Value::Object(fields)
        }
        _ => serde_json::from_str(&body).unwrap_or_default(),
    };
    let mut log = shared.log();
    log.next += 1;
    let n = log.next;
    log.calls.push(BotCall {
        method: method.clone(),
        body: parsed.clone(),
    });
    drop(log);
    let answer = match method.as_str() {
        "chat.postMessage" => {
            let mut answer = fixture(POSTED);
            answer["channel"] = parsed["channel"].clone();
            answer["ts"] = json!(format!("1700000000.{n:06}"));
            answer["message"]["text"] = parsed["text"].clone();
            answer
        }
        "chat.update" => {
            let mut answer = fixture(UPDATED);
            answer["channel"] = parsed["channel"].clone();
            answer["ts"] = parsed["ts"].clone();
            answer["text"] = parsed["text"].clone();
            answer
        }
        "files.getUploadURLExternal" => json!({
            "ok": true,
            "upload_url": format!("http://{}/upload/F{n}", headers_host(&headers)),
            "file_id": format!("F{n}"),
        }),
        "files.completeUploadExternal" => json!({"ok": true, "files": parsed["files"]}),
        _ => json!({"ok": false, "error": "unknown_method"}),
    };
    axum::Json(answer).into_response()
}

/// `apps.connections.open`: a `ws://` address on the fake for the app-level token.
fn open_connection(shared: &Shared, given: Option<&str>, headers: &HeaderMap) -> Response {
    let app_token = shared
        .app_token
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    let expected = app_token.map(|t| format!("Bearer {t}"));
    if given.is_none() || given.map(str::to_string) != expected {
        return axum::Json(fixture(INVALID_AUTH)).into_response();
    }
    let mut opened = fixture(crate::slack_socket::OPENED);
    let ticket = shared.socket.connections() + 1;
    opened["url"] = json!(format!(
        "ws://{}/socket?ticket={ticket}&app_id=5678",
        headers_host(headers)
    ));
    axum::Json(opened).into_response()
}

async fn socket(State(shared): State<Arc<Shared>>, upgrade: WebSocketUpgrade) -> Response {
    Arc::clone(&shared.socket).upgrade(upgrade)
}

fn fixture_text(text: &str) -> String {
    fixture(text).to_string()
}

fn headers_host(headers: &HeaderMap) -> String {
    headers
        .get("host")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("127.0.0.1")
        .to_string()
}

/// The upload of a file's bytes (kept raw, as `upload`).
async fn upload(
    State(shared): State<Arc<Shared>>,
    Path(file): Path<String>,
    body: String,
) -> Response {
    shared.log().calls.push(BotCall {
        method: "upload".into(),
        body: json!({"file": file, "raw": body}),
    });
    (StatusCode::OK, "OK - 42").into_response()
}
