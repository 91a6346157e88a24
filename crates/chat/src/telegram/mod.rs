//! Telegram's Bot API (<https://core.telegram.org/bots/api>): updates by long polling
//! (`getUpdates`) or by webhook ([`webhook`]: `setWebhook` with a secret token), replies with
//! `sendMessage` and `editMessageText`, buttons as an inline keyboard whose presses come back
//! as callback queries (`answerCallbackQuery`). The token is in every request's path, so no
//! error message carries a URL or the token.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::webhook::Hook;
use crate::{Button, ChatError, ChatId, Incoming, Platform, Posted};

mod webhook;

pub use webhook::{Updates, valid_secret};

/// The platform's name, as ids begin.
pub const TELEGRAM: &str = "telegram";

/// Telegram's own server.
pub const API_BASE: &str = "https://api.telegram.org";

/// How long one `getUpdates` waits for an update.
const POLL: Duration = Duration::from_secs(25);

/// A message's longest text.
const MAX_CHARS: usize = 4096;

/// A bot on Telegram.
#[derive(Clone)]
pub struct Telegram {
    /// `{api_base}/bot{token}`: never shown.
    api: Arc<str>,
    poll: Duration,
    /// The next update wanted (`getUpdates`' offset).
    offset: Arc<Mutex<i64>>,
    /// Updates by webhook instead of long polling.
    webhook: Option<Arc<Updates>>,
}

impl std::fmt::Debug for Telegram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telegram").finish_non_exhaustive()
    }
}

impl Telegram {
    /// The bot with `token`, served by `api_base` (Telegram's, a self-hosted Bot API server,
    /// a test server).
    pub fn new(api_base: &str, token: &str) -> Self {
        Self {
            api: Arc::from(format!("{}/bot{token}", api_base.trim_end_matches('/'))),
            poll: POLL,
            offset: Arc::new(Mutex::new(0)),
            webhook: None,
        }
    }

    /// The same bot taking its updates by webhook, checked with the secret token `secret`
    /// (see [`valid_secret`]); [`Telegram::set_webhook`] tells Telegram where.
    pub fn with_webhook(mut self, secret: &str) -> Self {
        self.webhook = Some(Arc::new(Updates::new(secret)));
        self
    }

    /// Its side of the webhook server, when it takes its updates by webhook.
    pub fn hook(&self) -> Option<Arc<dyn Hook>> {
        self.webhook
            .as_ref()
            .map(|w| Arc::clone(w) as Arc<dyn Hook>)
    }

    /// Asks Telegram to send the updates to `url` with the secret token `secret`
    /// (`setWebhook`).
    pub async fn set_webhook(&self, url: &str, secret: &str) -> Result<(), ChatError> {
        let body = json!({
            "url": url,
            "secret_token": secret,
            "allowed_updates": ["message", "callback_query"],
        });
        let _: bool = self.call("setWebhook", body).await?;
        Ok(())
    }

    /// The same bot waiting at most `poll` in each `getUpdates`.
    pub fn with_poll(mut self, poll: Duration) -> Self {
        self.poll = poll;
        self
    }

    /// Calls `method` with `body`; its `result`.
    async fn call<T: DeserializeOwned>(&self, method: &str, body: Value) -> Result<T, ChatError> {
        self.send(method, Payload::Json(body)).await
    }

    /// Calls `method` with `payload` (JSON, or a form with a file); its `result`.
    async fn send<T: DeserializeOwned>(
        &self,
        method: &str,
        payload: Payload,
    ) -> Result<T, ChatError> {
        let client = crate::client(TELEGRAM)?;
        let request = client
            .post(format!("{}/{method}", self.api))
            .timeout(self.poll + Duration::from_secs(15));
        let request = match payload {
            Payload::Json(body) => request.json(&body),
            Payload::Form(form) => request.multipart(form),
        };
        // The token is in the path: whatever an error says, never the token.
        let token = self.api.rsplit("/bot").next().unwrap_or_default();
        let unreachable = |message: String| ChatError::Unreachable {
            platform: TELEGRAM,
            message: match token.is_empty() {
                true => message,
                false => message.replace(token, "<token>"),
            },
        };
        let got = crate::exchange(TELEGRAM, method, request, "retry-after")
            .await
            .map_err(|e| match e {
                ChatError::Unreachable { message, .. } => unreachable(message),
                refused => refused,
            })?;
        // Errors come as JSON too; anything else is a proxy's or an outage's page.
        let answer: Answer<T> = got
            .json
            .and_then(|json| serde_json::from_value(json).map_err(|e| e.to_string()))
            .map_err(|why| unreachable(format!("{method}: {why}")))?;
        match answer.result {
            Some(result) if answer.ok => Ok(result),
            _ => Err(ChatError::Refused {
                platform: TELEGRAM,
                method: method.to_string(),
                description: answer
                    .description
                    .unwrap_or_else(|| "an error without a description".into()),
                retry_after: answer
                    .parameters
                    .and_then(|p| p.retry_after)
                    .map(Duration::from_secs),
                code: answer.error_code.unwrap_or_default(),
            }),
        }
    }

