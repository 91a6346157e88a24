//! A fake of Feishu's Open Platform for `rein serve`'s tests. Its API on 127.0.0.1 hands out
//! tenant access tokens for the app's App ID and Secret, and records the messages sent
//! (`im/v1/messages`), the cards updated (`PATCH im/v1/messages/:id`) and the files uploaded
//! (`im/v1/files`); a wrong or withdrawn token gets the documented 99991663. Its other half
//! sends rein what Feishu would: `im.message.receive_v1` events and `card.action.trigger`
//! callbacks carrying the Verification Token, encrypted with the Encrypt Key (AES-256-CBC, the
//! key the SHA-256 of the Encrypt Key, a random IV first, base64) and signed (`X-Lark-*`) when
//! there is one. Payloads are made from `fixtures/feishu/` (sources in its `SOURCE.md`).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use aes::cipher::{BlockEncryptMut, KeyIvInit, block_padding::Pkcs7};
use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::BotCall;
use crate::to_rein::{Rein, epoch_secs};

const MESSAGE: &str = include_str!("../fixtures/feishu/im_message_receive_v1.json");
const PRESS: &str = include_str!("../fixtures/feishu/card_action_trigger.json");
const TOKEN_OK: &str = include_str!("../fixtures/feishu/tenant_access_token_ok.json");
const CREATED: &str = include_str!("../fixtures/feishu/message_create_ok.json");
const PATCHED: &str = include_str!("../fixtures/feishu/message_patch_ok.json");
const INVALID_TOKEN: &str = include_str!("../fixtures/feishu/error_invalid_token.json");

/// A Feishu app, as the fake knows it.
#[derive(Debug, Clone)]
pub struct FeishuApp {
    /// `cli_…`.
    pub app_id: String,
    /// What rein asks its tokens with.
    pub app_secret: String,
    /// What every event carries.
    pub verification_token: String,
    /// The Encrypt Key (none: events go in the clear, unsigned).
    pub encrypt_key: Option<String>,
}

#[derive(Debug, Default)]
struct Log {
    calls: Vec<BotCall>,
    next: u64,
    /// The tenant access token handed out last.
    token: Option<String>,
    /// Calls still to fail as an outage does.
    failing: usize,
}

#[derive(Debug)]
struct Shared {
    app: FeishuApp,
    log: Mutex<Log>,
}

