//! Feishu/Lark's webhooks: event subscription (`url_verification`, `im.message.receive_v1`)
//! and card callbacks (`card.action.trigger`, and the older callback whose body is the
//! action itself). As Feishu documents them:
//!
//! - with an Encrypt Key, the body is `{"encrypt": …}`: AES-256-CBC, the key the SHA-256 of
//!   the Encrypt Key, the IV the ciphertext's first 16 bytes, PKCS#7 padding, in base64; and
//!   the request is signed: `X-Lark-Signature` is the hex SHA-256 of
//!   `X-Lark-Request-Timestamp` + `X-Lark-Request-Nonce` + the Encrypt Key + the body, its
//!   timestamp within five minutes of now;
//! - every body carries the app's Verification Token (`header.token` in schema 2.0, `token`
//!   before it), which must match.
//!
//! A retried event (the same `event_id`) is taken once.

use std::sync::Arc;

use aes::cipher::{BlockDecryptMut, KeyIvInit, block_padding::Pkcs7};
use base64::Engine;
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::FEISHU;
use crate::webhook::{Answer, Hook, Inbox, Request, Seen, fresh, now_secs, same};
use crate::{ChatId, Incoming};

/// Feishu's side of the webhook server.
pub struct Events {
    token: String,
    encrypt_key: Option<String>,
    inbox: Arc<Inbox>,
    seen: Seen,
}

impl Events {
    pub(super) fn new(token: &str, encrypt_key: Option<&str>, inbox: Arc<Inbox>) -> Self {
        Self {
            token: token.to_string(),
            encrypt_key: encrypt_key.map(str::to_string),
            inbox,
            seen: Seen::default(),
        }
    }

    /// The body as JSON, decrypted and its signature checked when there is an Encrypt Key.
    fn open(&self, request: &Request<'_>, now: i64) -> Result<Value, Answer> {
        let body: Value = serde_json::from_slice(request.body)
            .map_err(|e| Answer::bad(format!("not JSON: {e}")))?;
        let Some(key) = &self.encrypt_key else {
            return match body.get("encrypt") {
                Some(_) => Err(Answer::refused("encrypted, and no encrypt key is set")),
                None => Ok(body),
            };
        };
        let sealed = body
            .get("encrypt")
            .and_then(Value::as_str)
            .ok_or_else(|| Answer::refused("not encrypted with the Encrypt Key"))?;
        let plain: Value = serde_json::from_slice(&decrypt(key, sealed).map_err(Answer::refused)?)
            .map_err(|e| Answer::bad(format!("decrypted, not JSON: {e}")))?;
        // The URL check is not signed; everything else must be.
        if plain["type"] != "url_verification" {
            check_signature(request, key, now).map_err(Answer::refused)?;
        }
        Ok(plain)
    }

    fn take(&self, request: &Request<'_>, now: i64) -> Answer {
        let body = match self.open(request, now) {
            Ok(body) => body,
            Err(answer) => return answer,
        };
        let token = body["header"]["token"]
            .as_str()
            .or(body["token"].as_str())
            .unwrap_or_default();
        if !same(token.as_bytes(), self.token.as_bytes()) {
            return Answer::refused("not the app's Verification Token");
        }
        if body["type"] == "url_verification" {
            return Answer::json(json!({"challenge": body["challenge"]}).to_string());
        }
        // Feishu sends an event again until it is answered: take each once.
        let id = body["header"]["event_id"]
            .as_str()
            .or(body["uuid"].as_str());
        let again = id.is_some_and(|id| !self.seen.first(id));
        if let Some(item) = incoming(&body).filter(|_| !again)
            && !self.inbox.put(item)
        {
            return Answer::busy();
        }
        match is_press(&body) {
            // A card callback is answered with JSON (an empty object leaves the card as is).
            true => Answer::json("{}".into()),
            false => Answer::ok(),
        }
    }
}

impl Hook for Events {
    fn paths(&self) -> Vec<&'static str> {
        vec!["/feishu/events", "/feishu/cards"]
    }

    fn receive(&self, request: &Request<'_>) -> Answer {
        self.take(request, now_secs())
    }
}

