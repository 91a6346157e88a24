//! Slack's webhooks: the Events API (`url_verification`, `event_callback` with `message` and
//! `app_mention` events) and interactivity (`payload=` a `block_actions` press). Every request
//! is checked as Slack documents ("Verifying requests from Slack"): `X-Slack-Signature` is
//! `v0=` and the hex HMAC-SHA256, keyed by the signing secret, of
//! `v0:{X-Slack-Request-Timestamp}:{body}`, and the timestamp lies within five minutes of now
//! (a replayed request is refused even with its signature). A retried event (the same
//! `event_id`) is taken once.

use std::sync::Arc;

use hmac::{Hmac, Mac};
use serde::Deserialize;
use serde_json::json;
use sha2::Sha256;

use super::SLACK;
use crate::webhook::{Answer, Hook, Inbox, Request, Seen, fresh, now_secs};
use crate::{ChatId, Incoming};

/// Slack's side of the webhook server.
pub struct Events {
    secret: Vec<u8>,
    inbox: Arc<Inbox>,
    seen: Seen,
}

impl Events {
    pub(super) fn new(signing_secret: &str, inbox: Arc<Inbox>) -> Self {
        Self {
            secret: signing_secret.as_bytes().to_vec(),
            inbox,
            seen: Seen::default(),
        }
    }

    /// Why `request` is not from Slack now, if it is not.
    fn check(&self, request: &Request<'_>, now: i64) -> Result<(), &'static str> {
        let (Some(timestamp), Some(signature)) = (
            request.header("x-slack-request-timestamp"),
            request.header("x-slack-signature"),
        ) else {
            return Err("no X-Slack-Signature or X-Slack-Request-Timestamp");
        };
        if !fresh(timestamp, now) {
            return Err("its timestamp is more than five minutes from now (a replay?)");
        }
        let hex = signature.strip_prefix("v0=").ok_or("not a v0 signature")?;
        let given = hex::decode(hex).map_err(|_| "a signature that is not hex")?;
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.secret).map_err(|_| "no secret")?;
        mac.update(b"v0:");
        mac.update(timestamp.as_bytes());
        mac.update(b":");
        mac.update(request.body);
        mac.verify_slice(&given)
            .map_err(|_| "a signature the signing secret did not make")
    }

    fn take(&self, request: &Request<'_>, now: i64) -> Answer {
        if let Err(why) = self.check(request, now) {
            return Answer::refused(why);
        }
        let arrived = match request.body.first() {
            _ if request.body.starts_with(b"payload=") => press(request.body),
            Some(b'{') => event(request.body, &self.seen),
            // Form-encoded, not a press: a slash command.
            _ => Ok(
                command(url::form_urlencoded::parse(request.body).into_owned())
                    .map_or(Arrival::Nothing, Arrival::Item),
            ),
        };
        match arrived {
            Ok(Arrival::Challenge(challenge)) => {
                Answer::json(json!({ "challenge": challenge }).to_string())
            }
            Ok(Arrival::Item(item)) => match self.inbox.put(item) {
                true => Answer::ok(),
                false => Answer::busy(),
            },
            Ok(Arrival::Nothing) => Answer::ok(),
            Err(why) => Answer::bad(why),
        }
    }
}

impl Hook for Events {
    fn paths(&self) -> Vec<&'static str> {
        vec!["/slack/events", "/slack/actions", "/slack/commands"]
    }

    fn receive(&self, request: &Request<'_>) -> Answer {
        self.take(request, now_secs())
    }
}

/// What a checked request carried.
#[derive(Debug, PartialEq)]
enum Arrival {
    /// The Events API's URL check: its challenge, sent back.
    Challenge(String),
    Item(Incoming),
    /// Something rein does not take (a bot's message, an edit, a retry).
    Nothing,
}

#[derive(Debug, Deserialize)]
struct Envelope {
    #[serde(rename = "type")]
    kind: String,
    challenge: Option<String>,
    event_id: Option<String>,
    event: Option<Event>,
}

