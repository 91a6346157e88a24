//! The mock server: binds 127.0.0.1, records every request, hands scenario turns out in order
//! and applies each turn's faults, delays and chunking.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::serve::ListenerExt;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::body::{Ending, streaming_body};
use crate::cache::PromptCacheSim;
use crate::recorded::RecordedRequest;
use crate::scenario::{Fault, Scenario, ScenarioTurn};
use crate::wire::{Reply, Wire};

/// A mock LLM server on 127.0.0.1 playing a [`Scenario`]: the n-th request to any of the three
/// protocol routes gets the n-th turn. Shuts down when dropped.
#[derive(Debug)]
pub struct MockServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
    /// Dropping it tells the serve loop, open connections and hanging streams to stop.
    _shutdown: watch::Sender<()>,
}

#[derive(Debug)]
struct Shared {
    scenario: Scenario,
    log: Mutex<Log>,
    /// When set, each request is announced on stdout as `request N METHOD PATH UNIX_NS`.
    announce: AtomicBool,
    shutdown: watch::Receiver<()>,
    /// The simulated prompt cache (used when the scenario asks for it).
    cache: PromptCacheSim,
}

#[derive(Debug, Default)]
struct Log {
    requests: Vec<RecordedRequest>,
    /// Which turns have been given.
    taken: Vec<bool>,
    /// Requests that wanted a turn, including those past the end.
    turns_asked: usize,
}

/// What a request gets, decided under the lock.
enum Admission {
    NoRoute,
    /// A 400 naming a field the scenario refuses.
    RejectField(Wire, String),
    Exhausted(Wire, usize),
    Summary(Wire),
    Turn(Wire, usize),
}

impl MockServer {
    /// Starts a server on an ephemeral port of 127.0.0.1.
    pub async fn start(scenario: Scenario) -> std::io::Result<MockServer> {
        Self::start_on(scenario, 0).await
    }

    /// Starts a server on `port` of 127.0.0.1 (0 picks a free port).
    pub async fn start_on(scenario: Scenario, port: u16) -> std::io::Result<MockServer> {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let addr = listener.local_addr()?;
        let (shutdown_tx, shutdown_rx) = watch::channel(());
        let shared = Arc::new(Shared {
            scenario,
            log: Mutex::new(Log::default()),
            announce: AtomicBool::new(false),
            shutdown: shutdown_rx.clone(),
            cache: PromptCacheSim::default(),
        });
        let router = Router::new()
            .fallback(handle)
            .layer(DefaultBodyLimit::disable())
            .with_state(Arc::clone(&shared));
        // Small writes must leave at once so clients really see frames split across reads.
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let mut signal = shutdown_rx;
        let task = tokio::spawn(async move {
            let stop = async move {
                let _ = signal.changed().await;
            };
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(stop)
                .await;
        });
        Ok(MockServer {
            addr,
            shared,
            task,
            _shutdown: shutdown_tx,
        })
    }

