//! Telegram's updates by webhook instead of long polling: rein registers its address with
//! `setWebhook` and a secret token, and Telegram sends each update there with the token in
//! `X-Telegram-Bot-Api-Secret-Token` ("to ensure that the request comes from a webhook set by
//! you"); a request without it, or with another, is refused. An update sent again (the same
//! `update_id`) is taken once.

use std::sync::Arc;

use super::{Update, incoming};
use crate::webhook::{Answer, Hook, Inbox, Request, Seen, same};

/// The header Telegram's requests carry the secret token in.
const SECRET_HEADER: &str = "x-telegram-bot-api-secret-token";

/// Telegram's side of the webhook server.
pub struct Updates {
    secret: String,
    pub(super) inbox: Arc<Inbox>,
    seen: Seen,
}

impl Updates {
    pub(super) fn new(secret: &str) -> Self {
        Self {
            secret: secret.to_string(),
            inbox: Arc::default(),
            seen: Seen::default(),
        }
    }
}

/// Whether `secret` is one Telegram takes: 1 to 256 of `A-Z`, `a-z`, `0-9`, `_` and `-`.
pub fn valid_secret(secret: &str) -> bool {
    (1..=256).contains(&secret.len())
        && secret
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl Hook for Updates {
    fn paths(&self) -> Vec<&'static str> {
        vec!["/telegram"]
    }

    fn receive(&self, request: &Request<'_>) -> Answer {
        let given = request.header(SECRET_HEADER).unwrap_or_default();
        if !same(given.as_bytes(), self.secret.as_bytes()) {
            return Answer::refused("no X-Telegram-Bot-Api-Secret-Token, or not the one set");
        }
        let update: Update = match serde_json::from_slice(request.body) {
            Ok(update) => update,
            Err(e) => return Answer::bad(format!("not an Update: {e}")),
        };
        if !self.seen.first(&update.update_id.to_string()) {
            return Answer::ok();
        }
        match incoming(update).map(|item| self.inbox.put(item)) {
            Some(false) => Answer::busy(),
            _ => Answer::ok(),
        }
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderMap;

    use super::*;

    #[test]
    fn only_the_secret_token_set_lets_an_update_in() {
        let updates = Updates::new("s3cr3t_token-1");
        let body = br#"{"update_id": 7, "message": {"message_id": 1, "date": 1, "text": "hi",
            "from": {"id": 42, "is_bot": false, "first_name": "A"},
            "chat": {"id": 42, "type": "private"}}}"#;
        let with = |token: Option<&str>| {
            let mut headers = HeaderMap::new();
            if let Some(token) = token {
                headers.insert(SECRET_HEADER, token.parse().unwrap());
            }
            let request = Request {
                headers: &headers,
                body,
            };
            updates.receive(&request).status
        };
        assert_eq!(with(None), 401);
        assert_eq!(with(Some("guessed")), 401);
        assert_eq!(with(Some("s3cr3t_token-1")), 200);
        assert!(valid_secret("s3cr3t_token-1"));
        assert!(!valid_secret("has space") && !valid_secret("") && !valid_secret(&"a".repeat(257)));
    }
}
