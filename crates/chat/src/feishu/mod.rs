//! Feishu/Lark (<https://open.feishu.cn>, <https://open.larksuite.com>): messages and card
//! presses arrive by webhook ([`events`]); replies are interactive cards (the text in a
//! markdown element, buttons in an action element) sent with `im/v1/messages` and updated in
//! place (`PATCH im/v1/messages/:message_id`), long answers a file (`im/v1/files`, then a
//! `file` message). Calls carry the app's tenant access token, asked with its App ID and App
//! Secret and asked again before it expires or when Feishu says it is no longer valid.
//!
//! A chat is Feishu's chat (`feishu:oc_…`): a one-to-one chat with the bot, or a group in
//! which people mention it.

mod events;

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::webhook::{Hook, Inbox};
use crate::{Button, ChatError, ChatId, Incoming, Platform, Posted};

pub use events::Events;

/// The platform's name, as ids begin.
pub const FEISHU: &str = "feishu";

/// Feishu's Open Platform (Lark's: `https://open.larksuite.com`).
pub const API_BASE: &str = "https://open.feishu.cn";

/// A card's longest text (a card's JSON stays under Feishu's 30 KB).
const MAX_CHARS: usize = 8000;

/// Feishu's codes for a tenant access token that is missing, invalid or expired.
const TOKEN_INVALID: [i64; 3] = [99_991_661, 99_991_663, 99_991_664];

/// A Feishu (or Lark) app's bot.
#[derive(Clone)]
pub struct Feishu {
    api: Arc<str>,
    app_id: Arc<str>,
    /// Never shown.
    app_secret: Arc<str>,
    token: Arc<tokio::sync::Mutex<Option<(String, Instant)>>>,
    inbox: Arc<Inbox>,
    events: Arc<Events>,
}

impl std::fmt::Debug for Feishu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Feishu").finish_non_exhaustive()
    }
}

/// What a Feishu app is known by.
#[derive(Debug, Clone, Copy)]
pub struct App<'a> {
    /// The Open Platform's address (`https://open.feishu.cn`, Lark's, a test server's).
    pub api_base: &'a str,
    /// `cli_…`.
    pub app_id: &'a str,
    /// The App Secret (never shown).
    pub app_secret: &'a str,
    /// The Verification Token every event carries.
    pub verification_token: &'a str,
    /// The Encrypt Key, when events are encrypted and signed.
    pub encrypt_key: Option<&'a str>,
}

impl Feishu {
    /// The bot of `app`.
    pub fn new(app: App<'_>) -> Self {
        let inbox = Arc::new(Inbox::default());
        let events = Events::new(app.verification_token, app.encrypt_key, Arc::clone(&inbox));
        Self {
            api: Arc::from(app.api_base.trim_end_matches('/')),
            app_id: Arc::from(app.app_id),
            app_secret: Arc::from(app.app_secret),
            token: Arc::default(),
            inbox,
            events: Arc::new(events),
        }
    }

    /// Its side of the webhook server.
    pub fn hook(&self) -> Arc<dyn Hook> {
        Arc::clone(&self.events) as Arc<dyn Hook>
    }

    /// The tenant access token, asked for when there is none or it is about to expire.
    async fn token(&self) -> Result<String, ChatError> {
        let mut kept = self.token.lock().await;
        if let Some((token, until)) = kept.as_ref()
            && Instant::now() < *until
        {
            return Ok(token.clone());
        }
        let client = crate::client(FEISHU)?;
        let path = "auth/v3/tenant_access_token/internal";
        let request = client
            .post(format!("{}/open-apis/{path}", self.api))
            .json(&json!({"app_id": &*self.app_id, "app_secret": &*self.app_secret}));
        let answer = send(path, request).await?;
        let token = answer["tenant_access_token"]
            .as_str()
            .ok_or_else(|| unreachable(format!("{path}: no tenant_access_token")))?
            .to_string();
        // Asked again five minutes before it expires (two hours, Feishu says).
        let lasts = Duration::from_secs(answer["expire"].as_u64().unwrap_or(7200));
        let until = Instant::now() + lasts.saturating_sub(Duration::from_secs(300));
        *kept = Some((token.clone(), until));
        Ok(token)
    }

    /// Calls `path` (under `open-apis/`) as the bot, asking for a new token once when
    /// Feishu says the one sent is no longer valid; `data` of the answer.
    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Body,
    ) -> Result<Value, ChatError> {
        let client = crate::client(FEISHU)?;
        let mut renewed = false;
        loop {
            let token = self.token().await?;
            let request = client
                .request(method.clone(), format!("{}/open-apis/{path}", self.api))
                .bearer_auth(&token);
            let request = match body.build() {
                Ok(Built::Json(json)) => request.json(&json),
                Ok(Built::Form(form)) => request.multipart(form),
                Err(e) => return Err(unreachable(e)),
            };
            match send(path, request).await {
                Err(ChatError::Refused { code, .. })
                    if TOKEN_INVALID.contains(&code) && !renewed =>
                {
                    renewed = true;
                    *self.token.lock().await = None;
                }
                other => return other.map(|answer| answer["data"].clone()),
            }
        }
    }
}

/// What a call sends: JSON, or a file (built anew for a retried call).
enum Body {
    Json(Value),
    File { name: String, text: String },
}

enum Built {
    Json(Value),
    Form(reqwest::multipart::Form),
}

