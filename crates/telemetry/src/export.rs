//! Sending OTLP: one exporter per signal, over HTTP/protobuf (rein's `reqwest` client, on the
//! process's runtime) or gRPC (`tonic`'s client from the `opentelemetry-proto` definitions),
//! with the configured headers and timeout, and two retries 100 and 200 ms apart for what may
//! pass on a second try (a refused connection, 429, 502, 503, 504, gRPC `UNAVAILABLE`).

use std::time::Duration;

use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::metrics::v1::metrics_service_client::MetricsServiceClient;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_client::TraceServiceClient;

use crate::TelemetryError;
use crate::settings::{Export, Protocol};

/// Waits before the retries.
const RETRY_DELAYS: [Duration; 2] = [Duration::from_millis(100), Duration::from_millis(200)];

/// Where one signal goes.
pub(crate) struct Exporter {
    transport: Transport,
    headers: Vec<(String, String)>,
    timeout: Duration,
}

enum Transport {
    Http {
        client: reqwest::Client,
        url: String,
    },
    Grpc(tonic::transport::Channel),
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
    /// The exporter for `export` (HTTP ones share `client`, which every HTTP export has).
    /// Must be made inside the runtime.
    pub(crate) fn new(
        export: &Export,
        client: Option<&reqwest::Client>,
    ) -> Result<Self, TelemetryError> {
        let transport = match (export.protocol, client) {
            (Protocol::HttpProtobuf, Some(client)) => Transport::Http {
                client: client.clone(),
                url: export.endpoint.clone(),
            },
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
                Transport::Grpc(endpoint.connect_lazy())
            }
        };
        Ok(Self {
            transport,
            headers: export.headers.clone(),
            timeout: export.timeout,
        })
    }

    /// Sends spans; the error says why they were not taken.
    pub(crate) async fn spans(
        &self,
        request: ExportTraceServiceRequest,
    ) -> Result<(), NotExported> {
        match &self.transport {
            Transport::Http { client, url } => self.post_with_retries(client, url, &request).await,
            Transport::Grpc(channel) => {
                self.with_retries(|| async {
                    let mut client = TraceServiceClient::new(channel.clone());
                    grpc_result(client.export(self.grpc_request(request.clone())).await)
                })
                .await
            }
        }
    }

    /// Sends metrics; the error says why they were not taken.
    pub(crate) async fn metrics(
        &self,
        request: ExportMetricsServiceRequest,
    ) -> Result<(), NotExported> {
        match &self.transport {
            Transport::Http { client, url } => self.post_with_retries(client, url, &request).await,
            Transport::Grpc(channel) => {
                self.with_retries(|| async {
                    let mut client = MetricsServiceClient::new(channel.clone());
                    grpc_result(client.export(self.grpc_request(request.clone())).await)
                })
                .await
            }
        }
    }

    /// Posts `message` over HTTP, encoded once for every try.
    async fn post_with_retries(
        &self,
        client: &reqwest::Client,
        url: &str,
        message: &impl prost::Message,
    ) -> Result<(), NotExported> {
        let body = message.encode_to_vec();
        self.with_retries(|| self.post(client, url, body.clone()))
            .await
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

    async fn post(
        &self,
        client: &reqwest::Client,
        url: &str,
        body: Vec<u8>,
    ) -> Result<(), Failure> {
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
        let status = response.status();
        if status.is_success() {
            return Ok(());
        }
        Err(Failure {
            retry: matches!(status.as_u16(), 429 | 502 | 503 | 504),
            message: format!("{url}: HTTP {status}"),
        })
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