impl Shared {
    fn log(&self) -> MutexGuard<'_, Log> {
        self.log.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The fake Feishu. Shuts down when dropped.
#[derive(Debug)]
pub struct FakeFeishu {
    addr: SocketAddr,
    shared: Arc<Shared>,
    rein: Rein,
    task: JoinHandle<()>,
}

impl Drop for FakeFeishu {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn fixture(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_default()
}

/// `plain` encrypted with the Encrypt Key `key` as Feishu does.
pub fn feishu_encrypt(key: &str, plain: &[u8]) -> String {
    let iv: [u8; 16] = std::array::from_fn(|_| fastrand::u8(..));
    let key = Sha256::digest(key.as_bytes());
    let mut buffer = plain.to_vec();
    buffer.resize(plain.len() + 16, 0);
    let sealed = cbc::Encryptor::<aes::Aes256>::new_from_slices(&key, &iv)
        .unwrap_or_else(|_| unreachable!("a 32-byte key and a 16-byte IV"))
        .encrypt_padded_mut::<Pkcs7>(&mut buffer, plain.len())
        .unwrap_or_else(|_| unreachable!("room for the padding was made"))
        .to_vec();
    let mut bytes = iv.to_vec();
    bytes.extend(sealed);
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Feishu's `X-Lark-Signature` of `body`.
pub fn feishu_signature(timestamp: &str, nonce: &str, key: &str, body: &[u8]) -> String {
    let mut hash = Sha256::new();
    hash.update(format!("{timestamp}{nonce}{key}").as_bytes());
    hash.update(body);
    hex::encode(hash.finalize())
}

impl FakeFeishu {
    /// Serves `app`.
    pub async fn start(app: FeishuApp) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            app,
            log: Mutex::default(),
        });
        let app = Router::new()
            .route(
                "/open-apis/auth/v3/tenant_access_token/internal",
                axum::routing::post(token),
            )
            .route("/open-apis/im/v1/messages", axum::routing::post(create))
            .route(
                "/open-apis/im/v1/messages/{id}",
                axum::routing::patch(patch),
            )
            .route("/open-apis/im/v1/files", axum::routing::post(file))
            .with_state(Arc::clone(&shared));
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Self {
            addr,
            shared,
            rein: Rein::default(),
            task,
        })
    }

    /// The `api_base` to give rein.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Where rein's webhook server is (`http://127.0.0.1:…`).
    pub fn deliver_to(&self, url: &str) {
        self.rein.set(url);
    }

    /// The calls received so far (token requests left out).
    pub fn calls(&self) -> Vec<BotCall> {
        let log = self.shared.log();
        log.calls
            .iter()
            .filter(|c| c.method != "tenant_access_token")
            .cloned()
            .collect()
    }

    /// How many tenant access tokens were asked for.
    pub fn tokens_asked(&self) -> usize {
        let log = self.shared.log();
        log.calls
            .iter()
            .filter(|c| c.method == "tenant_access_token")
            .count()
    }

    /// The next `count` message and file calls fail as an outage looks from outside: a bare
    /// 502 (a proxy's, not Feishu's JSON) on a connection the fake then closes.
    pub fn fail_next(&self, count: usize) {
        self.shared.log().failing = count;
    }

    /// How many of the failures asked for are still to come.
    pub fn failing(&self) -> usize {
        self.shared.log().failing
    }

    /// The token handed out stops being valid (as after its two hours).
    pub fn withdraw_token(&self) {
        self.shared.log().token = None;
    }

    /// Sends `body` (JSON) to rein's `path` with `headers`; the status rein answered, and
    /// its body.
    pub async fn send(
        &self,
        path: &str,
        headers: &[(&str, String)],
        body: String,
    ) -> (u16, String) {
        let mut all = vec![("content-type", "application/json".to_string())];
        all.extend(headers.iter().cloned());
        self.rein.post(path, &all, body).await
    }

    /// Sends `event` to `/feishu/events` as Feishu would: encrypted and signed now when the
    /// app has an Encrypt Key.
    pub async fn deliver(&self, event: &Value) -> (u16, String) {
        let Some(key) = self.shared.app.encrypt_key.clone() else {
            return self.send("/feishu/events", &[], event.to_string()).await;
        };
        let body = json!({"encrypt": feishu_encrypt(&key, event.to_string().as_bytes())});
        let body = body.to_string();
        let (timestamp, nonce) = (epoch_secs().to_string(), format!("n{}", fastrand::u32(..)));
        let signature = feishu_signature(&timestamp, &nonce, &key, body.as_bytes());
        let headers = [
            ("x-lark-request-timestamp", timestamp),
            ("x-lark-request-nonce", nonce),
            ("x-lark-signature", signature),
        ];
        self.send("/feishu/events", &headers, body).await
    }

    /// The `im.message.receive_v1` event of a text from `open_id` in `chat` (`event_id` `id`).
    pub fn message(&self, open_id: &str, chat: &str, text: &str, id: &str) -> Value {
        let mut event = fixture(MESSAGE);
        event["header"]["token"] = json!(self.shared.app.verification_token);
        event["header"]["app_id"] = json!(self.shared.app.app_id);
        event["header"]["event_id"] = json!(id);
        event["event"]["sender"]["sender_id"]["open_id"] = json!(open_id);
        event["event"]["message"]["chat_id"] = json!(chat);
        event["event"]["message"]["chat_type"] = json!("p2p");
        event["event"]["message"]["content"] = json!(json!({"text": text}).to_string());
        event["event"]["message"]["mentions"] = json!([]);
        event
    }

    /// The `card.action.trigger` callback of `open_id`'s press of the button carrying `data`
    /// on the card `message` in `chat`.
    pub fn press(&self, open_id: &str, chat: &str, message: &str, data: &str) -> Value {
        let mut event = fixture(PRESS);
        event["header"]["token"] = json!(self.shared.app.verification_token);
        event["header"]["app_id"] = json!(self.shared.app.app_id);
        event["header"]["event_id"] = json!(format!("press-{}", fastrand::u64(..)));
        event["event"]["operator"]["open_id"] = json!(open_id);
        event["event"]["action"]["value"] = json!({"data": data});
        event["event"]["context"]["open_message_id"] = json!(message);
        event["event"]["context"]["open_chat_id"] = json!(chat);
        event
    }
}

