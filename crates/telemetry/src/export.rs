//! Sending OTLP: one exporter per signal, each request already encoded (see [`crate::wire`])
//! in the exporter's reused buffer, over HTTP/protobuf (to an `http://` collector over a kept
//! connection of hyper's, see [`crate::plain`]; to an `https://` one with rein's `reqwest`
//! client, on the process's runtime) or gRPC (tonic's client calling the signal's `Export`
//! method with the bytes as they are), with the configured headers and timeout, and two
//! retries 100 and 200 ms apart for what may pass on a second try (no connection, 429, 502,
//! 503, 504, gRPC `UNAVAILABLE`).

use std::sync::Mutex;
use std::time::Duration;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::codegen::http::uri::PathAndQuery;

use crate::TelemetryError;
use crate::plain::{PlainHttp, Unsent};
use crate::settings::{Export, Protocol};

/// The OTLP/gRPC services' export methods.
const TRACES_METHOD: &str = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
const METRICS_METHOD: &str = "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export";

/// What an exporter sends.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Signal {
    Traces,
    Metrics,
}

/// The room an export request is encoded in (a batch of a short session's spans fits).
const BUFFER: usize = 16 * 1024;

/// Waits before the retries.
const RETRY_DELAYS: [Duration; 2] = [Duration::from_millis(100), Duration::from_millis(200)];

/// Where one signal goes.
pub(crate) struct Exporter {
    transport: Transport,
    /// Where requests are encoded, allocated once.
    buffer: Mutex<BytesMut>,
    headers: Vec<(String, String)>,
    timeout: Duration,
}

enum Transport {
    Http(Http),
    Grpc {
        channel: tonic::transport::Channel,
        /// The service's method (`/opentelemetry.proto.collector.trace.v1.TraceService/Export`).
        path: PathAndQuery,
    },
}

/// OTLP/HTTP's two ways.
enum Http {
    /// To an `http://` collector.
    Plain(Box<PlainHttp>),
    /// To an `https://` one.
    Tls {
        client: reqwest::Client,
        url: String,
    },
}

/// An export the collector did not take, after the retries: what happened last.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct NotExported(String);

/// A failed export: whether another try may pass, and what happened.
struct Failure {
    retry: bool,
    message: String,
}

impl Exporter {
    /// The exporter for `export` (those to `https://` collectors share `client`, which each
    /// of them has). Must be made inside the runtime.
    pub(crate) fn new(
        export: &Export,
        signal: Signal,
        client: Option<&reqwest::Client>,
    ) -> Result<Self, TelemetryError> {
        let transport = match (export.protocol, client) {
            (Protocol::HttpProtobuf, _) if export.plain => Transport::Http(Http::Plain(Box::new(
                PlainHttp::new(&export.endpoint, &export.headers)?,
            ))),
            (Protocol::HttpProtobuf, Some(client)) => Transport::Http(Http::Tls {
                client: client.clone(),
                url: export.endpoint.clone(),
            }),
            (Protocol::HttpProtobuf, None) => {
                return Err(TelemetryError(format!(
                    "no HTTP client for the OTLP endpoint {}",
                    export.endpoint
                )));
            }
            (Protocol::Grpc, _) => {
                let endpoint = tonic::transport::Endpoint::from_shared(export.endpoint.clone())
                    .map_err(|e| {
                        TelemetryError(format!("the OTLP endpoint {}: {e}", export.endpoint))
                    })?
                    .connect_timeout(Duration::from_secs(10));
                Transport::Grpc {
                    channel: endpoint.connect_lazy(),
                    path: PathAndQuery::from_static(match signal {
                        Signal::Traces => TRACES_METHOD,
                        Signal::Metrics => METRICS_METHOD,
                    }),
                }
            }
        };
        Ok(Self {
            transport,
            buffer: Mutex::new(BytesMut::with_capacity(BUFFER)),
            headers: export.headers.clone(),
            timeout: export.timeout,
        })
    }

