//! A fake of Telegram's Bot API on 127.0.0.1 for `rein serve`'s tests: `getUpdates` long
//! polling over a queue the test fills, `sendMessage`, `editMessageText`,
//! `answerCallbackQuery` and `sendDocument` (its form kept raw) recorded; payloads made from the documented shapes in
//! `fixtures/telegram/` (sources in its `SOURCE.md`). A wrong token gets the documented 401.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

const UPDATE_MESSAGE: &str = include_str!("../fixtures/telegram/update_message.json");
const UPDATE_PRESS: &str = include_str!("../fixtures/telegram/update_callback_query.json");
const SENT_MESSAGE: &str = include_str!("../fixtures/telegram/sent_message.json");
const UNAUTHORIZED: &str = include_str!("../fixtures/telegram/error_unauthorized.json");

/// One Bot API call the fake received.
#[derive(Debug, Clone, PartialEq)]
pub struct BotCall {
    /// The method (`sendMessage`).
    pub method: String,
    /// Its JSON body.
    pub body: Value,
}

#[derive(Debug, Default)]
struct Log {
    queue: VecDeque<Value>,
    calls: Vec<BotCall>,
    next_update: i64,
    next_message: i64,
    /// Polls still to fail.
    failing: usize,
}

#[derive(Debug)]
struct Shared {
    token: String,
    log: Mutex<Log>,
    arrived: Notify,
}

impl Shared {
    fn log(&self) -> MutexGuard<'_, Log> {
        self.log.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The fake Bot API. Shuts down when dropped.
#[derive(Debug)]
pub struct FakeTelegram {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl Drop for FakeTelegram {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn fixture(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_default()
}

impl FakeTelegram {
    /// Serves the bot with `token` on a free port.
    pub async fn start(token: &str) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            token: token.to_string(),
            log: Mutex::new(Log {
                next_update: 100,
                next_message: 500,
                ..Log::default()
            }),
            arrived: Notify::new(),
        });
        let app = Router::new()
            .route("/{bot}/{method}", axum::routing::post(handle))
            .with_state(Arc::clone(&shared));
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Self { addr, shared, task })
    }

    /// The `api_base` to give rein.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The next `count` polls fail as an outage looks from outside: a bare 502 (a proxy's,
    /// not the Bot API's JSON) on a connection the fake then closes.
    pub fn fail_polls(&self, count: usize) {
        self.shared.log().failing = count;
        self.shared.arrived.notify_waiters();
    }

    /// Queues a text message from user `user` in chat `chat`.
    pub fn message(&self, user: i64, chat: i64, text: &str) {
        let update = self.message_update(user, chat, text);
        self.shared.log().queue.push_back(update);
        self.shared.arrived.notify_waiters();
    }

    /// The Update of a text message from user `user` in chat `chat` (numbered in turn).
    pub fn message_update(&self, user: i64, chat: i64, text: &str) -> Value {
        let mut update = fixture(UPDATE_MESSAGE);
        let mut log = self.shared.log();
        update["update_id"] = json!(log.next_update);
        log.next_update += 1;
        update["message"]["message_id"] = json!(log.next_message);
        log.next_message += 1;
        update["message"]["from"]["id"] = json!(user);
        update["message"]["chat"]["id"] = json!(chat);
        update["message"]["date"] = json!(1_790_000_000);
        update["message"]["text"] = json!(text);
        update
    }

    /// Sends `update` to the webhook `url` as Telegram does, with `secret` (if any) in
    /// `X-Telegram-Bot-Api-Secret-Token`; the status and body of rein's answer.
    pub async fn post_update(
        &self,
        url: &str,
        update: &Value,
        secret: Option<&str>,
    ) -> (u16, String) {
        let mut request = crate::to_rein::client()
            .post(url)
            .header("content-type", "application/json")
            .body(update.to_string());
        if let Some(secret) = secret {
            request = request.header("x-telegram-bot-api-secret-token", secret);
        }
        crate::to_rein::answered(request).await
    }

    /// Queues a press by `user` of the button with `data` under message `message` in `chat`.
    pub fn press(&self, user: i64, chat: i64, message: i64, data: &str) {
        let mut update = fixture(UPDATE_PRESS);
        let mut log = self.shared.log();
        update["update_id"] = json!(log.next_update);
        update["callback_query"]["id"] = json!(format!("press-{}", log.next_update));
        log.next_update += 1;
        update["callback_query"]["from"]["id"] = json!(user);
        update["callback_query"]["message"]["message_id"] = json!(message);
        update["callback_query"]["message"]["chat"]["id"] = json!(chat);
        update["callback_query"]["data"] = json!(data);
        log.queue.push_back(update);
        drop(log);
        self.shared.arrived.notify_waiters();
    }

    /// How many of the failures asked for are still to come.
    pub fn failing(&self) -> usize {
        self.shared.log().failing
    }

    /// The calls received so far, `getUpdates` left out.
    pub fn calls(&self) -> Vec<BotCall> {
        self.shared
            .log()
            .calls
            .iter()
            .filter(|c| c.method != "getUpdates")
            .cloned()
            .collect()
    }

    /// How many `getUpdates` calls arrived.
    pub fn polls(&self) -> usize {
        let log = self.shared.log();
        log.calls
            .iter()
            .filter(|c| c.method == "getUpdates")
            .count()
    }
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    Path((bot, method)): Path<(String, String)>,
    body: String,
) -> Response {
    if bot != format!("bot{}", shared.token) {
        return (StatusCode::UNAUTHORIZED, axum::Json(fixture(UNAUTHORIZED))).into_response();
    }
    // `sendDocument` comes as multipart/form-data: kept as its raw text.
    let body: Value = match method.as_str() {
        "sendDocument" => json!({"raw": body}),
        _ => serde_json::from_str(&body).unwrap_or_default(),
    };
    shared.log().calls.push(BotCall {
        method: method.clone(),
        body: body.clone(),
    });
    if method == "getUpdates" {
        let mut log = shared.log();
        if log.failing > 0 {
            log.failing -= 1;
            let headers = [(axum::http::header::CONNECTION, "close")];
            return (StatusCode::BAD_GATEWAY, headers, "Bad Gateway").into_response();
        }
    }
    let result = match method.as_str() {
        "getUpdates" => updates(&shared, &body).await,
        "sendMessage" | "editMessageText" => sent(&shared, &body),
        "answerCallbackQuery" | "setWebhook" => json!(true),
        "sendDocument" => {
            let mut message = fixture(SENT_MESSAGE);
            message["document"] = json!({"file_id": "doc-1", "file_unique_id": "u-1",
                "file_name": "answer.md", "mime_type": "text/markdown"});
            message
        }
        _ => {
            let error = json!({"ok": false, "error_code": 404, "description": "Not Found"});
            return (StatusCode::NOT_FOUND, axum::Json(error)).into_response();
        }
    };
    axum::Json(json!({"ok": true, "result": result})).into_response()
}

