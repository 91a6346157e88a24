//! rein's telemetry. The session's events (the one stream every front end reads) become
//! OpenTelemetry spans — the session, each prompt, each model request, tool call, compaction,
//! hook run and subagent — and metrics, exported over OTLP (HTTP/protobuf or gRPC) by the
//! `opentelemetry` crates' batching exporters, and written as JSON lines for `--trace FILE`.
//!
//! Recording never slows the agent: events are copied to a task of their own (see [`tee`]),
//! spans queue in a bounded batch queue that drops when full rather than wait, and the exit
//! waits for the queue at most [`Settings::flush_timeout`]. Content (answers, tool arguments
//! and results) is attached only when asked, with the provider keys redacted.

mod file;
mod metrics;
mod names;
mod settings;
mod spans;
mod tree;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{WithExportConfig as _, WithHttpConfig as _, WithTonicConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{
    BatchConfigBuilder, BatchSpanProcessor, SdkTracerProvider, SimpleSpanProcessor, SpanData,
    SpanExporter,
};
use rein_protocol::Event;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub use file::{SpanEventLine, SpanLine};
pub use settings::{Export, Protocol, Section, Settings, SettingsError};
pub use tree::NotASpan;

/// Spans the export queue holds before it drops new ones.
const QUEUE: usize = 4096;

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

/// The telemetry of one process: its providers, shared by every event stream it records.
#[derive(Clone)]
pub struct Telemetry {
    inner: Arc<Inner>,
}

struct Inner {
    tracer_provider: SdkTracerProvider,
    meter_provider: Option<SdkMeterProvider>,
    instruments: Option<metrics::Instruments>,
    content: Content,
    flush_timeout: std::time::Duration,
    /// Spans ended, and spans the OTLP exporter took: the difference was dropped.
    ended: AtomicU64,
    exported: Arc<AtomicU64>,
    exporting: bool,
    tees: std::sync::Mutex<Vec<JoinHandle<()>>>,
    /// Cancelled by [`Telemetry::finish`]: recordings still open end their spans now.
    closing: CancellationToken,
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
    /// called inside the tokio runtime (the gRPC exporter lives on it).
    pub fn start(settings: &Settings, redact: Redact) -> Result<Option<Self>, TelemetryError> {
        if !settings.any() {
            return Ok(None);
        }
        let resource = Resource::builder()
            .with_service_name("rein")
            .with_attribute(opentelemetry::KeyValue::new(
                "service.version",
                settings.version.clone(),
            ))
            .build();
        let exported = Arc::new(AtomicU64::new(0));
        // One client for both signals.
        let client = http_client(settings);
        let mut traces = SdkTracerProvider::builder().with_resource(resource.clone());
        if let Some(export) = &settings.traces {
            let exporter = Counted {
                inner: span_exporter(export, &client)?,
                exported: exported.clone(),
            };
            let config = BatchConfigBuilder::default()
                .with_max_queue_size(QUEUE)
                .with_scheduled_delay(std::time::Duration::from_millis(500))
                .build();
            let batch = BatchSpanProcessor::builder(exporter)
                .with_batch_config(config)
                .build();
            traces = traces.with_span_processor(batch);
        }
        if let Some(path) = &settings.trace_file {
            let file = file::FileExporter::create(path)
                .map_err(|e| TelemetryError(format!("--trace {}: {e}", path.display())))?;
            traces = traces.with_span_processor(SimpleSpanProcessor::new(file));
        }
        let meter_provider = match &settings.metrics {
            Some(export) => {
                let reader = PeriodicReader::builder(metric_exporter(export, &client)?)
                    .with_interval(settings.metric_interval)
                    .build();
                Some(
                    SdkMeterProvider::builder()
                        .with_resource(resource)
                        .with_reader(reader)
                        .build(),
                )
            }
            None => None,
        };
        let instruments = meter_provider
            .as_ref()
            .map(|p| metrics::Instruments::new(&p.meter("rein")));
        Ok(Some(Self {
            inner: Arc::new(Inner {
                tracer_provider: traces.build(),
                meter_provider,
                instruments,
                content: Content {
                    on: settings.log_content,
                    redact,
                },
                flush_timeout: settings.flush_timeout,
                ended: AtomicU64::new(0),
                exported,
                exporting: settings.traces.is_some(),
                tees: std::sync::Mutex::new(Vec::new()),
                closing: CancellationToken::new(),
            }),
        }))
    }

