//! Helpers shared by the test modules.

use rein_testkit::{MockServer, Scenario};
use serde_json::Value;

/// Starts a server for a scenario given as JSON text.
pub async fn mock(scenario: &str) -> MockServer {
    MockServer::start(Scenario::from_json(scenario).unwrap())
        .await
        .unwrap()
}

/// A client that never goes through a proxy.
pub fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// POSTs `body` as JSON to `url`.
pub async fn post(url: &str, body: &Value) -> reqwest::Response {
    client().post(url).json(body).send().await.unwrap()
}

/// One parsed SSE frame: the `event:` name (if any) and the `data:` payload as JSON, or as
/// a JSON string for non-JSON data such as `[DONE]`.
pub type Frame = (Option<String>, Value);

/// Parses a complete SSE body, checking every frame is `event:`? + `data:` + blank line.
pub fn parse_sse(text: &str) -> Vec<Frame> {
    assert!(
        text.ends_with("\n\n"),
        "body must end with a blank line: {text:?}"
    );
    text.trim_end_matches("\n\n")
        .split("\n\n")
        .map(|frame| {
            let mut event = None;
            let mut data = None;
            for line in frame.lines() {
                if let Some(name) = line.strip_prefix("event: ") {
                    event = Some(name.to_string());
                } else if let Some(payload) = line.strip_prefix("data: ") {
                    assert!(data.is_none(), "one data line per frame: {frame:?}");
                    data = Some(
                        serde_json::from_str(payload)
                            .unwrap_or_else(|_| Value::String(payload.to_string())),
                    );
                } else {
                    panic!("unexpected line {line:?} in frame {frame:?}");
                }
            }
            (event, data.expect("frame without data"))
        })
        .collect()
}

/// The whole body of a successful streaming response, parsed.
pub async fn frames(response: reqwest::Response) -> Vec<Frame> {
    assert_eq!(response.status(), 200);
    parse_sse(&response.text().await.unwrap())
}

/// Only the data payloads of frames whose data `type` is `kind`.
pub fn of_type<'a>(frames: &'a [Frame], kind: &str) -> Vec<&'a Value> {
    frames
        .iter()
        .map(|(_, data)| data)
        .filter(|data| data["type"] == kind)
        .collect()
}
