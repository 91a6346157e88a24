//! The chat platforms `rein serve` talks to, behind one trait ([`Platform`]): each listens
//! for messages (and button presses) and posts, edits and answers in its chats: Telegram's
//! Bot API ([`telegram`], by long polling), Slack ([`slack`]: the Events API and
//! interactivity by webhook) and Feishu/Lark ([`feishu`]: event subscription by webhook,
//! interactive cards). The webhooks share one server ([`webhook`]).
//!
//! Ids are written `platform:id` everywhere (`telegram:123456`), as the allowlist names users,
//! so one chat of one platform can never be taken for another's.

pub mod feishu;
pub mod slack;
pub mod telegram;
pub mod webhook;

use std::time::Duration;

use async_trait::async_trait;

/// A chat (or a thread of one) on a platform.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChatId {
    /// The platform (`telegram`).
    pub platform: &'static str,
    /// The platform's id of the chat.
    pub chat: String,
}

impl std::fmt::Display for ChatId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.platform, self.chat)
    }
}

/// A message rein posted, to edit later.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Posted {
    /// Its chat.
    pub chat: ChatId,
    /// The platform's id of the message.
    pub message: String,
}

/// A button under a message; pressing it sends `data` back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Button {
    /// What it says.
    pub label: String,
    /// What a press sends back (at most 64 bytes on Telegram).
    pub data: String,
}

/// What arrived from a chat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Incoming {
    /// A text message.
    Message {
        /// Where.
        chat: ChatId,
        /// Who, as `platform:id`.
        user: String,
        /// What it says.
        text: String,
    },
    /// A button of a message rein posted was pressed.
    Pressed {
        /// Where.
        chat: ChatId,
        /// Who, as `platform:id`.
        user: String,
        /// The button's data.
        data: String,
        /// The press's id, to acknowledge it.
        press: String,
    },
}

impl Incoming {
    /// Its chat.
    pub fn chat(&self) -> &ChatId {
        match self {
            Self::Message { chat, .. } | Self::Pressed { chat, .. } => chat,
        }
    }

    /// Who sent it, as `platform:id`.
    pub fn user(&self) -> &str {
        match self {
            Self::Message { user, .. } | Self::Pressed { user, .. } => user,
        }
    }
}

/// What went wrong talking to a platform.
#[derive(Debug, thiserror::Error)]
pub enum ChatError {
    /// The request did not get an answer (network, timeout); the token is never in it.
    #[error("{platform}: {message}")]
    Unreachable {
        /// The platform.
        platform: &'static str,
        /// What failed.
        message: String,
    },
    /// The platform answered with an error.
    #[error("{platform} refused {method}: {description}")]
    Refused {
        /// The platform.
        platform: &'static str,
        /// The API method.
        method: String,
        /// Its description of the error.
        description: String,
        /// How long it asks to wait before trying again (rate limits).
        retry_after: Option<Duration>,
        /// The platform's code for the error (0 when it gives none).
        code: i64,
    },
}

/// One chat platform.
#[async_trait]
pub trait Platform: Send + Sync {
    /// Its name, as ids begin (`telegram`).
    fn name(&self) -> &'static str;

    /// The longest message it takes, in characters.
    fn max_chars(&self) -> usize;

    /// The shortest wait between two edits of one message (its rate limit).
    fn edit_interval(&self) -> Duration;

    /// Waits for what arrives next from its chats; an error after the platform stayed
    /// unreachable (the caller waits and asks again).
    async fn next(&self) -> Result<Vec<Incoming>, ChatError>;

    /// Posts `text` in `chat` with `buttons` under it.
    async fn post(
        &self,
        chat: &ChatId,
        text: &str,
        buttons: &[Button],
    ) -> Result<Posted, ChatError>;

    /// Replaces the text (and buttons) of a message rein posted.
    async fn edit(&self, posted: &Posted, text: &str, buttons: &[Button]) -> Result<(), ChatError>;

    /// Acknowledges a button press (the platform stops showing it as pending).
    async fn acknowledge(&self, press: &str, text: &str) -> Result<(), ChatError>;

    /// Sends `text` as a file named `name` (an answer too long for a message).
    async fn upload(&self, chat: &ChatId, name: &str, text: &str) -> Result<(), ChatError>;
}

/// The client every platform shares (TLS set up once); `platform` names the one asking in
/// the error when it cannot be made.
pub(crate) fn client(platform: &'static str) -> Result<&'static reqwest::Client, ChatError> {
    static CLIENT: std::sync::OnceLock<Option<reqwest::Client>> = std::sync::OnceLock::new();
    let built = CLIENT.get_or_init(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
        reqwest::Client::builder()
            .user_agent(concat!("rein/", env!("CARGO_PKG_VERSION")))
            .build()
            .ok()
    });
    built.as_ref().ok_or(ChatError::Unreachable {
        platform,
        message: "its HTTP client could not be made (TLS)".into(),
    })
}

/// What came back for a request: its status, the wait a rate limit asked for, and its JSON
/// body (or why there is none: the body's error, or the status when it was not a success).
pub(crate) struct Exchanged {
    pub(crate) status: reqwest::StatusCode,
    pub(crate) retry_after: Option<Duration>,
    pub(crate) json: Result<serde_json::Value, String>,
}

/// Sends `request` for `platform`'s `what` (its timeout set by the caller); what came back,
/// the wait read from the header `wait` (seconds). An error when no answer came.
pub(crate) async fn exchange(
    platform: &'static str,
    what: &str,
    request: reqwest::RequestBuilder,
    wait: &str,
) -> Result<Exchanged, ChatError> {
    let response = request.send().await.map_err(|e| ChatError::Unreachable {
        platform,
        message: format!("{what}: {}", described(e)),
    })?;
    let status = response.status();
    let retry_after = response
        .headers()
        .get(wait)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_secs);
    let json = response
        .json()
        .await
        .map_err(|e| match status.is_success() {
            true => described(e),
            false => format!("HTTP {status}"),
        });
    Ok(Exchanged {
        status,
        retry_after,
        json,
    })
}

/// `e` with its causes ("error sending request: client error (Connect): dns error: …"), and
/// without its URL (Telegram's carries the token).
pub(crate) fn described(e: reqwest::Error) -> String {
    let e = e.without_url();
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(&e);
    while let Some(source) = cause {
        let said = source.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        cause = source.source();
    }
    text
}

/// `text` cut to `max` characters, its end marked, for a platform's limit.
pub fn fit(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max.saturating_sub(2)).collect();
    format!("{kept} …")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_to_the_limit_with_a_mark() {
        assert_eq!(fit("short", 10), "short");
        let cut = fit(&"é".repeat(5000), 4096);
        assert_eq!(cut.chars().count(), 4096);
        assert!(cut.ends_with(" …"));
    }
}
