//! rein's telemetry. The session's events (the one stream every front end reads) become
//! OpenTelemetry spans — the session, each prompt, each model request, tool call, compaction,
//! hook run and subagent — and metrics, exported over OTLP (HTTP/protobuf or gRPC) as the
//! bytes of its protobuf messages (written by [`wire`], checked against the official
//! definitions), and written as JSON lines for `--trace FILE`.
//!
//! Recording never slows the agent: events are copied to a task of their own (see [`tee`]),
//! ended spans wait in a bounded queue that drops when full rather than wait, a task sends
//! them in batches, and the exit waits for what is left at most [`Settings::flush_timeout`].
//! Content (answers, tool arguments and results) is attached only when asked, with the
//! provider keys redacted.
//!
//! [`tee`]: Telemetry::tee

#[cfg(test)]
mod collector;
mod export;
mod file;
mod meters;
mod names;
#[cfg(test)]
mod otlp;
mod plain;
mod record;
mod settings;
mod spans;
mod tree;
mod wire;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use bytes::BytesMut;
use rein_protocol::Event;
use tokio::sync::Notify;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub use file::{SpanEventLine, SpanLine};
pub use settings::{Export, Protocol, Section, Settings, SettingsError};
pub use tree::NotASpan;

use record::SpanRecord;

/// Spans the export queue holds before it drops new ones (`OTEL_BSP_MAX_QUEUE_SIZE`'s
/// default).
const QUEUE: usize = 4096;
/// Spans that are sent at once without waiting out the batch delay
/// (`OTEL_BSP_MAX_EXPORT_BATCH_SIZE`'s default).
const FULL_BATCH: usize = 512;

/// A failure to start telemetry (an exporter that cannot be built, a trace file that cannot
/// be created).
#[derive(Debug, thiserror::Error)]
#[error("telemetry: {0}")]
pub struct TelemetryError(String);

/// Removes secrets (the provider keys' values) from text before it is attached.
pub type Redact = Arc<dyn Fn(&str) -> String + Send + Sync>;

/// Whether content is attached, and how it is cleaned.
#[derive(Clone)]
pub(crate) struct Content {
    pub on: bool,
    redact: Redact,
}

impl Content {
    pub fn redact(&self, text: &str) -> String {
        (self.redact)(text)
    }
}

/// The telemetry of one process, shared by every event stream it records.
#[derive(Clone)]
pub struct Telemetry {
    inner: Arc<Inner>,
}

struct Inner {
    spans: Option<SpanExport>,
    metrics: Option<MetricExport>,
    file: Option<file::TraceFile>,
    meters: meters::Meters,
    /// The resource's attributes.
    resource: Vec<record::KeyValue>,
    version: String,
    started: SystemTime,
    content: Content,
    flush_timeout: Duration,
    /// Spans ended; of those exported, the count is the span export's.
    ended: AtomicU64,
    tees: Mutex<Vec<JoinHandle<()>>>,
    loops: Mutex<Vec<JoinHandle<()>>>,
    /// Cancelled by [`Telemetry::finish`]: recordings still open end their spans now.
    closing: CancellationToken,
}

/// Where ended spans go over OTLP, and what became of them.
struct SpanExport {
    exporter: export::Exporter,
    queue: Mutex<Vec<SpanRecord>>,
    /// Told when the queue gets its first span of a batch.
    queued: Notify,
    /// Told when the queue holds a full batch.
    full: Notify,
    /// How long spans wait after the first of a batch, for the rest to join it.
    delay: Duration,
    exported: AtomicU64,
}

/// Where metrics go over OTLP, and how often.
struct MetricExport {
    exporter: export::Exporter,
    interval: Duration,
}

/// What the end of telemetry says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Finish {
    /// Spans that never reached the collector (queue full, collector down, exit too soon).
    pub dropped: u64,
    /// The flush at exit ran out of time.
    pub timed_out: bool,
}

