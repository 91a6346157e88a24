//! The machinery every provider shares: send the request, map HTTP errors, decode the SSE
//! body through the provider's parser, retry before any output, and time out idle streams.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use reqwest::RequestBuilder;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, USER_AGENT};

use crate::error::{HttpFailure, KeySource};
use crate::retry::retry_after_ms;
use crate::sse::{SseDecoder, SseEvent};
use crate::{
    LlmError, LlmErrorKind, ModelClient, ModelEvent, ModelEventStream, ModelRequest,
    ProviderConfig, ProviderKind,
};

/// Turns one provider's SSE events into [`ModelEvent`]s.
pub(crate) trait StreamParser: Send {
    /// Handles one event, appending what it produced to `out`.
    fn on_event(&mut self, event: SseEvent, out: &mut Vec<ModelEvent>) -> Result<(), LlmError>;
    /// The byte stream ended: finish, or fail when the response did not complete.
    fn on_end(&mut self, out: &mut Vec<ModelEvent>) -> Result<(), LlmError>;
    /// Whether the response is complete ([`ModelEvent::Completed`] was produced).
    fn is_done(&self) -> bool;
}

/// What distinguishes one wire protocol: where and how to send, and how to read the answer.
pub(crate) trait WireProtocol: Send + Sync + 'static {
    /// The protocol.
    fn kind(&self) -> ProviderKind;
    /// The request URL for a base URL.
    fn endpoint(&self, base_url: &str) -> String;
    /// Adds authentication and protocol headers.
    fn authorize(&self, builder: RequestBuilder, api_key: Option<&str>) -> RequestBuilder;
    /// Headers a particular request needs (a beta feature it uses).
    fn request_headers(&self, _request: &ModelRequest) -> Vec<(&'static str, &'static str)> {
        Vec::new()
    }
    /// The JSON body for a request, serialised (anew for every attempt). Protocols write it
    /// from the request's own data, without building a `serde_json::Value` tree first: that
    /// copied the whole transcript on every request.
    fn body(&self, request: &ModelRequest) -> serde_json::Result<Vec<u8>>;
    /// A fresh parser for one response.
    fn parser(&self) -> Box<dyn StreamParser>;
    /// Learns from an error answer; `true` when the request should be resent at once with a
    /// rebuilt body (a few times per request at most: once per field the server refuses).
    fn adapt(&self, _error: &LlmError) -> bool {
        false
    }
}

/// A [`ModelClient`] speaking protocol `P` over HTTP.
pub(crate) struct HttpClient<P> {
    inner: Arc<Inner<P>>,
}

struct Inner<P> {
    http: reqwest::Client,
    config: ProviderConfig,
    protocol: P,
    url: String,
}

impl<P: WireProtocol> HttpClient<P> {
    pub(crate) fn new(http: reqwest::Client, config: ProviderConfig, protocol: P) -> Self {
        let url = protocol.endpoint(config.base_url.trim_end_matches('/'));
        Self {
            inner: Arc::new(Inner {
                http,
                config,
                protocol,
                url,
            }),
        }
    }
}

impl<P: WireProtocol> ModelClient for HttpClient<P> {
    fn kind(&self) -> ProviderKind {
        self.inner.protocol.kind()
    }

    fn stream(&self, request: ModelRequest) -> ModelEventStream {
        let state = Attempts {
            inner: Arc::clone(&self.inner),
            request,
            attempt: 0,
            adaptations: 0,
            phase: Phase::Send,
            pending: VecDeque::new(),
            rng: fastrand::Rng::new(),
        };
        Box::pin(futures::stream::unfold(state, |mut state| async move {
            state.next().await.map(|item| (item, state))
        }))
    }
}

/// Largest whole JSON answer read in place of a stream.
const MAX_WHOLE_REPLY: u64 = 64 * 1024 * 1024;

/// Refused optional fields a request is resent without, at most.
const MAX_ADAPTATIONS: u8 = 4;

type ByteStream = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

/// The state of one streamed request across its attempts.
struct Attempts<P> {
    inner: Arc<Inner<P>>,
    request: ModelRequest,
    attempt: u32,
    /// Bodies rebuilt after the server refused a field (each refused field once).
    adaptations: u8,
    phase: Phase,
    pending: VecDeque<Result<ModelEvent, LlmError>>,
    rng: fastrand::Rng,
}

enum Phase {
    Send,
    Wait(Duration),
    Read(Box<Reading>),
    Done,
}

struct Reading {
    body: ByteStream,
    decoder: SseDecoder,
    parser: Box<dyn StreamParser>,
    request_id: Option<String>,
    /// Output events were produced: from now on nothing is retried.
    output_started: bool,
    /// The body has ended.
    ended: bool,
    /// When the parser last produced output (or the body started).
    progressed: tokio::time::Instant,
}

