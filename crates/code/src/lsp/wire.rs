//! LSP's base protocol: each JSON-RPC message behind a `Content-Length` header and a blank
//! line.

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The largest message read (a workspace's diagnostics can be large; nothing sane is this).
const MAX_MESSAGE: usize = 64 << 20;

/// What stopped reading.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// The stream broke.
    #[error("reading from the server: {0}")]
    Io(#[from] std::io::Error),
    /// The header was not LSP's.
    #[error("the server sent a bad header: {0}")]
    Header(String),
    /// The body was not JSON.
    #[error("the server sent a body that is not JSON: {0}")]
    Body(#[from] serde_json::Error),
}

/// The next message; `None` at the end of the stream.
pub async fn read_message<R: AsyncBufRead + Unpin>(
    reader: &mut R,
) -> Result<Option<Value>, WireError> {
    let mut length = None;
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).await? == 0 {
            return Ok(None);
        }
        let header = line.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            if length.is_some() {
                break;
            }
            continue;
        }
        let Some((name, value)) = header.split_once(':') else {
            return Err(WireError::Header(header.to_string()));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let parsed: usize = value
                .trim()
                .parse()
                .map_err(|_| WireError::Header(header.to_string()))?;
            if parsed > MAX_MESSAGE {
                return Err(WireError::Header(format!("a message of {parsed} bytes")));
            }
            length = Some(parsed);
        }
    }
    let mut body = vec![0; length.unwrap_or_default()];
    reader.read_exact(&mut body).await?;
    Ok(Some(serde_json::from_slice(&body)?))
}

/// Writes `message` with its header and flushes.
pub async fn write_message<W: AsyncWrite + Unpin>(
    writer: &mut W,
    message: &Value,
) -> std::io::Result<()> {
    let body = serde_json::to_vec(message)?;
    let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    framed.extend_from_slice(&body);
    writer.write_all(&framed).await?;
    writer.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn messages_round_trip_and_a_bad_header_is_an_error() {
        let mut buffer = Vec::new();
        write_message(&mut buffer, &json!({"jsonrpc": "2.0", "method": "é"}))
            .await
            .unwrap();
        write_message(&mut buffer, &json!({"id": 1})).await.unwrap();
        let text = String::from_utf8(buffer.clone()).unwrap();
        assert!(text.starts_with("Content-Length: 31\r\n\r\n{"), "{text}");
        let mut reader = tokio::io::BufReader::new(buffer.as_slice());
        let first = read_message(&mut reader).await.unwrap().unwrap();
        assert_eq!(first["method"], "é");
        let second = read_message(&mut reader).await.unwrap().unwrap();
        assert_eq!(second["id"], 1);
        assert!(read_message(&mut reader).await.unwrap().is_none());

        let typed = "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\
                     Content-Length: 2\r\n\r\n{}";
        let mut reader = tokio::io::BufReader::new(typed.as_bytes());
        assert_eq!(read_message(&mut reader).await.unwrap(), Some(json!({})));
        let mut reader = tokio::io::BufReader::new("nonsense\r\n\r\n".as_bytes());
        assert!(matches!(
            read_message(&mut reader).await,
            Err(WireError::Header(_))
        ));
    }
}