impl Telemetry {
    /// Starts telemetry as `settings` say, or `None` when nothing is to be recorded. Must be
    /// called inside the tokio runtime (the exports run on it).
    pub fn start(settings: &Settings, redact: Redact) -> Result<Option<Self>, TelemetryError> {
        if !settings.any() {
            return Ok(None);
        }
        let client = http_client(settings)?;
        let spans = match &settings.traces {
            Some(export) => Some(SpanExport {
                exporter: export::Exporter::new(export, export::Signal::Traces, client.as_ref())?,
                queue: Mutex::new(Vec::new()),
                queued: Notify::new(),
                full: Notify::new(),
                delay: settings.batch_delay,
                exported: AtomicU64::new(0),
            }),
            None => None,
        };
        let metrics = match &settings.metrics {
            Some(export) => Some(MetricExport {
                exporter: export::Exporter::new(export, export::Signal::Metrics, client.as_ref())?,
                interval: settings.metric_interval,
            }),
            None => None,
        };
        let file = match &settings.trace_file {
            Some(path) => Some(
                file::TraceFile::create(path)
                    .map_err(|e| TelemetryError(format!("--trace {}: {e}", path.display())))?,
            ),
            None => None,
        };
        let inner = Arc::new(Inner {
            spans,
            metrics,
            file,
            meters: meters::Meters::default(),
            resource: settings
                .resource
                .iter()
                .map(|(key, text)| record::KeyValue::new(key.clone(), text.as_str()))
                .collect(),
            version: settings.version.clone(),
            started: SystemTime::now(),
            content: Content {
                on: settings.log_content,
                redact,
            },
            flush_timeout: settings.flush_timeout,
            ended: AtomicU64::new(0),
            tees: Mutex::new(Vec::new()),
            loops: Mutex::new(Vec::new()),
            closing: CancellationToken::new(),
        });
        let mut loops = Vec::new();
        if inner.spans.is_some() {
            loops.push(tokio::spawn(Arc::clone(&inner).send_spans_in_batches()));
        }
        if inner.metrics.is_some() {
            loops.push(tokio::spawn(Arc::clone(&inner).send_metrics_periodically()));
        }
        if let Ok(mut kept) = inner.loops.lock() {
            kept.extend(loops);
        }
        Ok(Some(Self { inner }))
    }

    /// Records the events sent to the returned sender, then passes each on to `events`
    /// unchanged. The recording ends when every sender is dropped.
    pub fn tee(&self, events: UnboundedSender<Event>) -> UnboundedSender<Event> {
        let (sender, mut receiver) = unbounded_channel::<Event>();
        let inner = self.inner.clone();
        let task = tokio::spawn(async move {
            let sink: Arc<dyn spans::Sink> = inner.clone();
            // Spans are built only when they go somewhere (a collector or the trace file).
            let mut spans = (inner.spans.is_some() || inner.file.is_some())
                .then(|| spans::SpanTree::new(sink, inner.content.clone()));
            let mut metrics = inner
                .metrics
                .as_ref()
                .map(|_| meters::Recording::new(inner.meters.clone()));
            loop {
                let event = tokio::select! {
                    // What was sent before the end is recorded first.
                    biased;
                    event = receiver.recv() => event,
                    () = inner.closing.cancelled() => None,
                };
                let Some(event) = event else { break };
                let at = SystemTime::now();
                if let Some(spans) = &mut spans {
                    spans.observe(&event, at);
                }
                if let Some(metrics) = &mut metrics {
                    metrics.observe(&event, at);
                }
                // The front end may be gone; recording goes on to the end.
                let _ = events.send(event);
            }
            if let Some(spans) = &mut spans {
                spans.close(SystemTime::now());
            }
        });
        if let Ok(mut tees) = self.inner.tees.lock() {
            tees.push(task);
        }
        sender
    }

    /// Ends the recordings (a session still open ends its spans now: the process is
    /// ending), then sends what is left, waiting at most the flush timeout; says how many
    /// spans were lost.
    pub async fn finish(&self) -> Finish {
        let inner = &self.inner;
        let deadline = tokio::time::Instant::now() + inner.flush_timeout;
        inner.closing.cancel();
        let tees = take(&inner.tees);
        for tee in tees {
            let _ = tokio::time::timeout_at(deadline, tee).await;
        }
        for running in take(&inner.loops) {
            // A send under way is dropped: what it held is sent again below.
            running.abort();
            let _ = running.await;
        }
        let last = async { tokio::join!(inner.send_queued(), inner.send_metrics()) };
        let timed_out = tokio::time::timeout_at(deadline, last).await.is_err();
        let dropped = match &inner.spans {
            Some(spans) => inner
                .ended
                .load(Ordering::Relaxed)
                .saturating_sub(spans.exported.load(Ordering::Relaxed)),
            None => 0,
        };
        Finish { dropped, timed_out }
    }
}

fn take<T>(list: &Mutex<Vec<T>>) -> Vec<T> {
    list.lock()
        .map(|mut l| std::mem::take(&mut *l))
        .unwrap_or_default()
}