    fn lock_offset(&self) -> std::sync::MutexGuard<'_, i64> {
        self.offset.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A request's body.
enum Payload {
    Json(Value),
    Form(reqwest::multipart::Form),
}

/// Every answer: `{"ok": true, "result": …}` or `{"ok": false, "description": …}`.
#[derive(Debug, Deserialize)]
struct Answer<T> {
    ok: bool,
    result: Option<T>,
    description: Option<String>,
    error_code: Option<i64>,
    parameters: Option<Parameters>,
}

#[derive(Debug, Deserialize)]
struct Parameters {
    retry_after: Option<u64>,
}

#[derive(Debug, Deserialize)]
struct Update {
    update_id: i64,
    message: Option<Message>,
    callback_query: Option<CallbackQuery>,
}

#[derive(Debug, Deserialize)]
struct Message {
    message_id: i64,
    from: Option<User>,
    chat: Chat,
    text: Option<String>,
    message_thread_id: Option<i64>,
    #[serde(default)]
    is_topic_message: bool,
}

#[derive(Debug, Deserialize)]
struct User {
    id: i64,
    #[serde(default)]
    is_bot: bool,
}

#[derive(Debug, Deserialize)]
struct Chat {
    id: i64,
}

#[derive(Debug, Deserialize)]
struct CallbackQuery {
    id: String,
    from: User,
    message: Option<Message>,
    data: Option<String>,
}

impl Message {
    /// The chat, a forum topic being a chat of its own (`-100123/7`).
    fn chat_id(&self) -> ChatId {
        let chat = match self.message_thread_id.filter(|_| self.is_topic_message) {
            Some(thread) => format!("{}/{thread}", self.chat.id),
            None => self.chat.id.to_string(),
        };
        ChatId {
            platform: TELEGRAM,
            chat,
        }
    }
}

fn user_id(user: &User) -> String {
    format!("{TELEGRAM}:{}", user.id)
}

/// What arrived in `update`: a text message from a person, a press of a button; nothing for
/// everything else (bots, pictures, edits, joins).
fn incoming(update: Update) -> Option<Incoming> {
    if let Some(message) = update.message {
        let from = message.from.as_ref().filter(|u| !u.is_bot)?;
        let text = message.text.clone()?;
        return Some(Incoming::Message {
            chat: message.chat_id(),
            user: user_id(from),
            text,
        });
    }
    let press = update.callback_query?;
    Some(Incoming::Pressed {
        chat: press.message.as_ref()?.chat_id(),
        user: user_id(&press.from),
        data: press.data.unwrap_or_default(),
        press: press.id,
    })
}

/// `chat_id` (and `message_thread_id` for a topic) of `chat`, for a request's body.
fn address(chat: &ChatId) -> Value {
    match chat.chat.split_once('/') {
        Some((id, thread)) => json!({"chat_id": id, "message_thread_id": thread}),
        None => json!({"chat_id": chat.chat}),
    }
}

fn keyboard(buttons: &[Button]) -> Value {
    let row: Vec<Value> = buttons
        .iter()
        .map(|b| json!({"text": b.label, "callback_data": b.data}))
        .collect();
    json!({"inline_keyboard": [row]})
}

#[async_trait]
impl Platform for Telegram {
    fn name(&self) -> &'static str {
        TELEGRAM
    }

    fn max_chars(&self) -> usize {
        MAX_CHARS
    }

    fn edit_interval(&self) -> Duration {
        // About one edit a second per chat stays clear of the Bot API's limits.
        Duration::from_secs(1)
    }

    async fn next(&self) -> Result<Vec<Incoming>, ChatError> {
        if let Some(webhook) = &self.webhook {
            return Ok(webhook.inbox.next().await);
        }
        let offset = *self.lock_offset();
        let body = json!({
            "offset": offset,
            "timeout": self.poll.as_secs(),
            "allowed_updates": ["message", "callback_query"],
        });
        let updates: Vec<Update> = self.call("getUpdates", body).await?;
        if let Some(last) = updates.iter().map(|u| u.update_id).max() {
            let mut next = self.lock_offset();
            *next = (*next).max(last + 1);
        }
        Ok(updates.into_iter().filter_map(incoming).collect())
    }