impl<P: WireProtocol> Attempts<P> {
    fn provider(&self) -> &'static str {
        self.inner.protocol.kind().name()
    }

    async fn next(&mut self) -> Option<Result<ModelEvent, LlmError>> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Some(item);
            }
            match std::mem::replace(&mut self.phase, Phase::Done) {
                Phase::Done => return None,
                Phase::Wait(delay) => {
                    tokio::time::sleep(delay).await;
                    self.phase = Phase::Send;
                }
                Phase::Send => {
                    self.attempt += 1;
                    match self.send().await {
                        Ok(reading) => self.phase = Phase::Read(Box::new(reading)),
                        Err(err)
                            if self.adaptations < MAX_ADAPTATIONS
                                && self.inner.protocol.adapt(&err) =>
                        {
                            self.adaptations += 1;
                            self.attempt -= 1;
                            self.phase = Phase::Send;
                        }
                        Err(err) => self.fail(err, false),
                    }
                }
                Phase::Read(mut reading) => match self.read(&mut reading).await {
                    Ok(()) if reading.parser.is_done() || reading.ended => {}
                    Ok(()) => self.phase = Phase::Read(reading),
                    Err(err) => {
                        let err = err.with_request_id(reading.request_id.as_deref());
                        self.fail(err, reading.output_started);
                    }
                },
            }
        }
    }

    /// Queues a retry notice and a wait when `err` may be retried, else the error itself.
    fn fail(&mut self, mut err: LlmError, output_started: bool) {
        let policy = self.inner.config.retry;
        let delay = if output_started {
            None
        } else {
            policy.delay_for(self.attempt, &err, &mut self.rng)
        };
        if let Some(delay) = delay {
            self.pending.push_back(Ok(ModelEvent::Retry {
                attempt: self.attempt,
                delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                error: err,
            }));
            self.phase = Phase::Wait(delay);
            return;
        }
        if !output_started {
            policy.explain_refusal(&mut err);
        }
        self.pending.push_back(Err(err));
        self.phase = Phase::Done;
    }

    async fn send(&mut self) -> Result<Reading, LlmError> {
        let inner = &self.inner;
        let body = inner.protocol.body(&self.request).map_err(|e| {
            LlmError::new(
                LlmErrorKind::Protocol,
                self.provider(),
                format!("cannot encode request: {e}"),
            )
        })?;
        let builder = inner
            .http
            .post(&inner.url)
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "text/event-stream")
            .header(USER_AGENT, concat!("rein/", env!("CARGO_PKG_VERSION")))
            .body(body);
        let mut builder = inner
            .protocol
            .authorize(builder, inner.config.api_key.as_deref());
        for (name, value) in inner.protocol.request_headers(&self.request) {
            builder = builder.header(name, value);
        }
        let idle = inner.config.idle_timeout;
        let response = match tokio::time::timeout(idle, builder.send()).await {
            Err(_) => return Err(self.idle_error()),
            Ok(Err(e)) => return Err(self.transport_error(&e)),
            Ok(Ok(response)) => response,
        };
        let request_id = request_id(response.headers());
        let status = response.status();
        if !status.is_success() {
            let retry_after = retry_after_ms(response.headers());
            let text = match tokio::time::timeout(idle, response.text()).await {
                Ok(Ok(text)) => text,
                _ => String::new(),
            };
            let key = KeySource {
                env: &inner.config.api_key_env,
                present: inner.config.api_key.is_some(),
            };
            let failure = HttpFailure {
                status: status.as_u16(),
                body: &text,
                request_id,
                retry_after_ms: retry_after,
            };
            let mut error = LlmError::from_http(self.provider(), key, failure);
            if status.as_u16() == 404 {
                error.message.push_str(&crate::error::v1_hint(&inner.url));
            }
            return Err(error);
        }
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if content_type.starts_with("application/json") {
            return self.read_whole(response, request_id).await;
        }
        Ok(Reading {
            body: Box::pin(response.bytes_stream()),
            decoder: SseDecoder::default(),
            parser: inner.protocol.parser(),
            request_id,
            output_started: false,
            ended: false,
            progressed: tokio::time::Instant::now(),
        })
    }

    /// A whole JSON answer to the streamed request ([`crate::whole`]): read, turned into the
    /// stream's events and parsed at once; the reading that follows only ends.
    #[allow(clippy::disallowed_methods)] // a switch of rein's own debugging output
    async fn read_whole(
        &mut self,
        response: reqwest::Response,
        request_id: Option<String>,
    ) -> Result<Reading, LlmError> {
        let provider = self.provider();
        let protocol_error =
            |message: String| LlmError::new(LlmErrorKind::Protocol, provider, message);
        if response
            .content_length()
            .is_some_and(|n| n > MAX_WHOLE_REPLY)
        {
            return Err(protocol_error(format!(
                "the server answered with a JSON document over {MAX_WHOLE_REPLY} bytes instead of a stream"
            )));
        }
        let idle = self.inner.config.idle_timeout;
        let bytes = match tokio::time::timeout(idle, response.bytes()).await {
            Err(_) => return Err(self.idle_error()),
            Ok(Err(e)) => return Err(self.transport_error(&e)),
            Ok(Ok(bytes)) => bytes,
        };
        let mut parser = self.inner.protocol.parser();
        let out = crate::whole::parse(self.inner.protocol.kind(), parser.as_mut(), &bytes)?;
        if std::env::var_os("REIN_DEBUG").is_some() {
            eprintln!(
                "rein: debug: {} answered the streamed request with a whole JSON message",
                self.inner.url
            );
        }
        let output_started = out.iter().any(|e| !matches!(e, ModelEvent::Retry { .. }));
        self.pending.extend(out.into_iter().map(Ok));
        Ok(Reading {
            body: Box::pin(futures::stream::empty()),
            decoder: SseDecoder::default(),
            parser,
            request_id,
            output_started,
            ended: false,
            progressed: tokio::time::Instant::now(),
        })
    }

    /// Reads one chunk (or the end) and queues the events it completes.
    async fn read(&mut self, reading: &mut Reading) -> Result<(), LlmError> {
        let chunk = tokio::time::timeout(self.inner.config.idle_timeout, reading.body.next())
            .await
            .map_err(|_| self.idle_error())?;
        let mut out = Vec::new();
        let result = match chunk {
            Some(Ok(bytes)) => self.decode(reading, &bytes, &mut out),
            Some(Err(e)) => Err(self.transport_error(&e)),
            None => {
                reading.ended = true;
                let last = reading.decoder.finish();
                let parsed = match last {
                    Some(event) => reading.parser.on_event(event, &mut out),
                    None => Ok(()),
                };
                parsed
                    .and_then(|()| reading.parser.on_end(&mut out))
                    .and_then(|()| {
                        if reading.parser.is_done() {
                            return Ok(());
                        }
                        Err(LlmError::new(
                            LlmErrorKind::Protocol,
                            self.provider(),
                            "the stream ended before the response completed",
                        ))
                    })
            }
        };
        if out.iter().any(|e| !matches!(e, ModelEvent::Retry { .. })) {
            reading.output_started = true;
            reading.progressed = tokio::time::Instant::now();
        } else if result.is_ok() && !reading.ended {
            let limit = self.inner.config.no_progress_timeout;
            if reading.progressed.elapsed() > limit {
                return Err(LlmError::new(
                    LlmErrorKind::IdleTimeout,
                    self.provider(),
                    format!(
                        "{} sent only keep-alive data and no content for {} s (the no-progress \
                         deadline, `no_progress_timeout_secs` in config)",
                        self.inner.url,
                        limit.as_secs_f64()
                    ),
                ));
            }
        }
        self.pending.extend(out.into_iter().map(Ok));
        result
    }

    fn decode(
        &self,
        reading: &mut Reading,
        bytes: &[u8],
        out: &mut Vec<ModelEvent>,
    ) -> Result<(), LlmError> {
        let events = reading
            .decoder
            .push(bytes)
            .map_err(|e| LlmError::new(LlmErrorKind::Protocol, self.provider(), e.to_string()))?;
        for event in events {
            if reading.parser.is_done() {
                break;
            }
            reading.parser.on_event(event, out)?;
        }
        Ok(())
    }

    fn idle_error(&self) -> LlmError {
        let secs = self.inner.config.idle_timeout.as_secs_f64();
        LlmError::new(
            LlmErrorKind::IdleTimeout,
            self.provider(),
            format!(
                "no data from {} for {secs} s (idle timeout, `idle_timeout_secs` in config)",
                self.inner.url
            ),
        )
    }

    fn transport_error(&self, error: &reqwest::Error) -> LlmError {
        crate::transport::error(&self.inner.url, self.provider(), error)
    }
}

