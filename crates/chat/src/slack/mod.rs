//! Slack (<https://api.slack.com>): messages arrive by the Events API and button presses by
//! interactivity, either as webhooks signed with the app's signing secret ([`events`]) or
//! over Socket Mode ([`socket`]: a WebSocket rein opens, no public address); replies
//! go out with `chat.postMessage` and `chat.update` (text with a section block, buttons in an
//! actions block), long answers as a file (`files.getUploadURLExternal`, the upload,
//! `files.completeUploadExternal`).
//!
//! A direct message's chat is its channel (`slack:D024BE91L`); in a channel rein answers a
//! mention, and the mention's thread is the chat (`slack:C2147483705/1355517523.000005`), so
//! every thread is a session of its own.

mod events;
mod socket;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::webhook::{Hook, Inbox};
use crate::{Button, ChatError, ChatId, Incoming, Platform, Posted};

pub use events::Events;
use socket::Socket;

/// The platform's name, as ids begin.
pub const SLACK: &str = "slack";

/// Slack's Web API.
pub const API_BASE: &str = "https://slack.com/api";

/// A section block's longest text.
const MAX_CHARS: usize = 3000;

/// A Slack app's bot.
#[derive(Clone)]
pub struct Slack {
    api: Arc<str>,
    /// `Bearer xoxb-…`: never shown.
    authorization: Arc<str>,
    inbox: Arc<Inbox>,
    /// What arrives by webhook, or…
    events: Option<Arc<Events>>,
    /// …over Socket Mode.
    socket: Option<Arc<Socket>>,
}

impl std::fmt::Debug for Slack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slack").finish_non_exhaustive()
    }
}

impl Slack {
    /// The bot with `bot_token` on the Web API at `api_base`, taking the webhooks signed with
    /// `signing_secret` (the Events API and interactivity).
    pub fn by_webhook(api_base: &str, bot_token: &str, signing_secret: &str) -> Self {
        let mut slack = Self::new(api_base, bot_token);
        let events = Events::new(signing_secret, Arc::clone(&slack.inbox));
        slack.events = Some(Arc::new(events));
        slack
    }

    /// The bot with `bot_token` on the Web API at `api_base`, taking its events over Socket
    /// Mode with the app-level token `app_token` (`xapp-…`).
    pub fn by_socket(api_base: &str, bot_token: &str, app_token: &str) -> Self {
        let mut slack = Self::new(api_base, bot_token);
        slack.socket = Some(Arc::new(Socket::new(Arc::clone(&slack.api), app_token)));
        slack
    }

    fn new(api_base: &str, bot_token: &str) -> Self {
        Self {
            api: Arc::from(api_base.trim_end_matches('/')),
            authorization: Arc::from(format!("Bearer {bot_token}")),
            inbox: Arc::default(),
            events: None,
            socket: None,
        }
    }

    /// Its side of the webhook server (none over Socket Mode).
    pub fn hook(&self) -> Option<Arc<dyn Hook>> {
        self.events.as_ref().map(|e| Arc::clone(e) as Arc<dyn Hook>)
    }

    /// Calls the Web API's `method` with a JSON `body`; the answer (`ok` checked).
    async fn call(&self, method: &str, body: &Value) -> Result<Value, ChatError> {
        let client = crate::client(SLACK)?;
        let request = client
            .post(format!("{}/{method}", self.api))
            .header(reqwest::header::AUTHORIZATION, &*self.authorization)
            .json(body);
        answer(method, request).await
    }

    /// Puts `text` at the address `files.getUploadURLExternal` gave.
    async fn put_file(&self, url: &str, name: &str, text: &str) -> Result<(), ChatError> {
        let client = crate::client(SLACK)?;
        let part = reqwest::multipart::Part::text(text.to_string())
            .file_name(name.to_string())
            .mime_str("text/markdown")
            .map_err(|e| unreachable(e.to_string()))?;
        let form = reqwest::multipart::Form::new().part("file", part);
        let response = client
            .post(url)
            .multipart(form)
            .timeout(Duration::from_secs(60))
            .send()
            .await
            .map_err(|e| unreachable(format!("the file's upload: {}", crate::described(e))))?;
        match response.status().is_success() {
            true => Ok(()),
            false => Err(unreachable(format!(
                "the file's upload: HTTP {}",
                response.status()
            ))),
        }
    }
}

fn unreachable(message: String) -> ChatError {
    ChatError::Unreachable {
        platform: SLACK,
        message,
    }
}

/// Sends `request` for `method`; the answer when it says `ok`.
async fn answer(method: &str, request: reqwest::RequestBuilder) -> Result<Value, ChatError> {
    let request = request.timeout(Duration::from_secs(30));
    let got = crate::exchange(SLACK, method, request, "retry-after").await?;
    let refused = |description: String| ChatError::Refused {
        platform: SLACK,
        method: method.to_string(),
        description,
        retry_after: got.retry_after,
        code: 0,
    };
    match got.json.map(serde_json::from_value::<Reply>) {
        Ok(Ok(reply)) if reply.ok => Ok(reply.rest),
        Ok(Ok(reply)) => Err(refused(
            reply
                .error
                .unwrap_or_else(|| format!("HTTP {}", got.status)),
        )),
        // A 429 comes with an error body or none; either way it is the rate limit.
        _ if got.status == reqwest::StatusCode::TOO_MANY_REQUESTS => {
            Err(refused("ratelimited".into()))
        }
        Ok(Err(e)) => Err(unreachable(format!("{method}: {e}"))),
        Err(why) => Err(unreachable(format!("{method}: {why}"))),
    }
}