    /// Records the events sent to the returned sender, then passes each on to `events`
    /// unchanged. The recording ends when every sender is dropped.
    pub fn tee(&self, events: UnboundedSender<Event>) -> UnboundedSender<Event> {
        let (sender, mut receiver) = unbounded_channel::<Event>();
        let inner = self.inner.clone();
        let task = tokio::spawn(async move {
            let tracer = inner.tracer_provider.tracer("rein");
            let mut spans = spans::SpanTree::new(tracer, inner.content.clone());
            let mut metrics = inner.instruments.clone().map(metrics::Recording::new);
            loop {
                let event = tokio::select! {
                    // What was sent before the end is recorded first.
                    biased;
                    event = receiver.recv() => event,
                    () = inner.closing.cancelled() => None,
                };
                let Some(event) = event else { break };
                let at = SystemTime::now();
                spans.observe(&event, at);
                if let Some(metrics) = &mut metrics {
                    metrics.observe(&event, at);
                }
                // The front end may be gone; recording goes on to the end.
                let _ = events.send(event);
            }
            spans.close(SystemTime::now());
            inner.ended.fetch_add(spans.ended, Ordering::Relaxed);
        });
        if let Ok(mut tees) = self.inner.tees.lock() {
            tees.push(task);
        }
        sender
    }

