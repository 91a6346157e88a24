//! OTLP/HTTP to an `http://` collector (a local agent or collector, the common case) over one
//! kept-alive HTTP/1.1 connection per signal made with hyper's connection API: no TLS, pool,
//! redirects or URL and header parsing per export, which cost a short session more than its
//! spans (`bench/instructions --telemetry`). (One connection for both signals was tried: against
//! a collector that closes each connection after its answer, as the bench's does, it cost a
//! connection at the exit.)
//! `https://` collectors go through rein's `reqwest` client (see [`crate::export`]).

use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{CONTENT_TYPE, HOST, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::sync::Mutex;

use crate::TelemetryError;

/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// One `http://` endpoint, its headers read once, and the connection to it, kept between
/// exports.
pub(crate) struct PlainHttp {
    url: String,
    /// `host:port`, to connect to.
    address: String,
    /// What is asked for (`/v1/traces`).
    path: Uri,
    /// `Host`, `Content-Type` and the configured ones.
    headers: HeaderMap,
    sender: Mutex<Option<SendRequest<Full<Bytes>>>>,
}

/// A post that got no answer (no connection, or the kept one closed under it: always worth
/// another try, which connects anew), and why.
pub(crate) struct Unsent(pub String);

impl PlainHttp {
    /// The endpoint `url` (`http://host[:port]/path`), sent `headers` with every export.
    pub fn new(url: &str, headers: &[(String, String)]) -> Result<Self, TelemetryError> {
        let bad = |why: &str| TelemetryError(format!("the OTLP endpoint {url}: {why}"));
        let uri: Uri = url.parse().map_err(|e| bad(&format!("{e}")))?;
        if uri.scheme_str() != Some("http") {
            return Err(bad("not an http:// address"));
        }
        let authority = uri.authority().ok_or_else(|| bad("no host"))?;
        let address = format!(
            "{}:{}",
            authority.host(),
            authority.port_u16().unwrap_or(80)
        );
        let mut map = HeaderMap::new();
        let host = HeaderValue::from_str(authority.as_str()).map_err(|e| bad(&e.to_string()))?;
        map.insert(HOST, host);
        map.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("application/x-protobuf"),
        );
        for (name, value) in headers {
            let header = |e: &dyn std::fmt::Display| bad(&format!("header {name}: {e}"));
            map.insert(
                HeaderName::from_bytes(name.as_bytes()).map_err(|e| header(&e))?,
                HeaderValue::from_str(value).map_err(|e| header(&e))?,
            );
        }
        let path = uri
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .parse()
            .map_err(|e| bad(&format!("{e}")))?;
        Ok(Self {
            url: url.to_string(),
            address,
            path,
            headers: map,
            sender: Mutex::new(None),
        })
    }

    /// The endpoint.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Connects now when no connection is kept (a failure is left to the next post).
    pub async fn warm(&self) {
        let mut kept = self.sender.lock().await;
        if kept.as_ref().is_none_or(SendRequest::is_closed)
            && let Ok(sender) = self.connect().await
        {
            *kept = Some(sender);
        }
    }

    /// Posts `body` as protobuf; the collector's status. The connection is kept for the next
    /// post when the collector keeps it open.
    pub async fn post(&self, body: Bytes) -> Result<StatusCode, Unsent> {
        let mut kept = self.sender.lock().await;
        let mut sender = match kept.take() {
            Some(sender) if !sender.is_closed() => sender,
            _ => self.connect().await?,
        };
        if sender.ready().await.is_err() {
            sender = self.connect().await?;
        }
        let mut request = Request::new(Full::new(body));
        *request.method_mut() = Method::POST;
        *request.uri_mut() = self.path.clone();
        *request.headers_mut() = self.headers.clone();
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| Unsent(format!("{}: {e}", self.url)))?;
        let status = response.status();
        // The answer's body is read to the end so the connection can carry the next post.
        if response.into_body().collect().await.is_ok() && !sender.is_closed() {
            *kept = Some(sender);
        }
        Ok(status)
    }

    async fn connect(&self) -> Result<SendRequest<Full<Bytes>>, Unsent> {
        let unsent = |message: String| Unsent(format!("{}: {message}", self.url));
        let stream = tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(&self.address))
            .await
            .map_err(|_| unsent("connecting timed out".to_string()))?
            .map_err(|e| unsent(e.to_string()))?;
        let _ = stream.set_nodelay(true);
        let (sender, connection) = http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| unsent(e.to_string()))?;
        // The connection is driven until the collector closes it or the sender is dropped.
        tokio::spawn(connection);
        Ok(sender)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use tokio::net::TcpListener;

    use super::*;
    use crate::collector::{After, collector};

    fn endpoint(url: &str) -> PlainHttp {
        PlainHttp::new(url, &[("x-team".into(), "rein".into())]).unwrap()
    }

    #[tokio::test]
    async fn posts_share_one_kept_connection_with_the_headers_and_body() {
        let collector = collector(&[200], After::KeepOpen).await;
        let http = endpoint(&collector.url);
        for body in ["first", "second", "third"] {
            let status = http.post(Bytes::from(body)).await.ok().unwrap();
            assert_eq!(status, StatusCode::OK);
        }
        assert_eq!(collector.connections.load(Ordering::SeqCst), 1);
        let requests = collector.requests.lock().unwrap();
        assert_eq!(requests.len(), 3);
        let (head, body) = &requests[1];
        assert!(head.starts_with("post /v1/traces http/1.1\r\n"), "{head}");
        assert!(
            head.contains("content-type: application/x-protobuf\r\n"),
            "{head}"
        );
        assert!(head.contains("x-team: rein\r\n"), "{head}");
        let host = collector.url.trim_start_matches("http://");
        assert!(head.contains(&format!("host: {}\r\n", &host[..host.find('/').unwrap()])));
        assert_eq!(body, b"second");
    }

    #[tokio::test]
    async fn a_collector_that_closes_after_each_answer_gets_a_new_connection() {
        let collector = collector(&[503], After::SayClose).await;
        let http = endpoint(&collector.url);
        for _ in 0..2 {
            let status = http.post(Bytes::from("spans")).await.ok().unwrap();
            assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        }
        assert_eq!(collector.connections.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_connection_closed_in_silence_is_replaced_or_worth_another_try() {
        let collector = collector(&[200], After::DropSilently).await;
        let http = endpoint(&collector.url);
        assert!(http.post(Bytes::from("one")).await.is_ok());
        // The collector closed its side; the next post either notices before sending or
        // fails in a way the exporter tries again, which then connects anew.
        let second = match http.post(Bytes::from("two")).await {
            Ok(status) => status,
            Err(Unsent(message)) => {
                assert!(message.starts_with(&collector.url), "{message}");
                http.post(Bytes::from("two")).await.ok().unwrap()
            }
        };
        assert_eq!(second, StatusCode::OK);
        assert_eq!(collector.connections.load(Ordering::SeqCst), 2);
        assert_eq!(collector.requests.lock().unwrap()[1].1, b"two");
    }

    #[tokio::test]
    async fn nobody_listening_is_a_connection_failure() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v1/metrics", listener.local_addr().unwrap());
        drop(listener);
        let Unsent(message) = endpoint(&url).post(Bytes::from("x")).await.err().unwrap();
        assert!(message.starts_with(&url), "{message}");
    }

    #[test]
    fn endpoints_are_read_once_and_bad_ones_refused() {
        let http = PlainHttp::new("http://collector:4318/v1/traces?x=1", &[]).unwrap();
        assert_eq!(http.address, "collector:4318");
        assert_eq!(http.path, "/v1/traces?x=1");
        assert_eq!(http.headers[HOST], "collector:4318");
        let http = PlainHttp::new("http://[::1]/v1/traces", &[]).unwrap();
        assert_eq!(http.address, "[::1]:80");
        for bad in ["https://collector/v1/traces", "collector:4318", "http:///x"] {
            assert!(PlainHttp::new(bad, &[]).is_err(), "{bad}");
        }
        let bad_header = [("bad name".to_string(), "v".to_string())];
        assert!(PlainHttp::new("http://c/v1/traces", &bad_header).is_err());
    }
}
