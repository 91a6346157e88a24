//! A collector for the exporters' tests: a raw HTTP/1.1 server on 127.0.0.1 whose answers and
//! connection handling each test chooses.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A collector on 127.0.0.1: counts its connections and keeps the requests' heads (in lower
/// case) and bodies.
pub struct Collector {
    pub url: String,
    pub connections: Arc<AtomicUsize>,
    pub requests: Requests,
}

/// Each request's head (in lower case) and body.
pub type Requests = Arc<std::sync::Mutex<Vec<(String, Vec<u8>)>>>;

/// What the collector does with a connection after an answer.
#[derive(Clone, Copy)]
pub enum After {
    KeepOpen,
    /// Says `Connection: close` and closes.
    SayClose,
    /// Closes without saying so (a collector's idle timeout).
    DropSilently,
}

/// Starts a collector answering the posts with `statuses` in turn (the last one again when
/// they run out) at `/v1/traces`.
pub async fn collector(statuses: &[u16], after: After) -> Collector {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1/traces", listener.local_addr().unwrap());
    let connections = Arc::new(AtomicUsize::new(0));
    let requests = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (count, kept) = (connections.clone(), requests.clone());
    let statuses = Arc::new(std::sync::Mutex::new(statuses.to_vec()));
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            let (kept, statuses) = (kept.clone(), statuses.clone());
            tokio::spawn(async move {
                while let Some(request) = read_request(&mut stream).await {
                    kept.lock().unwrap().push(request);
                    let status = {
                        let mut statuses = statuses.lock().unwrap();
                        if statuses.len() > 1 {
                            statuses.remove(0)
                        } else {
                            statuses[0]
                        }
                    };
                    let close = matches!(after, After::SayClose);
                    let answer = format!(
                        "HTTP/1.1 {status} X\r\ncontent-length: 0\r\n{}\r\n",
                        if close { "connection: close\r\n" } else { "" }
                    );
                    if stream.write_all(answer.as_bytes()).await.is_err()
                        || !matches!(after, After::KeepOpen)
                    {
                        return;
                    }
                }
            });
        }
    });
    Collector {
        url,
        connections,
        requests,
    }
}

/// One request's head and body, none when the connection ends.
async fn read_request(stream: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut bytes = Vec::new();
    let end = loop {
        if let Some(at) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        bytes.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&bytes[..end]).to_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    let mut body = bytes[end..].to_vec();
    while body.len() < length {
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some((head, body))
}