    /// Sends one export request (`ExportTraceServiceRequest` or `ExportMetricsServiceRequest`,
    /// as the exporter's signal is), written by `encode` into the exporter's buffer; the error
    /// says why it was not taken.
    pub(crate) async fn send(&self, encode: impl FnOnce(&mut BytesMut)) -> Result<(), NotExported> {
        let body = {
            let mut buffer = self.buffer.lock().unwrap_or_else(|p| p.into_inner());
            buffer.clear();
            // Takes the allocation back when the last export's body is gone.
            buffer.reserve(BUFFER);
            encode(&mut buffer);
            buffer.split().freeze()
        };
        match &self.transport {
            Transport::Http(http) => self.with_retries(|| self.post(http, body.clone())).await,
            Transport::Grpc { channel, path } => {
                self.with_retries(|| async {
                    let mut client = tonic::client::Grpc::new(channel.clone());
                    client.ready().await.map_err(|e| Failure {
                        retry: true,
                        message: format!("gRPC: {e}"),
                    })?;
                    let request = self.grpc_request(body.clone());
                    grpc_result(client.unary(request, path.clone(), Encoded).await)
                })
                .await
            }
        }
    }

    /// Connects to an `http://` collector ahead of the first export, so the exit's flush
    /// does not wait for a connection (a failure is left to the export to report).
    pub(crate) async fn warm(&self) {
        if let Transport::Http(Http::Plain(plain)) = &self.transport {
            plain.warm().await;
        }
    }

    async fn with_retries<F, Fut>(&self, attempt: F) -> Result<(), NotExported>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = Result<(), Failure>>,
    {
        let mut delays = RETRY_DELAYS.iter();
        loop {
            match attempt().await {
                Ok(()) => return Ok(()),
                Err(failure) => match delays.next() {
                    Some(delay) if failure.retry => tokio::time::sleep(*delay).await,
                    _ => return Err(NotExported(failure.message)),
                },
            }
        }
    }

    async fn post(&self, http: &Http, body: Bytes) -> Result<(), Failure> {
        let (status, url) = match http {
            Http::Plain(plain) => (self.post_plain(plain, body).await?, plain.url()),
            Http::Tls { client, url } => (self.post_tls(client, url, body).await?, url.as_str()),
        };
        if (200..300).contains(&status) {
            return Ok(());
        }
        Err(Failure {
            retry: matches!(status, 429 | 502 | 503 | 504),
            message: format!("{url}: HTTP {status}"),
        })
    }

    /// Posts `body` over the kept connection, within the timeout; the collector's status.
    async fn post_plain(&self, plain: &PlainHttp, body: Bytes) -> Result<u16, Failure> {
        match tokio::time::timeout(self.timeout, plain.post(body)).await {
            Ok(Ok(status)) => Ok(status.as_u16()),
            Ok(Err(Unsent(message))) => Err(Failure {
                retry: true,
                message,
            }),
            Err(_) => Err(Failure {
                retry: true,
                message: format!("{}: no answer within {:?}", plain.url(), self.timeout),
            }),
        }
    }

    /// Posts `body` with the `reqwest` client; the collector's status.
    async fn post_tls(
        &self,
        client: &reqwest::Client,
        url: &str,
        body: Bytes,
    ) -> Result<u16, Failure> {
        let mut request = client
            .post(url)
            .timeout(self.timeout)
            .header("content-type", "application/x-protobuf")
            .body(body);
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        let response = request.send().await.map_err(|e| Failure {
            retry: e.is_connect() || e.is_timeout(),
            message: format!("{url}: {e}"),
        })?;
        Ok(response.status().as_u16())
    }

    fn grpc_request<M>(&self, message: M) -> tonic::Request<M> {
        let mut request = tonic::Request::new(message);
        request.set_timeout(self.timeout);
        for (name, value) in &self.headers {
            if let (Ok(name), Ok(value)) = (
                name.parse::<tonic::metadata::MetadataKey<tonic::metadata::Ascii>>(),
                value.parse(),
            ) {
                request.metadata_mut().insert(name, value);
            }
        }
        request
    }
}

/// A gRPC message already encoded: sent as it is; the collector's answer (which says at most
/// how much it rejected) is not read.
#[derive(Clone, Copy)]
struct Encoded;

impl Codec for Encoded {
    type Encode = Bytes;
    type Decode = ();
    type Encoder = Encoded;
    type Decoder = Encoded;