    /// Anthropic-style base URL, `http://127.0.0.1:PORT` (clients append `/v1/messages`).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// OpenAI-style base URL, `http://127.0.0.1:PORT/v1`.
    pub fn openai_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Prints a line `request N METHOD PATH UNIX_NS` on stdout as each request arrives (the
    /// arrival time in nanoseconds since the Unix epoch), for benchmarks that time a client.
    pub fn announce_requests(&self) {
        self.shared.announce.store(true, Ordering::Relaxed);
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.log().requests.clone()
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Shared {
    fn log(&self) -> MutexGuard<'_, Log> {
        // A panicking test thread must not hide the requests from the others.
        self.log
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records the request and decides what it gets; returns the 1-based request number too.
    fn admit(&self, request: RecordedRequest) -> (usize, Admission) {
        let wire = Wire::from_path(&request.path).filter(|_| request.method == "POST");
        let has_stream_options = request.body.get("stream_options").is_some();
        let refused = self
            .scenario
            .reject_fields
            .iter()
            .find(|field| request.body.get(field.as_str()).is_some())
            .cloned();
        let offers_tools = request.body["tools"]
            .as_array()
            .is_some_and(|tools| !tools.is_empty());
        let last = ["messages", "input"]
            .iter()
            .find_map(|list| request.body[list].as_array().and_then(|l| l.last()))
            .map(Value::to_string)
            .unwrap_or_default();
        let asks_for_summary = last.contains(&self.scenario.summary_marker);
        // Turns with `when` go to the requests whose body holds their text, turns with
        // `when_last` to those whose last message does.
        let text = request.body.to_string();
        let wants = |turn: &crate::ScenarioTurn| {
            turn.when.as_ref().is_none_or(|w| text.contains(w))
                && turn.when_last.as_ref().is_none_or(|w| last.contains(w))
        };
        let mut request = request;
        if !self.scenario.record_bodies {
            request.body = Value::Null;
        }
        let arrived = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let mut log = self.log();
        let announcement = self.announce.load(Ordering::Relaxed).then(|| {
            let number = log.requests.len() + 1;
            format!(
                "request {number} {} {} {arrived}",
                request.method, request.path
            )
        });
        log.requests.push(request);
        let number = log.requests.len();
        if let Some(line) = announcement {
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout, "{line}").and_then(|()| stdout.flush());
        }
        let admission = match wire {
            None => Admission::NoRoute,
            Some(wire) if self.scenario.reject_stream_options && has_stream_options => {
                Admission::RejectField(wire, "stream_options".to_string())
            }
            Some(wire) if refused.is_some() => {
                Admission::RejectField(wire, refused.unwrap_or_default())
            }
            Some(wire)
                if (!offers_tools || asks_for_summary) && self.scenario.summary.is_some() =>
            {
                Admission::Summary(wire)
            }
            Some(wire) => {
                let turns = &self.scenario.turns;
                log.taken.resize(turns.len(), false);
                let matched = pick_turn(turns, &log.taken, wants);
                log.turns_asked += 1;
                match matched {
                    Some(turn) => {
                        log.taken[turn] = true;
                        Admission::Turn(wire, turn)
                    }
                    None => Admission::Exhausted(wire, log.turns_asked - 1),
                }
            }
        };
        (number, admission)
    }
}

/// The first unused turn whose condition (`when`, `when_last`) the request meets, else the
/// first unused unconditional one.
fn pick_turn(
    turns: &[crate::ScenarioTurn],
    taken: &[bool],
    wants: impl Fn(&crate::ScenarioTurn) -> bool,
) -> Option<usize> {
    let free = |i: &usize| !taken[*i];
    (0..turns.len())
        .filter(free)
        .find(|&i| turns[i].conditional() && wants(&turns[i]))
        .or_else(|| {
            (0..turns.len())
                .filter(free)
                .find(|&i| !turns[i].conditional())
        })
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let request = RecordedRequest::new(method.as_str(), uri.path(), &headers, &body);
    let request_body = request.body.clone();
    let (number, admission) = shared.admit(request);
    let request_id = format!("req_mock_{number}");
    match admission {
        Admission::NoRoute => {
            let message = format!("mock LLM server: no route for {method} {}", uri.path());
            let body =
                json!({"type": "error", "error": {"type": "not_found_error", "message": message}});
            json_response(StatusCode::NOT_FOUND, &body)
        }
        Admission::RejectField(wire, field) => {
            let body = json!({"error": {
                "message": format!("Unrecognized request argument supplied: {field}"),
                "type": "invalid_request_error",
                "param": null,
                "code": null,
            }});
            with_request_id(
                json_response(StatusCode::BAD_REQUEST, &body),
                wire,
                &request_id,
            )
        }
        Admission::Exhausted(wire, turn) => {
            let message = format!(
                "mock scenario exhausted: request for turn {} but the scenario has only {} turns",
                turn + 1,
                shared.scenario.turns.len()
            );
            let body = wire.error_body(500, &message, &request_id);
            let response = json_response(StatusCode::INTERNAL_SERVER_ERROR, &body);
            with_request_id(response, wire, &request_id)
        }
        Admission::Summary(wire) => {
            let Some(turn) = shared.scenario.summary.as_ref() else {
                return json_response(StatusCode::INTERNAL_SERVER_ERROR, &Value::Null);
            };
            let reply = shared.reply(wire, turn, 0, &request_body);
            let response = play(&shared, wire, &reply, &request_id).await;
            with_request_id(response, wire, &request_id)
        }
        Admission::Turn(wire, index) => {
            let Some(turn) = shared.scenario.turns.get(index) else {
                return json_response(StatusCode::INTERNAL_SERVER_ERROR, &Value::Null);
            };
            let reply = shared.reply(wire, turn, index + 1, &request_body);
            let response = play(&shared, wire, &reply, &request_id).await;
            with_request_id(response, wire, &request_id)
        }
    }
}

impl Shared {
    /// What answers `body` with `turn` (1-based `number`, 0 for the summary), its input usage
    /// from the simulated cache when the scenario asks for one.
    fn reply<'a>(
        &self,
        wire: Wire,
        turn: &'a ScenarioTurn,
        number: usize,
        body: &Value,
    ) -> Reply<'a> {
        let cached = self
            .scenario
            .prompt_cache
            .then(|| self.cache.admit(wire, body, std::time::Instant::now()));
        Reply {
            turn,
            number,
            model: body["model"].as_str().unwrap_or("mock-model").to_string(),
            include_usage: body["stream_options"]["include_usage"] == json!(true),
            cached,
        }
    }
}