    /// Ends the recordings (a session still open ends its spans now: the process is
    /// ending), then flushes what is queued, waiting at most the flush timeout; says how many
    /// spans were lost.
    pub async fn finish(&self) -> Finish {
        let deadline = tokio::time::Instant::now() + self.inner.flush_timeout;
        self.inner.closing.cancel();
        let tees = self
            .inner
            .tees
            .lock()
            .map(|mut t| std::mem::take(&mut *t))
            .unwrap_or_default();
        for tee in tees {
            let _ = tokio::time::timeout_at(deadline, tee).await;
        }
        let inner = self.inner.clone();
        let timeout = self.inner.flush_timeout;
        let (done, flushed) = tokio::sync::oneshot::channel();
        // A thread of its own, not the runtime's blocking pool: the runtime waits for its
        // blocking tasks when it shuts down, and a collector that never answers must not hold
        // the exit beyond the deadline.
        let spawned = std::thread::Builder::new()
            .name("rein-telemetry-flush".into())
            .spawn(move || {
                // Both signals at once: a dead collector's retries are paid once.
                std::thread::scope(|both| {
                    if let Some(meters) = &inner.meter_provider {
                        both.spawn(|| meters.shutdown_with_timeout(timeout));
                    }
                    let _ = inner.tracer_provider.shutdown_with_timeout(timeout);
                });
                let _ = done.send(());
            });
        let timed_out = match spawned {
            Ok(_) => tokio::time::timeout_at(deadline, flushed).await.is_err(),
            Err(_) => true,
        };
        let dropped = if self.inner.exporting {
            let ended = self.inner.ended.load(Ordering::Relaxed);
            ended.saturating_sub(self.inner.exported.load(Ordering::Relaxed))
        } else {
            0
        };
        Finish { dropped, timed_out }
    }
}

/// The OTLP exporter of `$export`'s transport, from `$builder` (`SpanExporter::builder()` or
/// `MetricExporter::builder()`: their typed builders share no trait). Endpoints, headers and
/// timeouts the exporter reads from the `OTEL_*` variables unless the config named an endpoint.
macro_rules! otlp_exporter {
    ($builder:expr, $export:expr, $client:expr) => {{
        let export: &Export = $export;
        match export.protocol {
            Protocol::Grpc => {
                let mut builder = $builder.with_tonic().with_retry_policy(retries());
                if let Some(url) = &export.endpoint {
                    builder = builder.with_endpoint(url.clone());
                }
                builder.build()
            }
            Protocol::HttpProtobuf => {
                let mut builder = $builder
                    .with_http()
                    .with_retry_policy(retries())
                    .with_protocol(opentelemetry_otlp::Protocol::HttpBinary);
                if let Some(url) = &export.endpoint {
                    builder = builder.with_endpoint(url.clone());
                }
                if let Some(client) = $client.as_ref() {
                    builder = builder.with_http_client(client.clone());
                }
                builder.build()
            }
        }
    }};
}

fn span_exporter(
    export: &Export,
    client: &Option<OnRuntime>,
) -> Result<opentelemetry_otlp::SpanExporter, TelemetryError> {
    otlp_exporter!(opentelemetry_otlp::SpanExporter::builder(), export, client)
        .map_err(|e| TelemetryError(format!("the OTLP span exporter: {e}")))
}

fn metric_exporter(
    export: &Export,
    client: &Option<OnRuntime>,
) -> Result<opentelemetry_otlp::MetricExporter, TelemetryError> {
    otlp_exporter!(
        opentelemetry_otlp::MetricExporter::builder(),
        export,
        client
    )
    .map_err(|e| TelemetryError(format!("the OTLP metric exporter: {e}")))
}

/// The HTTP client of the OTLP exporters: rein's own async client, its requests run on the
/// process's runtime. The SDK's batch thread waits for each; no second runtime, thread or
/// connection pool is made (the blocking client the exporter would build makes all three), and
/// for an `http://` collector no root certificates are read or parsed.
#[derive(Debug, Clone)]
struct OnRuntime {
    client: reqwest::Client,
    runtime: tokio::runtime::Handle,
}

#[async_trait::async_trait]
impl opentelemetry_http::HttpClient for OnRuntime {
    async fn send_bytes(
        &self,
        request: opentelemetry_http::Request<opentelemetry_http::Bytes>,
    ) -> Result<
        opentelemetry_http::Response<opentelemetry_http::Bytes>,
        opentelemetry_http::HttpError,
    > {
        let client = self.client.clone();
        let sent = self.runtime.spawn(async move {
            opentelemetry_http::HttpClient::send_bytes(&client, request).await
        });
        sent.await
            .map_err(|e| Box::new(e) as opentelemetry_http::HttpError)?
    }
}

/// The client for the HTTP exporters, when one exports over HTTP (to be built inside the
/// runtime).
fn http_client(settings: &Settings) -> Option<OnRuntime> {
    let exports: Vec<&Export> = [&settings.traces, &settings.metrics]
        .into_iter()
        .flatten()
        .filter(|e| e.protocol == Protocol::HttpProtobuf)
        .collect();
    if exports.is_empty() {
        return None;
    }
    let runtime = tokio::runtime::Handle::try_current().ok()?;
    let mut builder =
        reqwest::Client::builder().connect_timeout(std::time::Duration::from_secs(10));
    if exports.iter().all(|e| e.plain) {
        builder = builder.tls_certs_only([]);
    }
    let client = builder.build().ok()?;
    Some(OnRuntime { client, runtime })
}

/// Two retries, 100 and 200 ms apart: a collector that blinks loses nothing, and one that is
/// down costs the exit about 0.3 s, not the recommended policy's 0.8 s per signal.
fn retries() -> opentelemetry_otlp::RetryPolicy {
    opentelemetry_otlp::RetryPolicy::recommended()
        .with_max_retries(2)
        .with_max_delay(std::time::Duration::from_millis(400))
}

/// An exporter that counts the spans it delivered.
#[derive(Debug)]
struct Counted<E> {
    inner: E,
    exported: Arc<AtomicU64>,
}

impl<E: SpanExporter> SpanExporter for Counted<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let count = batch.len() as u64;
        let result = self.inner.export(batch).await;
        if result.is_ok() {
            self.exported.fetch_add(count, Ordering::Relaxed);
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: std::time::Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
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