/// `Authorization: Bearer KEY` for OpenAI-style servers; no header without a (non-empty) key,
/// for local servers that need none.
pub(crate) fn bearer(builder: RequestBuilder, api_key: Option<&str>) -> RequestBuilder {
    match api_key {
        Some(key) if !key.is_empty() => builder.bearer_auth(key),
        _ => builder,
    }
}

/// The request id header, under the name either provider family uses.
fn request_id(headers: &HeaderMap) -> Option<String> {
    ["request-id", "x-request-id"]
        .iter()
        .find_map(|name| headers.get(*name)?.to_str().ok())
        .map(str::to_string)
}

/// Runs `parser` over a whole recorded stream, as the client would (tests only).
#[cfg(test)]
pub(crate) fn parse_recorded(
    parser: &mut dyn StreamParser,
    stream: &str,
) -> Result<Vec<ModelEvent>, LlmError> {
    let mut decoder = SseDecoder::default();
    let mut out = Vec::new();
    let mut events = decoder
        .push(stream.as_bytes())
        .map_err(|e| LlmError::new(LlmErrorKind::Protocol, "test", e.to_string()))?;
    events.extend(decoder.finish());
    for event in events {
        if parser.is_done() {
            break;
        }
        parser.on_event(event, &mut out)?;
    }
    parser.on_end(&mut out)?;
    Ok(out)
}