#[derive(Debug, Deserialize)]
struct Event {
    #[serde(rename = "type")]
    kind: String,
    subtype: Option<String>,
    user: Option<String>,
    bot_id: Option<String>,
    text: Option<String>,
    channel: Option<String>,
    channel_type: Option<String>,
    ts: Option<String>,
    thread_ts: Option<String>,
}

/// An Events API request's body.
fn event(body: &[u8], seen: &Seen) -> Result<Arrival, String> {
    let envelope: Envelope =
        serde_json::from_slice(body).map_err(|e| format!("not an Events API body: {e}"))?;
    Ok(arrival(envelope, seen))
}

/// What an Events API body carries, each event once.
fn arrival(envelope: Envelope, seen: &Seen) -> Arrival {
    if envelope.kind == "url_verification" {
        return Arrival::Challenge(envelope.challenge.unwrap_or_default());
    }
    let Some(event) = envelope.event.filter(|_| envelope.kind == "event_callback") else {
        return Arrival::Nothing;
    };
    if let Some(id) = &envelope.event_id
        && !seen.first(id)
    {
        return Arrival::Nothing;
    }
    message(event).map_or(Arrival::Nothing, Arrival::Item)
}

/// A person's message to rein: a direct message, or a mention in a channel (whose thread
/// becomes the chat).
fn message(event: Event) -> Option<Incoming> {
    if event.bot_id.is_some() || event.subtype.is_some() {
        return None;
    }
    let (user, text, channel) = (event.user?, event.text?, event.channel?);
    let chat = match (event.kind.as_str(), event.channel_type.as_deref()) {
        ("message", Some("im")) => match event.thread_ts {
            Some(thread) => format!("{channel}/{thread}"),
            None => channel,
        },
        ("app_mention", _) => format!("{channel}/{}", event.thread_ts.or(event.ts)?),
        _ => return None,
    };
    Some(Incoming::Message {
        chat: ChatId {
            platform: SLACK,
            chat,
        },
        user: format!("{SLACK}:{user}"),
        text: without_mentions(&text),
    })
}

/// `text` without the mentions it starts with (`<@U0LAN0Z89> is it done?`).
fn without_mentions(text: &str) -> String {
    let mut rest = text.trim_start();
    while let Some(after) = rest.strip_prefix("<@") {
        match after.split_once('>') {
            Some((_, tail)) => rest = tail.trim_start(),
            None => break,
        }
    }
    rest.to_string()
}

#[derive(Debug, Deserialize)]
struct Payload {
    #[serde(rename = "type")]
    kind: String,
    user: Option<Who>,
    channel: Option<Who>,
    message: Option<PressedMessage>,
    container: Option<Container>,
    trigger_id: Option<String>,
    #[serde(default)]
    actions: Vec<Action>,
}

#[derive(Debug, Deserialize)]
struct Who {
    id: String,
}

#[derive(Debug, Deserialize)]
struct PressedMessage {
    thread_ts: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Container {
    thread_ts: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Action {
    value: Option<String>,
    action_ts: Option<String>,
}

/// An interactivity request's body (`payload=` and the JSON, form-encoded).
fn press(body: &[u8]) -> Result<Arrival, String> {
    let payload = url::form_urlencoded::parse(body)
        .find(|(name, _)| name == "payload")
        .map(|(_, value)| value.into_owned())
        .ok_or("no payload")?;
    let payload =
        serde_json::from_str(&payload).map_err(|e| format!("not an interactivity payload: {e}"))?;
    Ok(pressed(payload))
}

/// What the `payload` of a Socket Mode envelope of type `kind` carries: the same Events API
/// body, interactivity payload or slash command fields a webhook would.
pub(super) fn from_socket(kind: &str, payload: serde_json::Value, seen: &Seen) -> Option<Incoming> {
    let arrived = match kind {
        "events_api" => serde_json::from_value(payload).map(|e| arrival(e, seen)),
        "interactive" => serde_json::from_value(payload).map(pressed),
        "slash_commands" => {
            let fields = payload
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()));
            return command(fields);
        }
        _ => return None,
    };
    match arrived {
        Ok(Arrival::Item(item)) => Some(item),
        _ => None,
    }
}

