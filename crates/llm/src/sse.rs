//! Server-sent events decoding, incremental over arbitrary byte chunks.
//!
//! Follows the HTML living standard's event-stream parsing: lines end with CRLF, LF or CR;
//! `data:` lines of one event are joined with `\n`; `event:` names the event; `id:` and
//! `retry:` are ignored; lines starting with `:` are comments; a blank line dispatches. Lines
//! are cut at byte level (line terminators never occur inside a multi-byte UTF-8 sequence), so
//! a character split across chunks is decoded whole.

/// Default cap on the size of one event (its data plus the line being read): 16 MiB.
pub(crate) const DEFAULT_MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field, when one was sent.
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

impl SseEvent {
    /// The data parsed as JSON; a protocol error for `provider` when it is not JSON.
    pub(crate) fn json(
        &self,
        provider: &'static str,
    ) -> Result<serde_json::Value, crate::LlmError> {
        serde_json::from_str(&self.data).map_err(|e| {
            crate::LlmError::new(
                crate::LlmErrorKind::Protocol,
                provider,
                format!(
                    "invalid JSON in stream event ({e}): {}",
                    crate::error::truncate(&self.data, 200)
                ),
            )
        })
    }
}

/// An event grew beyond the size cap.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("server-sent event larger than {max} bytes")]
pub(crate) struct SseTooLarge {
    /// The cap that was exceeded.
    pub max: usize,
}

/// Incremental decoder: feed chunks with [`SseDecoder::push`], then call
/// [`SseDecoder::finish`] at the end of the stream.
#[derive(Debug)]
pub(crate) struct SseDecoder {
    line: Vec<u8>,
    data: String,
    has_data: bool,
    event: Option<String>,
    /// The previous chunk ended with CR: a leading LF in the next chunk belongs to it.
    after_cr: bool,
    at_start: bool,
    max_event_bytes: usize,
}

impl Default for SseDecoder {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_EVENT_BYTES)
    }
}

impl SseDecoder {
    /// A decoder that refuses events larger than `max_event_bytes`.
    pub(crate) fn new(max_event_bytes: usize) -> Self {
        Self {
            line: Vec::new(),
            data: String::new(),
            has_data: false,
            event: None,
            after_cr: false,
            at_start: true,
            max_event_bytes,
        }
    }

    /// Decodes one chunk; returns the events it completed.
    pub(crate) fn push(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, SseTooLarge> {
        let mut events = Vec::new();
        let mut rest = chunk;
        if self.after_cr && !rest.is_empty() {
            self.after_cr = false;
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
        }
        while let Some(pos) = rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.line.extend_from_slice(&rest[..pos]);
            self.check_size()?;
            if let Some(event) = self.end_line() {
                events.push(event);
            }
            let terminator = rest[pos];
            rest = &rest[pos + 1..];
            if terminator == b'\r' {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        self.line.extend_from_slice(rest);
        self.check_size()?;
        Ok(events)
    }

    /// Ends the stream: a final event that lacked its blank line is still dispatched, since
    /// some servers close right after the last `data:` line.
    pub(crate) fn finish(&mut self) -> Option<SseEvent> {
        if !self.line.is_empty() {
            // The result is None: the line is not blank, so it cannot dispatch.
            let _ = self.end_line();
        }
        self.dispatch()
    }

    fn check_size(&self) -> Result<(), SseTooLarge> {
        if self.line.len() + self.data.len() > self.max_event_bytes {
            return Err(SseTooLarge {
                max: self.max_event_bytes,
            });
        }
        Ok(())
    }

    /// Processes the buffered line; returns an event when it was a blank line.
    fn end_line(&mut self) -> Option<SseEvent> {
        let raw = std::mem::take(&mut self.line);
        let mut bytes = raw.as_slice();
        if self.at_start {
            self.at_start = false;
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        if bytes.is_empty() {
            return self.dispatch();
        }
        let line = String::from_utf8_lossy(bytes);
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_string()),
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = self.event.take();
        if !self.has_data {
            return None;
        }
        self.has_data = false;
        Some(SseEvent {
            event: event.filter(|e| !e.is_empty()),
            data: std::mem::take(&mut self.data),
        })
    }
}

#[cfg(test)]
#[path = "sse_tests.rs"]
mod tests;
