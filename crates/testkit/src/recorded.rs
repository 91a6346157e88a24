//! What the mock server remembers about each request it received.

use axum::http::HeaderMap;
use serde_json::Value;

/// One request as the server received it.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// HTTP method, e.g. `POST`.
    pub method: String,
    /// Request path without the query, e.g. `/v1/messages`.
    pub path: String,
    /// Headers in arrival order, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON; `null` when empty, a JSON string holding the raw text when the
    /// body is not JSON.
    pub body: Value,
}

impl RecordedRequest {
    pub(crate) fn new(method: &str, path: &str, headers: &HeaderMap, body: &[u8]) -> Self {
        let headers = headers
            .iter()
            .map(|(name, value)| {
                let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
                (name.as_str().to_string(), value)
            })
            .collect();
        let body = if body.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(body)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(body).into_owned()))
        };
        Self {
            method: method.to_string(),
            path: path.to_string(),
            headers,
            body,
        }
    }

    /// The first value of header `name`, compared case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    #[test]
    fn header_lookup_ignores_case() {
        let mut headers = HeaderMap::new();
        headers.insert("x-api-key", HeaderValue::from_static("secret"));
        let request = RecordedRequest::new("POST", "/v1/messages", &headers, b"{}");
        assert_eq!(request.header("X-API-Key"), Some("secret"));
        assert_eq!(request.header("authorization"), None);
    }

    #[test]
    fn body_is_json_null_or_raw_text() {
        let headers = HeaderMap::new();
        let body = |raw: &[u8]| RecordedRequest::new("POST", "/", &headers, raw).body;
        assert_eq!(body(br#"{"a":1}"#), json!({"a": 1}));
        assert_eq!(body(b""), Value::Null);
        assert_eq!(body(b"not json"), json!("not json"));
    }
}
