//! An OTLP receiver on 127.0.0.1 built on the official protobuf definitions
//! (`opentelemetry-proto`): HTTP/protobuf (`POST /v1/traces`, `/v1/metrics`) and gRPC
//! (`TraceService`, `MetricsService`). It keeps what it receives.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::routing::post;
use opentelemetry_proto::tonic::collector::metrics::v1::metrics_service_server::{
    MetricsService, MetricsServiceServer,
};
use opentelemetry_proto::tonic::collector::metrics::v1::{
    ExportMetricsServiceRequest, ExportMetricsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::metrics::v1::metric::Data;
use opentelemetry_proto::tonic::metrics::v1::number_data_point::Value as Number;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;

/// What the receiver got.
#[derive(Clone, Default)]
pub struct Received {
    traces: Arc<Mutex<Vec<ExportTraceServiceRequest>>>,
    metrics: Arc<Mutex<Vec<ExportMetricsServiceRequest>>>,
}

impl Received {
    /// Every span received, in order.
    pub fn spans(&self) -> Vec<Span> {
        self.traces
            .lock()
            .unwrap()
            .iter()
            .flat_map(|r| &r.resource_spans)
            .flat_map(|r| &r.scope_spans)
            .flat_map(|s| s.spans.clone())
            .collect()
    }

    /// The resource attributes of the first span batch.
    pub fn resource(&self) -> HashMap<String, String> {
        let traces = self.traces.lock().unwrap();
        let attributes = traces
            .first()
            .and_then(|r| r.resource_spans.first())
            .and_then(|r| r.resource.as_ref())
            .map(|r| r.attributes.clone())
            .unwrap_or_default();
        attributes
            .iter()
            .map(|kv| (kv.key.clone(), text(kv)))
            .collect()
    }

    /// The latest value of each sum's data point, by metric name and attributes
    /// (`type=input,model=m`, sorted); cumulative sums, so the latest is the total.
    pub fn sums(&self) -> HashMap<(String, String), f64> {
        let mut sums = HashMap::new();
        for request in self.metrics.lock().unwrap().iter() {
            for metric in request
                .resource_metrics
                .iter()
                .flat_map(|r| &r.scope_metrics)
                .flat_map(|s| &s.metrics)
            {
                let Some(Data::Sum(sum)) = &metric.data else {
                    continue;
                };
                for point in &sum.data_points {
                    let mut labels: Vec<String> = point
                        .attributes
                        .iter()
                        .map(|kv| format!("{}={}", kv.key, text(kv)))
                        .collect();
                    labels.sort();
                    let value = match point.value {
                        Some(Number::AsInt(n)) => n as f64,
                        Some(Number::AsDouble(x)) => x,
                        None => 0.0,
                    };
                    sums.insert((metric.name.clone(), labels.join(",")), value);
                }
            }
        }
        sums
    }
}

/// An attribute's value as text (numbers and booleans printed, arrays joined by commas).
pub fn text(kv: &KeyValue) -> String {
    match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
        Some(AnyValue::StringValue(s)) => s.clone(),
        Some(AnyValue::IntValue(n)) => n.to_string(),
        Some(AnyValue::DoubleValue(x)) => x.to_string(),
        Some(AnyValue::BoolValue(b)) => b.to_string(),
        Some(AnyValue::ArrayValue(a)) => a
            .values
            .iter()
            .filter_map(|v| match &v.value {
                Some(AnyValue::StringValue(s)) => Some(s.clone()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join(","),
        _ => String::new(),
    }
}

/// A span's attribute, as text.
pub fn attribute(span: &Span, key: &str) -> Option<String> {
    span.attributes.iter().find(|kv| kv.key == key).map(text)
}

/// Starts an OTLP/HTTP receiver; its base URL (`http://127.0.0.1:PORT`).
pub async fn http() -> (String, Received) {
    let received = Received::default();
    let (traces, metrics) = (received.traces.clone(), received.metrics.clone());
    let app = axum::Router::new()
        .route(
            "/v1/traces",
            post(move |body: Bytes| async move {
                let request = ExportTraceServiceRequest::decode(body).unwrap();
                traces.lock().unwrap().push(request);
                ExportTraceServiceResponse::default().encode_to_vec()
            }),
        )
        .route(
            "/v1/metrics",
            post(move |body: Bytes| async move {
                let request = ExportMetricsServiceRequest::decode(body).unwrap();
                metrics.lock().unwrap().push(request);
                ExportMetricsServiceResponse::default().encode_to_vec()
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, received)
}

#[tonic::async_trait]
impl TraceService for Received {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        self.traces.lock().unwrap().push(request.into_inner());
        Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
    }
}

#[tonic::async_trait]
impl MetricsService for Received {
    async fn export(
        &self,
        request: tonic::Request<ExportMetricsServiceRequest>,
    ) -> Result<tonic::Response<ExportMetricsServiceResponse>, tonic::Status> {
        self.metrics.lock().unwrap().push(request.into_inner());
        Ok(tonic::Response::new(ExportMetricsServiceResponse::default()))
    }
}

/// Starts an OTLP/gRPC receiver; its URL (`http://127.0.0.1:PORT`).
pub async fn grpc() -> (String, Received) {
    let received = Received::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
    let router = tonic::transport::Server::builder()
        .add_service(TraceServiceServer::new(received.clone()))
        .add_service(MetricsServiceServer::new(received.clone()));
    tokio::spawn(async move { router.serve_with_incoming(incoming).await });
    (url, received)
}
