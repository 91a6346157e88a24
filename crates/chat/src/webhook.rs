//! The webhook server: one HTTP listener for every platform that sends its events to rein
//! (Slack's Events API, interactivity and slash commands, Feishu's event subscription and card
//! callbacks, Telegram's webhook). Each platform's [`Hook`] owns its paths and checks every
//! request itself (signature, token, replay window) before anything in it is taken; what
//! fails a check gets 401 and goes nowhere.
//!
//! Bodies are capped at [`MAX_BODY`]; a request is answered at once (platforms retry what
//! is not answered within seconds), and what it carries is queued for the platform's
//! [`crate::Platform::next`].

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;

use crate::Incoming;

/// The largest request body taken.
pub const MAX_BODY: usize = 1 << 20;

/// How far a signed request's timestamp may be from now (Slack's documented window; used
/// for Feishu's signed requests too).
pub const REPLAY_WINDOW: Duration = Duration::from_secs(5 * 60);

/// One request, as a hook sees it.
#[derive(Debug)]
pub struct Request<'a> {
    /// Its headers.
    pub headers: &'a HeaderMap,
    /// Its body, exactly as sent (signatures are over these bytes).
    pub body: &'a [u8],
}

impl Request<'_> {
    /// The header `name` as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// A hook's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// A JSON body (empty: none).
    pub json: String,
    /// Why a request was refused, for the log (never sent back).
    pub why: Option<String>,
}

impl Answer {
    /// 200 with nothing in it.
    pub fn ok() -> Self {
        Self::json(String::new())
    }

    /// 200 with `json`.
    pub fn json(json: String) -> Self {
        Self {
            status: 200,
            json,
            why: None,
        }
    }

    /// 401: the request failed its check.
    pub fn refused(why: impl Into<String>) -> Self {
        Self {
            status: 401,
            json: String::new(),
            why: Some(why.into()),
        }
    }

    /// 400: not something the platform sends.
    pub fn bad(why: impl Into<String>) -> Self {
        Self {
            status: 400,
            json: String::new(),
            why: Some(why.into()),
        }
    }

    /// 503: rein cannot take it now (the platform sends it again).
    pub fn busy() -> Self {
        Self {
            status: 503,
            json: String::new(),
            why: Some("too many events waiting".into()),
        }
    }
}

/// A platform's side of the webhook server.
pub trait Hook: Send + Sync {
    /// The paths it answers (`/slack/events`).
    fn paths(&self) -> Vec<&'static str>;

    /// Checks `request` and takes what it carries; its answer.
    fn receive(&self, request: &Request<'_>) -> Answer;
}

/// The webhook server for `hooks`, listening on `addr`, in a task of its own (serving until
/// it is aborted or the process ends); its address (the port chosen when `addr`'s is 0).
pub async fn serve(
    addr: SocketAddr,
    hooks: Vec<Arc<dyn Hook>>,
) -> std::io::Result<(SocketAddr, tokio::task::JoinHandle<()>)> {
    let listener = TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let mut routes: HashMap<&'static str, Arc<dyn Hook>> = HashMap::new();
    for hook in hooks {
        for path in hook.paths() {
            routes.insert(path, Arc::clone(&hook));
        }
    }
    let app = Router::new()
        .fallback(route)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(Arc::new(routes));
    let task = tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            eprintln!("rein serve: the webhook server stopped: {e}");
        }
    });
    Ok((local, task))
}

type Routes = Arc<HashMap<&'static str, Arc<dyn Hook>>>;

async fn route(
    State(routes): State<Routes>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(hook) = routes.get(uri.path()) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let request = Request {
        headers: &headers,
        body: &body,
    };
    let answer = hook.receive(&request);
    if let Some(why) = &answer.why {
        eprintln!(
            "rein serve: refused a request to {} ({}): {why}",
            uri.path(),
            answer.status
        );
    }
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if answer.json.is_empty() {
        return status.into_response();
    }
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        answer.json,
    )
        .into_response()
}

/// Seconds since the epoch now.
pub fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// Whether `timestamp` (seconds, as the request said) lies within the replay window of now.
pub fn fresh(timestamp: &str, now: i64) -> bool {
    let Ok(then) = timestamp.trim().parse::<i64>() else {
        return false;
    };
    now.abs_diff(then) <= REPLAY_WINDOW.as_secs()
}

/// `a == b` in a time that does not depend on where they differ.
pub fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// What a webhook platform's requests carried, waiting for [`crate::Platform::next`].
#[derive(Debug)]
pub struct Inbox {
    sender: tokio::sync::mpsc::Sender<Incoming>,
    receiver: tokio::sync::Mutex<tokio::sync::mpsc::Receiver<Incoming>>,
}

impl Default for Inbox {
    fn default() -> Self {
        let (sender, receiver) = tokio::sync::mpsc::channel(Self::ROOM);
        Self {
            sender,
            receiver: tokio::sync::Mutex::new(receiver),
        }
    }
}

impl Inbox {
    /// How many arrivals may wait.
    const ROOM: usize = 1024;

    /// Queues `item`; `false` when the inbox is full.
    pub fn put(&self, item: Incoming) -> bool {
        self.sender.try_send(item).is_ok()
    }

    /// Waits for the next arrivals (all of those waiting).
    pub async fn next(&self) -> Vec<Incoming> {
        let mut receiver = self.receiver.lock().await;
        let Some(first) = receiver.recv().await else {
            return Vec::new();
        };
        let mut items = vec![first];
        while let Ok(item) = receiver.try_recv() {
            items.push(item);
        }
        items
    }
}

/// The ids of the events already taken, so a platform's retry of one is not taken twice.
#[derive(Debug, Default)]
pub struct Seen {
    order: std::sync::Mutex<std::collections::VecDeque<String>>,
}

impl Seen {
    /// How many ids are remembered.
    const KEPT: usize = 1024;

    /// Whether `id` is new (and remembers it).
    pub fn first(&self, id: &str) -> bool {
        let mut order = self.order.lock().unwrap_or_else(|p| p.into_inner());
        if order.iter().any(|seen| seen == id) {
            return false;
        }
        if order.len() == Self::KEPT {
            order.pop_front();
        }
        order.push_back(id.to_string());
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_outside_five_minutes_are_stale() {
        assert!(fresh("1000", 1000));
        assert!(fresh("1000", 1300));
        assert!(!fresh("1000", 1301));
        assert!(!fresh("1301", 1000));
        assert!(!fresh("", 1000));
        assert!(!fresh("12abc", 1000));
    }

    #[test]
    fn equal_only_when_every_byte_is() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"ab"));
    }

    #[test]
    fn a_retried_event_is_seen_once() {
        let seen = Seen::default();
        assert!(seen.first("Ev1"));
        assert!(!seen.first("Ev1"));
        assert!(seen.first("Ev2"));
    }
}