/// A slash command from its fields (`command`, `text`, `user_id`, `channel_id`): `/rein
/// stop` stands for the message `/stop` (`/rein` alone for `/help`), and a command the app
/// registered under rein's own names (`/stop`) for itself. Slack keeps a message that starts
/// with `/` from being sent, so this is how a Slack user says `/stop`.
fn command(fields: impl Iterator<Item = (String, String)>) -> Option<Incoming> {
    let (mut name, mut text, mut user, mut channel) = (None, String::new(), None, None);
    for (field, value) in fields {
        match field.as_str() {
            "command" => name = Some(value),
            "text" => text = value,
            "user_id" => user = Some(value),
            "channel_id" => channel = Some(value),
            _ => {}
        }
    }
    let (name, user, channel) = (name?, user?, channel?);
    let text = text.trim();
    let said = match (name.as_str(), text) {
        ("/rein", "") => "/help".to_string(),
        ("/rein", text) => format!("/{}", text.trim_start_matches('/')),
        (name, "") => name.to_string(),
        (name, text) => format!("{name} {text}"),
    };
    Some(Incoming::Message {
        chat: ChatId {
            platform: SLACK,
            chat: channel,
        },
        user: format!("{SLACK}:{user}"),
        text: said,
    })
}

/// A `block_actions` press.
fn pressed(payload: Payload) -> Arrival {
    if payload.kind != "block_actions" {
        return Arrival::Nothing;
    }
    let (Some(user), Some(channel), Some(action)) = (
        payload.user,
        payload.channel,
        payload.actions.into_iter().next(),
    ) else {
        return Arrival::Nothing;
    };
    let thread = payload
        .message
        .and_then(|m| m.thread_ts)
        .or(payload.container.and_then(|c| c.thread_ts));
    let chat = match thread {
        Some(thread) => format!("{}/{thread}", channel.id),
        None => channel.id,
    };
    Arrival::Item(Incoming::Pressed {
        chat: ChatId {
            platform: SLACK,
            chat,
        },
        user: format!("{SLACK}:{}", user.id),
        data: action.value.unwrap_or_default(),
        press: payload.trigger_id.or(action.action_ts).unwrap_or_default(),
    })
}