fn record(shared: &Shared, method: &str, body: Value) -> u64 {
    let mut log = shared.log();
    log.next += 1;
    log.calls.push(BotCall {
        method: method.into(),
        body,
    });
    log.next
}

async fn token(State(shared): State<Arc<Shared>>, body: String) -> Response {
    let asked: Value = serde_json::from_str(&body).unwrap_or_default();
    let n = record(&shared, "tenant_access_token", asked.clone());
    let app = &shared.app;
    if asked["app_id"] != app.app_id.as_str() || asked["app_secret"] != app.app_secret.as_str() {
        let refused = json!({"code": 10014, "msg": "app secret invalid"});
        return (StatusCode::BAD_REQUEST, axum::Json(refused)).into_response();
    }
    let mut answer = fixture(TOKEN_OK);
    let token = format!("t-fake{n}");
    answer["tenant_access_token"] = json!(token);
    shared.log().token = Some(token);
    axum::Json(answer).into_response()
}

/// An outage's 502 while one is asked for, else the 99991663 answer when `headers` do not
/// carry the token handed out.
fn unauthorized(shared: &Shared, headers: &HeaderMap) -> Option<Response> {
    {
        let mut log = shared.log();
        if log.failing > 0 {
            log.failing -= 1;
            let close = [(axum::http::header::CONNECTION, "close")];
            return Some((StatusCode::BAD_GATEWAY, close, "Bad Gateway").into_response());
        }
    }
    let given = headers.get("authorization").and_then(|v| v.to_str().ok());
    let valid = shared.log().token.clone().map(|t| format!("Bearer {t}"));
    match given.is_some() && given.map(str::to_string) == valid {
        true => None,
        false => {
            Some((StatusCode::BAD_REQUEST, axum::Json(fixture(INVALID_TOKEN))).into_response())
        }
    }
}

async fn create(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    body: String,
) -> Response {
    if let Some(refused) = unauthorized(&shared, &headers) {
        return refused;
    }
    let mut sent: Value = serde_json::from_str(&body).unwrap_or_default();
    let query = url::form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes());
    let kind = query.into_iter().find(|(k, _)| k == "receive_id_type");
    sent["receive_id_type"] = json!(kind.map(|(_, v)| v.into_owned()));
    // Messages are numbered in the order they were sent: om_fake1, om_fake2…
    let n = {
        let log = shared.log();
        1 + log
            .calls
            .iter()
            .filter(|c| c.method == "im.message.create")
            .count()
    };
    let id = format!("om_fake{n}");
    sent["message_id"] = json!(id);
    record(&shared, "im.message.create", sent.clone());
    let mut answer = fixture(CREATED);
    answer["data"]["message_id"] = json!(id);
    answer["data"]["chat_id"] = sent["receive_id"].clone();
    answer["data"]["msg_type"] = sent["msg_type"].clone();
    answer["data"]["body"]["content"] = sent["content"].clone();
    axum::Json(answer).into_response()
}

async fn patch(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: String,
) -> Response {
    if let Some(refused) = unauthorized(&shared, &headers) {
        return refused;
    }
    let mut patched: Value = serde_json::from_str(&body).unwrap_or_default();
    patched["message_id"] = json!(id);
    record(&shared, "im.message.patch", patched);
    axum::Json(fixture(PATCHED)).into_response()
}

async fn file(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: String) -> Response {
    if let Some(refused) = unauthorized(&shared, &headers) {
        return refused;
    }
    let n = record(&shared, "im.file.create", json!({"raw": body}));
    axum::Json(json!({"code": 0, "msg": "success", "data": {"file_key": format!("file_fake{n}")}}))
        .into_response()
}