/// Answers one scenario turn: delay, then an HTTP fault or the (possibly faulty) stream.
async fn play(shared: &Shared, wire: Wire, reply: &Reply<'_>, request_id: &str) -> Response {
    let turn: &ScenarioTurn = reply.turn;
    if let Some(ms) = turn.delay_ms {
        let mut shutdown = shared.shutdown.clone();
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(ms)) => {}
            _ = shutdown.changed() => {}
        }
    }
    if let Some(raw) = &turn.raw_stream {
        let body = streaming_body(
            vec![raw.clone()],
            turn.chunk_size,
            Ending::Complete,
            shared.shutdown.clone(),
        );
        let mut response = Response::new(body);
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/event-stream"),
        );
        return response;
    }
    if turn.whole && turn.fault.is_none() {
        return json_response(StatusCode::OK, &crate::whole::reply(wire, reply));
    }
    let frames = wire.frames(reply);
    let (frames, ending) = match &turn.fault {
        Some(Fault::Http {
            status,
            body,
            retry_after,
            raw_body,
            headers,
        }) => {
            let mut response = match raw_body {
                Some(raw) => raw_response(*status, raw),
                None => http_fault(wire, *status, body.as_ref(), *retry_after, request_id),
            };
            for (name, value) in headers {
                if let (Ok(name), Ok(value)) = (
                    header::HeaderName::from_bytes(name.as_bytes()),
                    HeaderValue::from_str(value),
                ) {
                    response.headers_mut().insert(name, value);
                }
            }
            return response;
        }
        Some(Fault::CutAfter { events }) => (&frames[..(*events).min(frames.len())], Ending::Cut),
        Some(Fault::HangAfter { events }) => (&frames[..(*events).min(frames.len())], Ending::Hang),
        Some(Fault::PingAfter { events }) => (&frames[..(*events).min(frames.len())], Ending::Ping),
        None => (&frames[..], Ending::Complete),
    };
    if turn.gzip && ending == Ending::Complete {
        return gzip_response(frames.iter().map(|f| f.encode()).collect::<String>());
    }
    let encoded = frames.iter().map(|f| f.encode()).collect();
    let body = streaming_body(encoded, turn.chunk_size, ending, shared.shutdown.clone());
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

fn http_fault(
    wire: Wire,
    status: u16,
    body: Option<&Value>,
    retry_after: Option<u64>,
    request_id: &str,
) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let default = || {
        let reason = code.canonical_reason().unwrap_or("Error");
        wire.error_body(
            status,
            &format!("mock fault: HTTP {status} {reason}"),
            request_id,
        )
    };
    let body = body.cloned().unwrap_or_else(default);
    let mut response = json_response(code, &body);
    if let Some(seconds) = retry_after {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    response
}

/// The whole stream `text`, gzip-compressed.
fn gzip_response(text: String) -> Response {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let compressed = encoder
        .write_all(text.as_bytes())
        .and_then(|()| encoder.finish())
        .unwrap_or_default();
    let mut response = Response::new(Body::from(compressed));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    response
}

/// `raw` verbatim under `status`, typed as an event stream when it is SSE-framed.
fn raw_response(status: u16, raw: &str) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (code, Body::from(raw.to_string())).into_response();
    let kind = if raw.starts_with("data:") || raw.starts_with("event:") {
        "text/event-stream"
    } else {
        "text/plain"
    };
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    response
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    let mut response = (status, Body::from(body.to_string())).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn with_request_id(mut response: Response, wire: Wire, request_id: &str) -> Response {
    if let Ok(value) = HeaderValue::from_str(request_id) {
        response
            .headers_mut()
            .insert(wire.request_id_header(), value);
    }
    response
}
