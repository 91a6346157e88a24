//! Spans and metrics as the bytes of OTLP's `ExportTraceServiceRequest` and
//! `ExportMetricsServiceRequest`, written straight from rein's records with prost's encoding
//! primitives into the exporter's reused buffer. Building `opentelemetry-proto`'s messages
//! first copied every attribute and name (their keys are `String`s) and measured each nested
//! message again at every level, which cost a short session more than recording its spans did
//! (`bench/instructions --telemetry`). The field numbers are OTLP's (`trace.proto`,
//! `metrics.proto`, `common.proto`, `resource.proto`); the tests read the bytes back with the
//! official definitions and compare them with what prost writes for the same messages.

use std::time::{SystemTime, UNIX_EPOCH};

use bytes::BufMut;
use prost::encoding::{WireType, encode_key, encode_varint, encoded_len_varint};

use crate::meters::{Reading, Total};
use crate::record::{KeyValue, SpanEvent, SpanRecord, Value};

/// The scope every span and metric is reported under.
pub(crate) const SCOPE: &str = "rein";

/// `Span.SpanKind`'s `SPAN_KIND_INTERNAL` and `SPAN_KIND_CLIENT`.
const INTERNAL: u64 = 1;
const CLIENT: u64 = 3;
/// `Status.StatusCode`'s `STATUS_CODE_ERROR`.
const STATUS_ERROR: u64 = 2;
/// `AggregationTemporality`'s `AGGREGATION_TEMPORALITY_CUMULATIVE`.
const CUMULATIVE: u64 = 2;

/// Writes the export of `spans` under the resource's attributes and rein's scope (`name`,
/// `version`) to `out`. Each message's length is worked out before it is written, so nothing
/// is written twice and no buffer but `out` is needed.
pub(crate) fn spans(
    resource: &[KeyValue],
    scope: (&str, &str),
    spans: &[SpanRecord],
    out: &mut impl BufMut,
) {
    let items = spans.iter().map(|s| field_len(span_len(s))).sum();
    // ExportTraceServiceRequest > ResourceSpans > ScopeSpans, whose spans are field 2.
    envelope(out, resource, scope, items);
    for record in spans {
        message(out, 2, span_len(record));
        span(out, record);
    }
}

/// Writes the export of the metrics' `readings` (cumulative monotonic sums since `since`,
/// read at `now`) under the resource's attributes and rein's scope to `out`.
pub(crate) fn metrics(
    resource: &[KeyValue],
    scope: (&str, &str),
    readings: &[Reading],
    times: (SystemTime, SystemTime),
    out: &mut impl BufMut,
) {
    let times = (nanos(times.0), nanos(times.1));
    let items = readings.iter().map(|r| field_len(metric_len(r))).sum();
    // ExportMetricsServiceRequest > ResourceMetrics > ScopeMetrics, whose metrics are field 2.
    envelope(out, resource, scope, items);
    for reading in readings {
        message(out, 2, metric_len(reading));
        // Metric: name (1), description (2), unit (3), then its data, a Sum (7).
        for (tag, text) in [
            (1, reading.name),
            (2, reading.description),
            (3, reading.unit),
        ] {
            // proto3 leaves an empty string out.
            if !text.is_empty() {
                string(out, tag, text);
            }
        }
        message(out, 7, sum_len(reading));
        // Sum: each point (1), cumulative (2), monotonic (3).
        for (labels, total) in &reading.points {
            message(out, 1, point_len(labels));
            // NumberDataPoint: start (2), time (3), the value, a double (4) or an
            // sfixed64 (6), then the attributes (7).
            fixed64(out, 2, times.0);
            fixed64(out, 3, times.1);
            match total {
                Total::Amount(x) => {
                    encode_key(4, WireType::SixtyFourBit, out);
                    out.put_f64_le(*x);
                }
                Total::Count(n) => {
                    encode_key(6, WireType::SixtyFourBit, out);
                    out.put_i64_le(i64::try_from(*n).unwrap_or(i64::MAX));
                }
            }
            for (key, text) in labels {
                message(out, 7, label_len(key, text));
                string(out, 1, key);
                message(out, 2, string_len(text));
                string(out, 1, text);
            }
        }
        varint(out, 2, CUMULATIVE);
        varint(out, 3, 1);
    }
}

fn metric_len(reading: &Reading) -> usize {
    [reading.name, reading.description, reading.unit]
        .into_iter()
        .filter(|text| !text.is_empty())
        .map(string_len)
        .sum::<usize>()
        + field_len(sum_len(reading))
}