/// Every Web API answer: `{"ok": true, …}` or `{"ok": false, "error": "invalid_auth"}`.
#[derive(Debug, Deserialize)]
struct Reply {
    ok: bool,
    error: Option<String>,
    #[serde(flatten)]
    rest: Value,
}

/// The channel and, in a thread, the thread's first message of `chat`.
fn address(chat: &ChatId) -> (&str, Option<&str>) {
    match chat.chat.split_once('/') {
        Some((channel, thread)) => (channel, Some(thread)),
        None => (chat.chat.as_str(), None),
    }
}

/// The message's blocks: its text, and its buttons under it.
fn blocks(text: &str, buttons: &[Button]) -> Value {
    let mut blocks = vec![json!({
        "type": "section",
        "text": {"type": "mrkdwn", "text": crate::fit(text, MAX_CHARS)},
    })];
    if !buttons.is_empty() {
        let elements: Vec<Value> = buttons
            .iter()
            .map(|b| {
                json!({
                    "type": "button",
                    "text": {"type": "plain_text", "text": b.label},
                    "action_id": b.data,
                    "value": b.data,
                })
            })
            .collect();
        blocks.push(json!({"type": "actions", "elements": elements}));
    }
    Value::Array(blocks)
}

#[async_trait]
impl Platform for Slack {
    fn name(&self) -> &'static str {
        SLACK
    }

    fn max_chars(&self) -> usize {
        MAX_CHARS
    }

    fn edit_interval(&self) -> Duration {
        // `chat.update` is a tier-3 method (about 50 a minute): one edit a second per chat.
        Duration::from_secs(1)
    }

    async fn next(&self) -> Result<Vec<Incoming>, ChatError> {
        match &self.socket {
            Some(socket) => socket.next().await,
            None => Ok(self.inbox.next().await),
        }
    }

    async fn post(
        &self,
        chat: &ChatId,
        text: &str,
        buttons: &[Button],
    ) -> Result<Posted, ChatError> {
        let (channel, thread) = address(chat);
        let mut body = json!({
            "channel": channel,
            "text": crate::fit(text, MAX_CHARS),
            "blocks": blocks(text, buttons),
        });
        if let Some(thread) = thread {
            body["thread_ts"] = json!(thread);
        }
        let sent = self.call("chat.postMessage", &body).await?;
        let ts = sent["ts"].as_str().ok_or_else(|| ChatError::Refused {
            platform: SLACK,
            method: "chat.postMessage".into(),
            description: "the answer has no ts".into(),
            retry_after: None,
            code: 0,
        })?;
        Ok(Posted {
            chat: chat.clone(),
            message: ts.to_string(),
        })
    }

    async fn edit(&self, posted: &Posted, text: &str, buttons: &[Button]) -> Result<(), ChatError> {
        let (channel, _) = address(&posted.chat);
        let body = json!({
            "channel": channel,
            "ts": posted.message,
            "text": crate::fit(text, MAX_CHARS),
            "blocks": blocks(text, buttons),
        });
        self.call("chat.update", &body).await.map(drop)
    }

    async fn acknowledge(&self, _press: &str, _text: &str) -> Result<(), ChatError> {
        // The interactivity request was answered when it arrived (Slack wants it within 3 s);
        // the message's edit says what the press did.
        Ok(())
    }

    async fn upload(&self, chat: &ChatId, name: &str, text: &str) -> Result<(), ChatError> {
        let (channel, thread) = address(chat);
        let method = "files.getUploadURLExternal";
        let client = crate::client(SLACK)?;
        let query = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("filename", name)
            .append_pair("length", &text.len().to_string())
            .finish();
        let request = client
            .post(format!("{}/{method}", self.api))
            .header(reqwest::header::AUTHORIZATION, &*self.authorization)
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(query);
        let place = answer(method, request).await?;
        let (Some(url), Some(id)) = (place["upload_url"].as_str(), place["file_id"].as_str())
        else {
            return Err(unreachable(format!("{method}: no upload_url or file_id")));
        };
        self.put_file(url, name, text).await?;
        let mut body = json!({"files": [{"id": id, "title": name}], "channel_id": channel});
        if let Some(thread) = thread {
            body["thread_ts"] = json!(thread);
        }
        self.call("files.completeUploadExternal", &body)
            .await
            .map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_is_addressed_by_its_channel_and_first_message() {
        let chat = |id: &str| ChatId {
            platform: SLACK,
            chat: id.into(),
        };
        assert_eq!(address(&chat("D024BE91L")), ("D024BE91L", None));
        assert_eq!(
            address(&chat("C2147483705/1355517523.000005")),
            ("C2147483705", Some("1355517523.000005"))
        );
    }

    #[test]
    fn buttons_go_in_an_actions_block_under_the_text() {
        let button = Button {
            label: "Allow once".into(),
            data: "a1:once".into(),
        };
        let made = blocks("Run `ls`?", &[button]);
        assert_eq!(made[0]["text"]["text"], "Run `ls`?");
        assert_eq!(made[1]["type"], "actions");
        assert_eq!(made[1]["elements"][0]["value"], "a1:once");
        assert_eq!(blocks("done", &[]).as_array().map(Vec::len), Some(1));
    }
}