    async fn post(
        &self,
        chat: &ChatId,
        text: &str,
        buttons: &[Button],
    ) -> Result<Posted, ChatError> {
        let mut body = address(chat);
        body["text"] = json!(crate::fit(text, MAX_CHARS));
        if !buttons.is_empty() {
            body["reply_markup"] = keyboard(buttons);
        }
        let sent: Message = self.call("sendMessage", body).await?;
        Ok(Posted {
            chat: chat.clone(),
            message: sent.message_id.to_string(),
        })
    }

    async fn edit(&self, posted: &Posted, text: &str, buttons: &[Button]) -> Result<(), ChatError> {
        let mut body = address(&posted.chat);
        if let Some(object) = body.as_object_mut() {
            object.remove("message_thread_id");
        }
        body["message_id"] = match posted.message.parse::<i64>() {
            Ok(id) => json!(id),
            Err(_) => json!(posted.message),
        };
        body["text"] = json!(crate::fit(text, MAX_CHARS));
        body["reply_markup"] = keyboard(buttons);
        // The edited message comes back (or `true` for an inline message's).
        let _: Value = self.call("editMessageText", body).await?;
        Ok(())
    }

    async fn acknowledge(&self, press: &str, text: &str) -> Result<(), ChatError> {
        let body = json!({"callback_query_id": press, "text": text});
        let _: bool = self.call("answerCallbackQuery", body).await?;
        Ok(())
    }

    async fn upload(&self, chat: &ChatId, name: &str, text: &str) -> Result<(), ChatError> {
        let document = reqwest::multipart::Part::text(text.to_string())
            .file_name(name.to_string())
            .mime_str("text/markdown")
            .map_err(|e| ChatError::Unreachable {
                platform: TELEGRAM,
                message: e.to_string(),
            })?;
        let mut form = reqwest::multipart::Form::new().part("document", document);
        if let Value::Object(fields) = address(chat) {
            for (field, value) in fields {
                let value = value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_string);
                form = form.text(field, value);
            }
        }
        let _: Value = self.send("sendDocument", Payload::Form(form)).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn updates_become_messages_and_presses_and_the_rest_is_left_out() {
        let updates: Vec<Update> = serde_json::from_value(json!([
            {"update_id": 1, "message": {"message_id": 5, "date": 1, "text": "hi",
                "from": {"id": 42, "is_bot": false, "first_name": "A"},
                "chat": {"id": 42, "type": "private"}}},
            {"update_id": 2, "message": {"message_id": 6, "date": 1, "text": "beep",
                "from": {"id": 7, "is_bot": true, "first_name": "B"},
                "chat": {"id": 42, "type": "private"}}},
            {"update_id": 3, "message": {"message_id": 7, "date": 1,
                "from": {"id": 42, "is_bot": false, "first_name": "A"},
                "chat": {"id": 42, "type": "private"}, "photo": []}},
            {"update_id": 4, "message": {"message_id": 8, "date": 1, "text": "in a topic",
                "message_thread_id": 3, "is_topic_message": true,
                "from": {"id": 42, "is_bot": false, "first_name": "A"},
                "chat": {"id": -1001, "type": "supergroup"}}},
            {"update_id": 5, "callback_query": {"id": "99", "chat_instance": "x", "data": "allow:1",
                "from": {"id": 42, "is_bot": false, "first_name": "A"},
                "message": {"message_id": 9, "date": 1, "chat": {"id": 42, "type": "private"}}}}
        ]))
        .unwrap();
        let got: Vec<Incoming> = updates.into_iter().filter_map(incoming).collect();
        let chat = |id: &str| ChatId {
            platform: TELEGRAM,
            chat: id.into(),
        };
        assert_eq!(
            got,
            [
                Incoming::Message {
                    chat: chat("42"),
                    user: "telegram:42".into(),
                    text: "hi".into()
                },
                Incoming::Message {
                    chat: chat("-1001/3"),
                    user: "telegram:42".into(),
                    text: "in a topic".into()
                },
                Incoming::Pressed {
                    chat: chat("42"),
                    user: "telegram:42".into(),
                    data: "allow:1".into(),
                    press: "99".into()
                },
            ]
        );
        assert_eq!(
            address(&chat("-1001/3")),
            json!({"chat_id": "-1001", "message_thread_id": "3"})
        );
    }
}