impl Body {
    fn build(&self) -> Result<Built, String> {
        match self {
            Self::Json(json) => Ok(Built::Json(json.clone())),
            Self::File { name, text } => {
                let part = reqwest::multipart::Part::text(text.clone())
                    .file_name(name.clone())
                    .mime_str("text/markdown")
                    .map_err(|e| e.to_string())?;
                let form = reqwest::multipart::Form::new()
                    .text("file_type", "stream")
                    .text("file_name", name.clone())
                    .part("file", part);
                Ok(Built::Form(form))
            }
        }
    }
}

fn unreachable(message: String) -> ChatError {
    ChatError::Unreachable {
        platform: FEISHU,
        message,
    }
}

/// Sends `request` for `path`; the answer when its `code` is 0.
async fn send(path: &str, request: reqwest::RequestBuilder) -> Result<Value, ChatError> {
    // Feishu says when its limit lets calls in again.
    let request = request.timeout(Duration::from_secs(30));
    let got = crate::exchange(FEISHU, path, request, "x-ogw-ratelimit-reset").await?;
    let answer = got
        .json
        .map_err(|why| unreachable(format!("{path}: {why}")))?;
    match answer["code"].as_i64() {
        Some(0) => Ok(answer),
        code => Err(ChatError::Refused {
            platform: FEISHU,
            method: path.to_string(),
            description: answer["msg"]
                .as_str()
                .map_or_else(|| format!("HTTP {}", got.status), str::to_string),
            retry_after: got.retry_after,
            code: code.unwrap_or_default(),
        }),
    }
}

/// An interactive card with `text` and `buttons` (`update_multi`, so rein can update it).
fn card(text: &str, buttons: &[Button]) -> String {
    let mut elements = vec![json!({"tag": "markdown", "content": crate::fit(text, MAX_CHARS)})];
    if !buttons.is_empty() {
        let actions: Vec<Value> = buttons
            .iter()
            .map(|b| {
                json!({
                    "tag": "button",
                    "text": {"tag": "plain_text", "content": b.label},
                    "type": "default",
                    "value": {"data": b.data},
                })
            })
            .collect();
        elements.push(json!({"tag": "action", "actions": actions}));
    }
    json!({
        "config": {"wide_screen_mode": true, "update_multi": true},
        "elements": elements,
    })
    .to_string()
}

#[async_trait]
impl Platform for Feishu {
    fn name(&self) -> &'static str {
        FEISHU
    }

    fn max_chars(&self) -> usize {
        MAX_CHARS
    }

    fn edit_interval(&self) -> Duration {
        // A card takes five updates a second; one a second leaves room for the other chats.
        Duration::from_secs(1)
    }

    async fn next(&self) -> Result<Vec<Incoming>, ChatError> {
        Ok(self.inbox.next().await)
    }

    async fn post(
        &self,
        chat: &ChatId,
        text: &str,
        buttons: &[Button],
    ) -> Result<Posted, ChatError> {
        let body = json!({
            "receive_id": chat.chat,
            "msg_type": "interactive",
            "content": card(text, buttons),
        });
        let path = "im/v1/messages?receive_id_type=chat_id";
        let sent = self
            .call(reqwest::Method::POST, path, Body::Json(body))
            .await?;
        let id = sent["message_id"]
            .as_str()
            .ok_or_else(|| unreachable("im/v1/messages: no message_id".into()))?;
        Ok(Posted {
            chat: chat.clone(),
            message: id.to_string(),
        })
    }

    async fn edit(&self, posted: &Posted, text: &str, buttons: &[Button]) -> Result<(), ChatError> {
        let path = format!("im/v1/messages/{}", posted.message);
        let body = Body::Json(json!({"content": card(text, buttons)}));
        self.call(reqwest::Method::PATCH, &path, body)
            .await
            .map(drop)
    }

    async fn acknowledge(&self, _press: &str, _text: &str) -> Result<(), ChatError> {
        // The callback was answered when it arrived (Feishu wants it within 3 s); the card's
        // update says what the press did.
        Ok(())
    }

    async fn upload(&self, chat: &ChatId, name: &str, text: &str) -> Result<(), ChatError> {
        let file = Body::File {
            name: name.to_string(),
            text: text.to_string(),
        };
        let uploaded = self
            .call(reqwest::Method::POST, "im/v1/files", file)
            .await?;
        let key = uploaded["file_key"]
            .as_str()
            .ok_or_else(|| unreachable("im/v1/files: no file_key".into()))?;
        let body = json!({
            "receive_id": chat.chat,
            "msg_type": "file",
            "content": json!({"file_key": key}).to_string(),
        });
        let path = "im/v1/messages?receive_id_type=chat_id";
        self.call(reqwest::Method::POST, path, Body::Json(body))
            .await
            .map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_card_has_its_text_and_buttons_carrying_their_data() {
        let button = Button {
            label: "Deny".into(),
            data: "a3:deny".into(),
        };
        let made: Value = serde_json::from_str(&card("Run `rm x`?", &[button])).unwrap();
        assert_eq!(made["config"]["update_multi"], true);
        assert_eq!(made["elements"][0]["content"], "Run `rm x`?");
        assert_eq!(
            made["elements"][1]["actions"][0]["value"]["data"],
            "a3:deny"
        );
        let plain: Value = serde_json::from_str(&card("done", &[])).unwrap();
        assert_eq!(plain["elements"].as_array().map(Vec::len), Some(1));
    }
}