/// The signature Slack would send for `body` at `timestamp`.
#[cfg(test)]
fn sign(secret: &str, timestamp: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes())
        .unwrap_or_else(|_| unreachable!("HMAC takes a key of any length"));
    mac.update(format!("v0:{timestamp}:").as_bytes());
    mac.update(body);
    format!("v0={}", hex::encode(mac.finalize().into_bytes()))
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderMap;

    use super::*;

    const SECRET: &str = "8f742231b10e8888abcd99yyyzzz85a5";

    fn request<'a>(headers: &'a HeaderMap, body: &'a [u8]) -> Request<'a> {
        Request { headers, body }
    }

    fn signed(timestamp: &str, signature: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("x-slack-request-timestamp", timestamp.parse().unwrap());
        headers.insert("x-slack-signature", signature.parse().unwrap());
        headers
    }

    #[test]
    fn only_a_fresh_request_signed_with_the_secret_is_taken() {
        let events = Events::new(SECRET, Arc::default());
        let body = br#"{"type":"url_verification","token":"x","challenge":"c4ll"}"#;
        let now = 1_531_420_618;
        let good = signed("1531420618", &sign(SECRET, "1531420618", body));
        let answer = events.take(&request(&good, body), now);
        assert_eq!(answer, Answer::json(r#"{"challenge":"c4ll"}"#.into()));
        // Another secret's signature, a changed body, no signature: refused.
        let forged = signed("1531420618", &sign("another", "1531420618", body));
        assert_eq!(events.take(&request(&forged, body), now).status, 401);
        let changed = br#"{"type":"url_verification","token":"x","challenge":"evil"}"#;
        assert_eq!(events.take(&request(&good, changed), now).status, 401);
        assert_eq!(
            events.take(&request(&HeaderMap::new(), body), now).status,
            401
        );
        // The same signed request six minutes later is a replay.
        let replay = events.take(&request(&good, body), now + 6 * 60);
        assert_eq!(replay.status, 401);
        assert!(replay.why.unwrap().contains("five minutes"));
    }

    #[test]
    fn slacks_worked_example_is_signed_as_documented() {
        let example: serde_json::Value = serde_json::from_str(include_str!(
            "../../../testkit/fixtures/slack/signature_example.json"
        ))
        .unwrap();
        let field = |name: &str| example[name].as_str().unwrap();
        let body = field("body").as_bytes();
        assert_eq!(
            sign(field("signing_secret"), field("timestamp"), body),
            field("signature")
        );
        let events = Events::new(field("signing_secret"), Arc::default());
        let headers = signed(field("timestamp"), field("signature"));
        let now = field("timestamp").parse().unwrap();
        assert_eq!(events.check(&request(&headers, body), now), Ok(()));
    }

    #[test]
    fn a_slash_command_stands_for_the_chat_command() {
        let fields = |command: &str, text: &str| {
            [
                ("command", command),
                ("text", text),
                ("user_id", "U2CERLKJA"),
                ("channel_id", "D1"),
            ]
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .into_iter()
        };
        let said = |command: &str, text: &str| match super::command(fields(command, text)) {
            Some(Incoming::Message { text, chat, user }) => {
                assert_eq!(
                    (chat.chat.as_str(), user.as_str()),
                    ("D1", "slack:U2CERLKJA")
                );
                text
            }
            other => panic!("{other:?}"),
        };
        assert_eq!(said("/rein", "stop"), "/stop");
        assert_eq!(said("/rein", " mode plan "), "/mode plan");
        assert_eq!(said("/rein", ""), "/help");
        assert_eq!(said("/undo", ""), "/undo");
        assert_eq!(said("/mode", "accept-edits"), "/mode accept-edits");
    }

    #[test]
    fn direct_messages_and_mentions_are_taken_and_bots_and_edits_left_out() {
        let seen = Seen::default();
        let body = |event: serde_json::Value, id: &str| {
            json!({"type": "event_callback", "event_id": id, "event": event}).to_string()
        };
        let dm = body(
            json!({"type": "message", "channel": "D1", "channel_type": "im",
                   "user": "U1", "text": "hi", "ts": "1.1"}),
            "Ev1",
        );
        let Arrival::Item(Incoming::Message { chat, user, text }) =
            event(dm.as_bytes(), &seen).unwrap()
        else {
            panic!("a direct message is taken");
        };
        assert_eq!(
            (chat.chat.as_str(), user.as_str(), text.as_str()),
            ("D1", "slack:U1", "hi")
        );
        // Slack's retry of the same event is not taken again.
        assert_eq!(event(dm.as_bytes(), &seen).unwrap(), Arrival::Nothing);
        let mention = body(
            json!({"type": "app_mention", "channel": "C1", "user": "U1",
                   "text": "<@U0BOT> fix the build", "ts": "2.2"}),
            "Ev2",
        );
        let Arrival::Item(Incoming::Message { chat, text, .. }) =
            event(mention.as_bytes(), &seen).unwrap()
        else {
            panic!("a mention is taken");
        };
        assert_eq!(
            (chat.chat.as_str(), text.as_str()),
            ("C1/2.2", "fix the build")
        );
        for (n, other) in [
            json!({"type": "message", "channel": "D1", "channel_type": "im", "bot_id": "B1",
                   "user": "U2", "text": "beep", "ts": "3"}),
            json!({"type": "message", "subtype": "message_changed", "channel": "D1",
                   "channel_type": "im", "user": "U1", "text": "x", "ts": "4"}),
            json!({"type": "message", "channel": "C1", "channel_type": "channel",
                   "user": "U1", "text": "chatter", "ts": "5"}),
        ]
        .into_iter()
        .enumerate()
        {
            let b = body(other, &format!("Other{n}"));
            assert_eq!(event(b.as_bytes(), &seen).unwrap(), Arrival::Nothing);
        }
    }
}
