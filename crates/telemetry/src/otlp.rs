//! rein's records as OTLP's protobuf messages (the official definitions of the
//! `opentelemetry-proto` crate): spans grouped under the resource and rein's scope, metrics as
//! cumulative monotonic sums.

use std::time::{SystemTime, UNIX_EPOCH};

use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{
    AnyValue, ArrayValue, InstrumentationScope, KeyValue as ProtoKeyValue, any_value,
};
use opentelemetry_proto::tonic::metrics::v1::{
    AggregationTemporality, Metric, NumberDataPoint, ResourceMetrics, ScopeMetrics, Sum, metric,
    number_data_point,
};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{
    ResourceSpans, ScopeSpans, Span, Status, span, status,
};

use crate::meters::{Reading, Total};
use crate::record::{KeyValue, SpanRecord, Value};

/// The scope every span and metric is reported under.
const SCOPE: &str = "rein";

/// Nanoseconds since the Unix epoch.
pub(crate) fn nanos(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

fn value(value: &Value) -> AnyValue {
    use any_value::Value as V;
    let value = match value {
        Value::Str(s) => V::StringValue(s.clone()),
        Value::Int(n) => V::IntValue(*n),
        Value::Float(x) => V::DoubleValue(*x),
        Value::Bool(b) => V::BoolValue(*b),
        Value::Strs(items) => V::ArrayValue(ArrayValue {
            values: items
                .iter()
                .map(|s| AnyValue {
                    value: Some(V::StringValue(s.clone())),
                })
                .collect(),
        }),
    };
    AnyValue { value: Some(value) }
}

fn attributes(list: &[KeyValue]) -> Vec<ProtoKeyValue> {
    list.iter()
        .map(|kv| ProtoKeyValue {
            key: kv.key.to_string(),
            value: Some(value(&kv.value)),
            ..Default::default()
        })
        .collect()
}

/// The process's resource: `service.name`, `service.version` and `OTEL_RESOURCE_ATTRIBUTES`.
pub(crate) fn resource(pairs: &[(String, String)]) -> Resource {
    Resource {
        attributes: pairs
            .iter()
            .map(|(key, text)| ProtoKeyValue {
                key: key.clone(),
                value: Some(value(&Value::Str(text.clone()))),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn scope(version: &str) -> Option<InstrumentationScope> {
    Some(InstrumentationScope {
        name: SCOPE.to_string(),
        version: version.to_string(),
        ..Default::default()
    })
}

fn span(record: &SpanRecord) -> Span {
    Span {
        trace_id: record.trace_id.to_vec(),
        span_id: record.span_id.to_vec(),
        parent_span_id: record
            .parent_span_id
            .map(|p| p.to_vec())
            .unwrap_or_default(),
        name: record.name.clone(),
        kind: if record.client {
            span::SpanKind::Client
        } else {
            span::SpanKind::Internal
        } as i32,
        start_time_unix_nano: nanos(record.start),
        end_time_unix_nano: nanos(record.end),
        attributes: attributes(&record.attributes),
        events: record
            .events
            .iter()
            .map(|e| span::Event {
                time_unix_nano: nanos(e.at),
                name: e.name.clone(),
                attributes: attributes(&e.attributes),
                ..Default::default()
            })
            .collect(),
        status: record.error.as_ref().map(|why| Status {
            message: why.clone(),
            code: status::StatusCode::Error as i32,
        }),
        ..Default::default()
    }
}

/// One export of `spans`.
pub(crate) fn spans(
    resource: &Resource,
    version: &str,
    spans: &[SpanRecord],
) -> ExportTraceServiceRequest {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(resource.clone()),
            scope_spans: vec![ScopeSpans {
                scope: scope(version),
                spans: spans.iter().map(span).collect(),
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
}

/// One export of the metrics' totals since `since`, read at `now`.
pub(crate) fn metrics(
    resource: &Resource,
    version: &str,
    readings: &[Reading],
    (since, now): (SystemTime, SystemTime),
) -> ExportMetricsServiceRequest {
    let metrics = readings
        .iter()
        .map(|reading| Metric {
            name: reading.name.to_string(),
            description: reading.description.to_string(),
            unit: reading.unit.to_string(),
            data: Some(metric::Data::Sum(Sum {
                data_points: reading
                    .points
                    .iter()
                    .map(|(labels, total)| NumberDataPoint {
                        attributes: labels
                            .iter()
                            .map(|(key, text)| ProtoKeyValue {
                                key: (*key).to_string(),
                                value: Some(value(&Value::Str(text.clone()))),
                                ..Default::default()
                            })
                            .collect(),
                        start_time_unix_nano: nanos(since),
                        time_unix_nano: nanos(now),
                        value: Some(match total {
                            Total::Count(n) => number_data_point::Value::AsInt(
                                i64::try_from(*n).unwrap_or(i64::MAX),
                            ),
                            Total::Amount(x) => number_data_point::Value::AsDouble(*x),
                        }),
                        ..Default::default()
                    })
                    .collect(),
                aggregation_temporality: AggregationTemporality::Cumulative as i32,
                is_monotonic: true,
            })),
            ..Default::default()
        })
        .collect();
    ExportMetricsServiceRequest {
        resource_metrics: vec![ResourceMetrics {
            resource: Some(resource.clone()),
            scope_metrics: vec![ScopeMetrics {
                scope: scope(version),
                metrics,
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
}
