//! rein's metrics as the official protobuf messages (`opentelemetry-proto`), built the plain
//! way: what [`crate::wire`]'s tests compare its bytes with.

use std::time::SystemTime;

use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::common::v1::{
    AnyValue, InstrumentationScope, KeyValue as ProtoKeyValue, any_value,
};
use opentelemetry_proto::tonic::metrics::v1::{
    AggregationTemporality, Metric, NumberDataPoint, ResourceMetrics, ScopeMetrics, Sum, metric,
    number_data_point,
};
use opentelemetry_proto::tonic::resource::v1::Resource;

use crate::meters::{Reading, Total};
use crate::record::KeyValue;
use crate::wire::{SCOPE, nanos};

fn string_value(text: &str) -> AnyValue {
    AnyValue {
        value: Some(any_value::Value::StringValue(text.to_string())),
    }
}

/// The process's resource: `service.name`, `service.version` and `OTEL_RESOURCE_ATTRIBUTES`.
fn resource(attributes: &[KeyValue]) -> Resource {
    Resource {
        attributes: attributes
            .iter()
            .map(|kv| ProtoKeyValue {
                key: kv.key.to_string(),
                value: Some(string_value(kv.value.as_str().unwrap_or_default())),
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

/// One export of the metrics' totals since `since`, read at `now`.
pub fn metrics(
    resource: &[KeyValue],
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
                                value: Some(string_value(text)),
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
            resource: Some(self::resource(resource)),
            scope_metrics: vec![ScopeMetrics {
                scope: scope(version),
                metrics,
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
}