fn sum_len(reading: &Reading) -> usize {
    let points: usize = reading
        .points
        .iter()
        .map(|(labels, _)| field_len(point_len(labels)))
        .sum();
    points + 1 + encoded_len_varint(CUMULATIVE) + 2
}

fn point_len(labels: &[(&str, String)]) -> usize {
    let labels: usize = labels
        .iter()
        .map(|(key, text)| field_len(label_len(key, text)))
        .sum();
    // The two times and the value: a key and eight bytes each.
    labels + 3 * 9
}

fn label_len(key: &str, text: &str) -> usize {
    string_len(key) + field_len(string_len(text))
}

/// The request's envelope, the same for both signals, up to its items (`items` bytes, written
/// next): the one resource-level message (1) holding the resource (1) and the one scope-level
/// message (2), which holds the scope (1: name, version) before its items.
fn envelope(out: &mut impl BufMut, resource: &[KeyValue], scope: (&str, &str), items: usize) {
    let scope_len = string_len(scope.0) + string_len(scope.1);
    let scoped_len = field_len(scope_len) + items;
    let resource_len = attributes_len(resource);
    message(out, 1, field_len(resource_len) + field_len(scoped_len));
    message(out, 1, resource_len);
    attributes(out, 1, resource);
    message(out, 2, scoped_len);
    message(out, 1, scope_len);
    string(out, 1, scope.0);
    string(out, 2, scope.1);
}

/// A `Span`'s fields.
fn span(out: &mut impl BufMut, record: &SpanRecord) {
    bytes(out, 1, &record.trace_id);
    bytes(out, 2, &record.span_id);
    if let Some(parent) = &record.parent_span_id {
        bytes(out, 4, parent);
    }
    string(out, 5, &record.name);
    varint(out, 6, kind(record));
    fixed64(out, 7, nanos(record.start));
    fixed64(out, 8, nanos(record.end));
    attributes(out, 9, &record.attributes);
    for event in &record.events {
        message(out, 11, event_len(event));
        // Span.Event: time (1), name (2), attributes (3).
        fixed64(out, 1, nanos(event.at));
        string(out, 2, &event.name);
        attributes(out, 3, &event.attributes);
    }
    if let Some(why) = &record.error {
        // Status: message (2), code (3).
        message(out, 15, status_len(why));
        string(out, 2, why);
        varint(out, 3, STATUS_ERROR);
    }
}

fn span_len(record: &SpanRecord) -> usize {
    let parent = record
        .parent_span_id
        .as_ref()
        .map_or(0, |p| field_len(p.len()));
    field_len(record.trace_id.len())
        + field_len(record.span_id.len())
        + parent
        + string_len(&record.name)
        + 1
        + encoded_len_varint(kind(record))
        + 2 * 9
        + attributes_len(&record.attributes)
        + record
            .events
            .iter()
            .map(|e| field_len(event_len(e)))
            .sum::<usize>()
        + record
            .error
            .as_ref()
            .map_or(0, |why| field_len(status_len(why)))
}

fn kind(record: &SpanRecord) -> u64 {
    if record.client { CLIENT } else { INTERNAL }
}

fn event_len(event: &SpanEvent) -> usize {
    9 + string_len(&event.name) + attributes_len(&event.attributes)
}

fn status_len(why: &str) -> usize {
    string_len(why) + 1 + encoded_len_varint(STATUS_ERROR)
}

/// Each of `list` as a `KeyValue` in field `tag`: key (1), value (2).
fn attributes(out: &mut impl BufMut, tag: u32, list: &[KeyValue]) {
    for kv in list {
        let value_len = any_len(&kv.value);
        message(out, tag, string_len(&kv.key) + field_len(value_len));
        string(out, 1, &kv.key);
        message(out, 2, value_len);
        any(out, &kv.value);
    }
}

fn attributes_len(list: &[KeyValue]) -> usize {
    list.iter()
        .map(|kv| field_len(string_len(&kv.key) + field_len(any_len(&kv.value))))
        .sum()
}

/// An `AnyValue`'s one field: string (1), bool (2), int (3), double (4), array (5).
fn any(out: &mut impl BufMut, value: &Value) {
    match value {
        Value::Str(s) => string(out, 1, s),
        Value::Bool(b) => varint(out, 2, u64::from(*b)),
        // int64 goes on the wire as its two's complement.
        Value::Int(n) => varint(out, 3, *n as u64),
        Value::Float(x) => {
            encode_key(4, WireType::SixtyFourBit, out);
            out.put_f64_le(*x);
        }
        Value::Strs(items) => {
            message(out, 5, array_len(items));
            // ArrayValue: each value (1), an AnyValue holding a string.
            for item in items {
                message(out, 1, string_len(item));
                string(out, 1, item);
            }
        }
    }
}