/// Why `request`'s signature is not Feishu's, if it is not.
fn check_signature(request: &Request<'_>, key: &str, now: i64) -> Result<(), &'static str> {
    let (Some(timestamp), Some(nonce), Some(signature)) = (
        request.header("x-lark-request-timestamp"),
        request.header("x-lark-request-nonce"),
        request.header("x-lark-signature"),
    ) else {
        return Err("no X-Lark-Signature, timestamp or nonce");
    };
    if !fresh(timestamp, now) {
        return Err("its timestamp is more than five minutes from now (a replay?)");
    }
    let expected = signature_of(timestamp, nonce, key, request.body);
    match same(
        expected.as_bytes(),
        signature.trim().to_ascii_lowercase().as_bytes(),
    ) {
        true => Ok(()),
        false => Err("a signature the Encrypt Key did not make"),
    }
}

/// The signature Feishu sends for `body`.
fn signature_of(timestamp: &str, nonce: &str, key: &str, body: &[u8]) -> String {
    let mut hash = Sha256::new();
    hash.update(timestamp.as_bytes());
    hash.update(nonce.as_bytes());
    hash.update(key.as_bytes());
    hash.update(body);
    hex::encode(hash.finalize())
}

/// `sealed` (base64 of the IV and the ciphertext) decrypted with the Encrypt Key `key`.
fn decrypt(key: &str, sealed: &str) -> Result<Vec<u8>, &'static str> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(sealed.trim())
        .map_err(|_| "its encrypt is not base64")?;
    if bytes.len() < 32 || bytes.len() % 16 != 0 {
        return Err("its encrypt is not an AES-CBC ciphertext");
    }
    let (iv, data) = bytes.split_at(16);
    let key = Sha256::digest(key.as_bytes());
    let mut data = data.to_vec();
    let plain = cbc::Decryptor::<aes::Aes256>::new_from_slices(&key, iv)
        .map_err(|_| "a key or IV of the wrong length")?
        .decrypt_padded_mut::<Pkcs7>(&mut data)
        .map_err(|_| "not encrypted with the Encrypt Key")?;
    Ok(plain.to_vec())
}

fn is_press(body: &Value) -> bool {
    body["header"]["event_type"] == "card.action.trigger" || body["action"].is_object()
}

/// A person's text message, or a press of a card's button.
fn incoming(body: &Value) -> Option<Incoming> {
    if is_press(body) {
        return press(body);
    }
    if body["header"]["event_type"] != "im.message.receive_v1" {
        return None;
    }
    let event: MessageEvent = serde_json::from_value(body["event"].clone()).ok()?;
    if event.sender.sender_type != "user" || event.message.message_type != "text" {
        return None;
    }
    let content: Value = serde_json::from_str(&event.message.content).ok()?;
    let mut text = content["text"].as_str()?.to_string();
    for mention in &event.message.mentions {
        text = text.replace(&mention.key, "");
    }
    Some(Incoming::Message {
        chat: ChatId {
            platform: FEISHU,
            chat: event.message.chat_id,
        },
        user: format!("{FEISHU}:{}", event.sender.sender_id.open_id),
        text: text.trim().to_string(),
    })
}

/// A card's button pressed: schema 2.0's `card.action.trigger`, or the older callback.
fn press(body: &Value) -> Option<Incoming> {
    let (event, user, chat, id) = match body["event"].is_object() {
        true => {
            let event = &body["event"];
            (
                event,
                event["operator"]["open_id"].as_str()?,
                event["context"]["open_chat_id"].as_str()?,
                body["header"]["event_id"].as_str().unwrap_or_default(),
            )
        }
        false => (
            body,
            body["open_id"].as_str()?,
            body["open_chat_id"].as_str()?,
            body["open_message_id"].as_str().unwrap_or_default(),
        ),
    };
    let data = event["action"]["value"]["data"].as_str()?;
    Some(Incoming::Pressed {
        chat: ChatId {
            platform: FEISHU,
            chat: chat.to_string(),
        },
        user: format!("{FEISHU}:{user}"),
        data: data.to_string(),
        press: id.to_string(),
    })
}

#[derive(Debug, Deserialize)]
struct MessageEvent {
    sender: Sender,
    message: Message,
}

#[derive(Debug, Deserialize)]
struct Sender {
    sender_id: SenderId,
    sender_type: String,
}

#[derive(Debug, Deserialize)]
struct SenderId {
    open_id: String,
}

#[derive(Debug, Deserialize)]
struct Message {
    chat_id: String,
    message_type: String,
    content: String,
    #[serde(default)]
    mentions: Vec<Mention>,
}

#[derive(Debug, Deserialize)]
struct Mention {
    key: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feishus_worked_example_decrypts_and_a_wrong_key_does_not() {
        let example: Value = serde_json::from_str(include_str!(
            "../../../testkit/fixtures/feishu/encrypt_example.json"
        ))
        .unwrap();
        let (key, sealed) = (
            example["encrypt_key"].as_str().unwrap(),
            example["encrypt"].as_str().unwrap(),
        );
        assert_eq!(
            decrypt(key, sealed).unwrap(),
            example["plaintext"].as_str().unwrap().as_bytes()
        );
        assert!(decrypt("another key", sealed).is_err());
        assert!(decrypt(key, "not base64!").is_err());
        assert!(decrypt(key, "AAAA").is_err());
    }
}