impl spans::Sink for Inner {
    fn ended(&self, span: SpanRecord) {
        self.ended.fetch_add(1, Ordering::Relaxed);
        if let Some(file) = &self.file {
            file.write(&span);
        }
        let Some(export) = &self.spans else {
            return;
        };
        let mut queue = export.queue.lock().unwrap_or_else(|p| p.into_inner());
        // Full: the span is dropped (and counted, as ended but never exported).
        if queue.len() < QUEUE {
            queue.push(span);
            match queue.len() {
                1 => export.queued.notify_one(),
                FULL_BATCH => export.full.notify_one(),
                _ => {}
            }
        }
    }
}

impl Inner {
    /// Sends queued spans the batch delay after the first of each batch arrives, or as soon
    /// as a full batch is queued, until the end.
    async fn send_spans_in_batches(self: Arc<Self>) {
        let Some(export) = &self.spans else {
            return;
        };
        export.exporter.warm().await;
        loop {
            export.queued.notified().await;
            tokio::select! {
                () = tokio::time::sleep(export.delay) => {}
                () = export.full.notified() => {}
            }
            self.send_queued().await;
        }
    }

    /// Sends the metrics every interval, until the end.
    async fn send_metrics_periodically(self: Arc<Self>) {
        let Some(export) = &self.metrics else {
            return;
        };
        export.exporter.warm().await;
        loop {
            tokio::time::sleep(export.interval).await;
            self.send_metrics().await;
        }
    }

    /// Sends what the span queue holds (a failed batch is lost, and counted).
    async fn send_queued(&self) {
        let Some(export) = &self.spans else {
            return;
        };
        let batch = std::mem::take(&mut *export.queue.lock().unwrap_or_else(|p| p.into_inner()));
        if batch.is_empty() {
            return;
        }
        let count = batch.len() as u64;
        let encode = |out: &mut BytesMut| {
            wire::spans(&self.resource, (wire::SCOPE, &self.version), &batch, out);
        };
        match export.exporter.send(encode).await {
            Ok(()) => {
                export.exported.fetch_add(count, Ordering::Relaxed);
            }
            Err(why) => debug_note(&format!("spans not exported: {why}")),
        }
    }

    /// Sends the metrics' totals.
    async fn send_metrics(&self) {
        let Some(export) = &self.metrics else {
            return;
        };
        let readings = self.meters.read();
        if readings.is_empty() {
            return;
        }
        let now = SystemTime::now();
        let encode = |out: &mut BytesMut| {
            let scope = (wire::SCOPE, self.version.as_str());
            wire::metrics(&self.resource, scope, &readings, (self.started, now), out);
        };
        if let Err(why) = export.exporter.send(encode).await {
            debug_note(&format!("metrics not exported: {why}"));
        }
    }
}

/// Export failures are not the user's concern mid-run (the exit says how many spans were
/// lost); they go to the debug log.
#[allow(clippy::disallowed_methods)] // a switch of rein's own debugging output
fn debug_note(message: &str) {
    if std::env::var_os("REIN_TELEMETRY_DEBUG").is_some() {
        eprintln!("rein telemetry: {message}");
    }
}

/// The HTTP client of the OTLP exporters that send to `https://` collectors (rein's async
/// client on the process's runtime); `http://` ones keep a connection of their own.
fn http_client(settings: &Settings) -> Result<Option<reqwest::Client>, TelemetryError> {
    let tls = [&settings.traces, &settings.metrics]
        .into_iter()
        .flatten()
        .any(|e| e.protocol == Protocol::HttpProtobuf && !e.plain);
    if !tls {
        return Ok(None);
    }
    // reqwest is built without a TLS provider of its own (see rein-llm) and panics without one.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .connect_timeout(std::time::Duration::from_secs(10))
        .build()
        .map(Some)
        .map_err(|e| TelemetryError(format!("the OTLP HTTP client: {e}")))
}

/// Lines added and removed by a unified diff.
pub(crate) fn diff_lines(diff: &str) -> (u64, u64) {
    let mut added = 0;
    let mut removed = 0;
    for line in diff.lines() {
        if line.starts_with('+') && !line.starts_with("+++") {
            added += 1;
        } else if line.starts_with('-') && !line.starts_with("---") {
            removed += 1;
        }
    }
    (added, removed)
}

/// `rein trace FILE`: the file's spans as a tree.
pub fn render_trace(text: &str) -> Result<String, NotASpan> {
    Ok(tree::render(&tree::read(text)?))
}