fn any_len(value: &Value) -> usize {
    match value {
        Value::Str(s) => string_len(s),
        Value::Bool(_) => 2,
        Value::Int(n) => 1 + encoded_len_varint(*n as u64),
        Value::Float(_) => 9,
        Value::Strs(items) => field_len(array_len(items)),
    }
}

fn array_len(items: &[String]) -> usize {
    items.iter().map(|item| field_len(string_len(item))).sum()
}

/// Nanoseconds since the Unix epoch.
pub(crate) fn nanos(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// The length of a length-delimited field of `len` bytes (every field rein writes has a tag
/// below 16: a one-byte key).
fn field_len(len: usize) -> usize {
    1 + encoded_len_varint(len as u64) + len
}

fn string_len(text: &str) -> usize {
    field_len(text.len())
}

/// The key and length of an embedded message of `len` bytes, written next.
fn message(out: &mut impl BufMut, tag: u32, len: usize) {
    encode_key(tag, WireType::LengthDelimited, out);
    encode_varint(len as u64, out);
}

fn string(out: &mut impl BufMut, tag: u32, text: &str) {
    bytes(out, tag, text.as_bytes());
}

fn bytes(out: &mut impl BufMut, tag: u32, data: &[u8]) {
    message(out, tag, data.len());
    out.put_slice(data);
}

fn varint(out: &mut impl BufMut, tag: u32, value: u64) {
    encode_key(tag, WireType::Varint, out);
    encode_varint(value, out);
}

fn fixed64(out: &mut impl BufMut, tag: u32, value: u64) {
    encode_key(tag, WireType::SixtyFourBit, out);
    out.put_u64_le(value);
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use opentelemetry_proto::tonic::common::v1::{
        AnyValue, ArrayValue, InstrumentationScope, KeyValue as ProtoKeyValue, any_value,
    };
    use opentelemetry_proto::tonic::resource::v1::Resource;
    use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span, Status, span};
    use pretty_assertions::assert_eq;
    use prost::Message;

    use super::*;
    use crate::meters::{Reading, Total};

    fn proto_value(value: &Value) -> AnyValue {
        use any_value::Value as V;
        let text = |s: &String| AnyValue {
            value: Some(V::StringValue(s.clone())),
        };
        AnyValue {
            value: Some(match value {
                Value::Str(s) => V::StringValue(s.clone()),
                Value::Int(n) => V::IntValue(*n),
                Value::Float(x) => V::DoubleValue(*x),
                Value::Bool(b) => V::BoolValue(*b),
                Value::Strs(items) => V::ArrayValue(ArrayValue {
                    values: items.iter().map(text).collect(),
                }),
            }),
        }
    }

    fn proto_attributes(list: &[KeyValue]) -> Vec<ProtoKeyValue> {
        list.iter()
            .map(|kv| ProtoKeyValue {
                key: kv.key.to_string(),
                value: Some(proto_value(&kv.value)),
                ..Default::default()
            })
            .collect()
    }

    /// What the official definitions say `record` is.
    fn expected(record: &SpanRecord) -> Span {
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
            attributes: proto_attributes(&record.attributes),
            events: record
                .events
                .iter()
                .map(|e| span::Event {
                    time_unix_nano: nanos(e.at),
                    name: e.name.clone(),
                    attributes: proto_attributes(&e.attributes),
                    ..Default::default()
                })
                .collect(),
            status: record.error.as_ref().map(|why| Status {
                message: why.clone(),
                code: opentelemetry_proto::tonic::trace::v1::status::StatusCode::Error as i32,
            }),
            ..Default::default()
        }
    }

    fn records() -> Vec<SpanRecord> {
        let at = SystemTime::UNIX_EPOCH + Duration::from_nanos(1_795_836_037_588_859_585);
        let long = "x".repeat(300);
        let root = SpanRecord {
            trace_id: [7; 16],
            span_id: [1; 8],
            parent_span_id: None,
            name: "invoke_agent rein".into(),
            client: false,
            start: at,
            end: at + Duration::from_millis(22),
            attributes: vec![
                KeyValue::new("gen_ai.operation.name", "invoke_agent"),
                KeyValue::new("rein.turns", 4_i64),
                KeyValue::new("rein.negative", -3_i64),
                KeyValue::new("rein.cost_usd", 0.0108),
                KeyValue::new("rein.flag", true),
                KeyValue::new("rein.off", false),
                KeyValue::new("rein.zero", 0_i64),
                KeyValue::new("rein.empty", ""),
                KeyValue::new("gen_ai.input.messages", long.clone()),
            ],
            events: vec![],
            error: Some("the run failed".into()),
        };
        let chat = SpanRecord {
            trace_id: [7; 16],
            span_id: [2; 8],
            parent_span_id: Some([1; 8]),
            name: "chat claude-sonnet-4-5".into(),
            client: true,
            start: at + Duration::from_millis(1),
            end: at + Duration::from_millis(5),
            attributes: vec![
                KeyValue::new(
                    "gen_ai.response.finish_reasons",
                    vec!["tool_use".to_string(), long],
                ),
                KeyValue::new("gen_ai.response.finish_reasons.none", Vec::<String>::new()),
            ],
            events: vec![
                SpanEvent {
                    name: "rein.retry".into(),
                    at: at + Duration::from_millis(2),
                    attributes: vec![KeyValue::new("rein.retry.attempt", 1_i64)],
                },
                SpanEvent {
                    name: "bare".into(),
                    at,
                    attributes: vec![],
                },
            ],
            error: None,
        };
        vec![root, chat]
    }

    #[test]
    fn the_bytes_are_what_the_official_definitions_read() {
        let records = records();
        let resource = [
            KeyValue::new("service.name", "rein"),
            KeyValue::new("team", "ünïcode"),
        ];
        let mut bytes = Vec::new();
        spans(&resource, ("rein", "0.1.0"), &records, &mut bytes);
        let read = ExportTraceServiceRequest::decode(bytes.as_slice()).unwrap();
        let want = ExportTraceServiceRequest {
            resource_spans: vec![ResourceSpans {
                resource: Some(Resource {
                    attributes: proto_attributes(&resource),
                    ..Default::default()
                }),
                scope_spans: vec![ScopeSpans {
                    scope: Some(InstrumentationScope {
                        name: "rein".into(),
                        version: "0.1.0".into(),
                        ..Default::default()
                    }),
                    spans: records.iter().map(expected).collect(),
                    ..Default::default()
                }],
                ..Default::default()
            }],
        };
        assert_eq!(read, want);
        // The same bytes as prost writes for that message: nothing extra, nothing missing.
        assert_eq!(bytes, want.encode_to_vec());
    }

    #[test]
    fn no_spans_is_still_a_request() {
        let mut bytes = Vec::new();
        spans(&[], ("rein", "1"), &[], &mut bytes);
        let read = ExportTraceServiceRequest::decode(bytes.as_slice()).unwrap();
        assert_eq!(read.resource_spans.len(), 1);
        assert!(read.resource_spans[0].scope_spans[0].spans.is_empty());
    }

    #[test]
    fn the_metrics_bytes_are_what_prost_writes_for_the_official_messages() {
        use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;

        let readings = vec![
            Reading {
                name: "rein.session.count",
                description: "Sessions started",
                unit: "{session}",
                points: vec![(vec![], Total::Count(1))],
            },
            Reading {
                name: "rein.token.usage",
                description: "Tokens used",
                unit: "{token}",
                points: vec![
                    (
                        vec![
                            ("model", "claude-sonnet-4-5".into()),
                            ("type", "input".into()),
                        ],
                        Total::Count(6100),
                    ),
                    (vec![("type", "ünïcode".into())], Total::Count(u64::MAX)),
                ],
            },
            Reading {
                name: "rein.cost.usage",
                description: "",
                unit: "USD",
                points: vec![(vec![("model", "m".into())], Total::Amount(0.0108))],
            },
        ];
        let resource = [KeyValue::new("service.name", "rein")];
        let since = SystemTime::UNIX_EPOCH + Duration::from_secs(1_795_836_037);
        let now = since + Duration::from_millis(22);
        let mut bytes = Vec::new();
        metrics(
            &resource,
            ("rein", "0.1.0"),
            &readings,
            (since, now),
            &mut bytes,
        );
        let want = crate::otlp::metrics(&resource, "0.1.0", &readings, (since, now));
        let read = ExportMetricsServiceRequest::decode(bytes.as_slice()).unwrap();
        assert_eq!(read, want);
        assert_eq!(bytes, want.encode_to_vec());
    }
}
