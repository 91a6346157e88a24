//! The streamed response body: SSE bytes, optionally split into small writes, ending cleanly,
//! with a dropped connection, or never.

use std::io;
use std::time::Duration;

use axum::body::Body;
use bytes::Bytes;
use futures::StreamExt;
use tokio::sync::watch;

/// How a streamed body ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The body ends normally.
    Complete,
    /// The connection is aborted after the bytes are out, so the client sees a truncated body.
    Cut,
    /// Nothing more is sent until the server shuts down.
    Hang,
    /// Only SSE keep-alive comments, every 20 ms, until the server shuts down.
    Ping,
}

/// Builds the body from encoded SSE frames.
///
/// With `chunk_size`, the bytes are cut into pieces of that size (splitting frames and UTF-8
/// sequences) and the body yields between pieces so each one is flushed as its own write.
pub(crate) fn streaming_body(
    frames: Vec<String>,
    chunk_size: Option<usize>,
    ending: Ending,
    mut shutdown: watch::Receiver<()>,
) -> Body {
    let (chunks, paced) = match chunk_size {
        Some(size) if size > 0 => {
            let bytes = Bytes::from(frames.concat());
            let chunks = (0..bytes.len())
                .step_by(size)
                .map(|start| bytes.slice(start..bytes.len().min(start + size)))
                .collect();
            (chunks, true)
        }
        _ => (
            frames.into_iter().map(Bytes::from).collect::<Vec<_>>(),
            false,
        ),
    };
    let body = futures::stream::iter(chunks).then(move |chunk| async move {
        if paced {
            // Returning Pending once makes hyper flush what it has buffered.
            tokio::task::yield_now().await;
        }
        Ok::<_, io::Error>(chunk)
    });
    let tail = futures::stream::once(async move {
        match ending {
            Ending::Complete => None,
            Ending::Cut => {
                // Let hyper flush the frames before the error tears the connection down.
                tokio::task::yield_now().await;
                tokio::time::sleep(Duration::from_millis(10)).await;
                Some(Err(io::Error::new(
                    io::ErrorKind::ConnectionAborted,
                    "scenario fault: connection cut",
                )))
            }
            Ending::Hang | Ending::Ping => {
                // Resolves only when the server is dropped (the sender goes away).
                let _ = shutdown.changed().await;
                Some(Err(io::Error::other("mock server shut down")))
            }
        }
    })
    .filter_map(futures::future::ready);
    if ending == Ending::Ping {
        let pings = futures::stream::unfold((), |()| async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            Some((
                Ok::<_, io::Error>(Bytes::from_static(b": keep-alive\n\n")),
                (),
            ))
        });
        // The tail ends the body at shutdown; the pings run until then.
        let pings = futures::stream::select(pings, tail);
        return Body::from_stream(body.chain(pings));
    }
    Body::from_stream(body.chain(tail))
}