    fn encoder(&mut self) -> Self::Encoder {
        Encoded
    }

    fn decoder(&mut self) -> Self::Decoder {
        Encoded
    }
}

impl Encoder for Encoded {
    type Item = Bytes;
    type Error = tonic::Status;

    fn encode(&mut self, item: Bytes, dst: &mut EncodeBuf<'_>) -> Result<(), Self::Error> {
        dst.put(item);
        Ok(())
    }
}

impl Decoder for Encoded {
    type Item = ();
    type Error = tonic::Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<()>, Self::Error> {
        src.advance(src.remaining());
        Ok(Some(()))
    }
}

fn grpc_result<T>(result: Result<tonic::Response<T>, tonic::Status>) -> Result<(), Failure> {
    result.map(|_| ()).map_err(|status| Failure {
        retry: matches!(
            status.code(),
            tonic::Code::Unavailable
                | tonic::Code::ResourceExhausted
                | tonic::Code::DeadlineExceeded
        ),
        message: format!("gRPC {}: {}", status.code(), status.message()),
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use prost::Message;

    use super::*;
    use crate::collector::{After, collector};

    fn exporter(url: &str) -> Exporter {
        let export = Export {
            endpoint: url.to_string(),
            protocol: Protocol::HttpProtobuf,
            plain: true,
            headers: vec![],
            timeout: Duration::from_secs(5),
        };
        Exporter::new(&export, Signal::Traces, None).unwrap()
    }

    fn request() -> ExportTraceServiceRequest {
        ExportTraceServiceRequest {
            resource_spans: vec![Default::default()],
        }
    }

    #[tokio::test]
    async fn what_may_pass_later_is_tried_again_and_the_same_body_sent() {
        let collector = collector(&[503, 429, 200], After::KeepOpen).await;
        exporter(&collector.url)
            .send(|b| b.extend_from_slice(&request().encode_to_vec()))
            .await
            .unwrap();
        let requests = collector.requests.lock().unwrap();
        assert_eq!(requests.len(), 3);
        assert!(
            requests
                .iter()
                .all(|(_, body)| *body == request().encode_to_vec())
        );
        assert_eq!(collector.connections.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_refusal_is_not_tried_again_and_says_the_status() {
        let collector = collector(&[400, 200], After::KeepOpen).await;
        let error = exporter(&collector.url)
            .send(|b| b.extend_from_slice(&request().encode_to_vec()))
            .await
            .unwrap_err();
        assert_eq!(error.to_string(), format!("{}: HTTP 400", collector.url));
        assert_eq!(collector.requests.lock().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn three_failures_give_up_with_the_last() {
        let collector = collector(&[502, 503, 504, 200], After::SayClose).await;
        let error = exporter(&collector.url)
            .send(|b| b.extend_from_slice(&request().encode_to_vec()))
            .await
            .unwrap_err();
        assert_eq!(error.to_string(), format!("{}: HTTP 504", collector.url));
        assert_eq!(collector.connections.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn a_warmed_connection_carries_the_exports_and_the_buffer_is_reused_cleanly() {
        let collector = collector(&[200], After::KeepOpen).await;
        let exporter = exporter(&collector.url);
        exporter.warm().await;
        // The collector counts the connection once its accept loop has run.
        for _ in 0..500 {
            if collector.connections.load(Ordering::SeqCst) > 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(collector.connections.load(Ordering::SeqCst), 1);
        assert!(collector.requests.lock().unwrap().is_empty());
        let long = vec![b'a'; 3 * BUFFER];
        exporter.send(|b| b.extend_from_slice(&long)).await.unwrap();
        exporter
            .send(|b| b.extend_from_slice(b"short"))
            .await
            .unwrap();
        exporter
            .send(|b| b.extend_from_slice(b"last"))
            .await
            .unwrap();
        let requests = collector.requests.lock().unwrap();
        let bodies: Vec<&[u8]> = requests.iter().map(|(_, body)| body.as_slice()).collect();
        assert_eq!(bodies, [&long[..], b"short", b"last"]);
        assert_eq!(collector.connections.load(Ordering::SeqCst), 1);
    }
}