/// The queued updates from `offset` on (those before it are confirmed and dropped), waiting
/// up to `timeout` seconds for one.
async fn updates(shared: &Shared, body: &Value) -> Value {
    let offset = body["offset"].as_i64().unwrap_or(0);
    let timeout = Duration::from_secs(body["timeout"].as_u64().unwrap_or(0));
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let waiting = shared.arrived.notified();
        {
            let mut log = shared.log();
            log.queue
                .retain(|u| u["update_id"].as_i64().unwrap_or(0) >= offset);
            // A failure asked for ends the poll under way (answered empty) so the next fails.
            if !log.queue.is_empty() || log.failing > 0 || tokio::time::Instant::now() >= deadline {
                return Value::Array(log.queue.iter().cloned().collect());
            }
        }
        if tokio::time::timeout_at(deadline, waiting).await.is_err() {
            return json!([]);
        }
    }
}

/// The message `sendMessage` sent or `editMessageText` changed.
fn sent(shared: &Shared, body: &Value) -> Value {
    let mut message = fixture(SENT_MESSAGE);
    let given = body["message_id"].as_i64();
    let id = match given.or_else(|| body["message_id"].as_str()?.parse().ok()) {
        Some(id) => id,
        None => {
            let mut log = shared.log();
            log.next_message += 1;
            log.next_message
        }
    };
    message["message_id"] = json!(id);
    // `chat_id` is "Integer or String"; the chat in the answer has the integer.
    let chat = &body["chat_id"];
    message["chat"]["id"] = match chat.as_str().and_then(|c| c.parse::<i64>().ok()) {
        Some(id) => json!(id),
        None => chat.clone(),
    };
    message["date"] = json!(1_790_000_000);
    message["text"] = body["text"].clone();
    message
}
