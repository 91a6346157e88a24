//! Keeping tool output within a size limit by keeping its head and its tail.
//!
//! The start of an output usually says what ran and the end says how it finished (the error,
//! the summary line), so the middle is what goes. The omission is marked with its size so the
//! model knows something was cut and by how much.

use std::collections::VecDeque;

/// Default limit for one tool result, in bytes.
pub const DEFAULT_OUTPUT_LIMIT: usize = 30_000;

/// The marker put where the middle was cut.
fn omission_marker(omitted: usize) -> String {
    format!("\n[... {omitted} bytes omitted ...]\n")
}

/// `text` unchanged when it is at most `limit` bytes, otherwise its first and last
/// `limit / 2` bytes (cut at character boundaries, preferring line boundaries) around a
/// `[... N bytes omitted ...]` marker.
pub fn truncate_head_tail(text: &str, limit: usize) -> String {
    match head_tail_cut(text, limit) {
        None => text.to_string(),
        Some((head_end, tail_start)) => {
            let mut out = String::with_capacity(limit + 40);
            out.push_str(&text[..head_end]);
            out.push_str(&omission_marker(tail_start - head_end));
            out.push_str(&text[tail_start..]);
            out
        }
    }
}

/// Where to cut `text` to keep at most `limit` bytes of head and tail: `(head_end, tail_start)`,
/// at character boundaries and preferably at line boundaries; `None` when it fits.
pub fn head_tail_cut(text: &str, limit: usize) -> Option<(usize, usize)> {
    if text.len() <= limit {
        return None;
    }
    let half = limit / 2;
    let head_end = prefer_line_end(text, floor_char_boundary(text, half));
    let tail_start = prefer_line_start(text, ceil_char_boundary(text, text.len() - half));
    Some((head_end, tail_start.max(head_end)))
}

/// Collects a byte stream of unknown length in bounded memory: the first `limit / 2` bytes
/// and a rolling window of the last `limit / 2`.
#[derive(Debug)]
pub struct HeadTailBuffer {
    limit: usize,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: usize,
}

impl HeadTailBuffer {
    /// An empty buffer keeping at most `limit` bytes.
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            head: Vec::new(),
            tail: VecDeque::new(),
            total: 0,
        }
    }

    /// Appends bytes.
    pub fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len();
        let head_room = (self.limit - self.limit / 2).saturating_sub(self.head.len());
        let into_head = head_room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..into_head]);
        bytes = &bytes[into_head..];
        let tail_cap = self.limit / 2;
        if bytes.len() >= tail_cap {
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - tail_cap..]);
        } else {
            let overflow = (self.tail.len() + bytes.len()).saturating_sub(tail_cap);
            self.tail.drain(..overflow);
            self.tail.extend(bytes);
        }
    }

    /// Total bytes pushed so far.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The collected text (invalid UTF-8 replaced), with a `[... N bytes omitted ...]` marker
    /// when bytes were dropped.
    pub fn finish(self) -> String {
        self.finish_with(omission_marker)
    }

    /// Like [`HeadTailBuffer::finish`], with `marker(omitted_bytes)` put where bytes were
    /// dropped.
    pub fn finish_with(self, marker: impl FnOnce(usize) -> String) -> String {
        let kept = self.head.len() + self.tail.len();
        let omitted = self.total - kept;
        let mut head = self.head;
        let tail: Vec<u8> = self.tail.into();
        if omitted == 0 {
            head.extend_from_slice(&tail);
            return String::from_utf8_lossy(&head).into_owned();
        }
        // Cut at UTF-8 boundaries so the seams do not show replacement characters.
        let head_len = utf8_prefix_len(&head);
        let tail_skip = utf8_continuation_prefix(&tail);
        let omitted = omitted + (head.len() - head_len) + tail_skip;
        let mut out = String::from_utf8_lossy(&head[..head_len]).into_owned();
        out.push_str(&marker(omitted));
        out.push_str(&String::from_utf8_lossy(&tail[tail_skip..]));
        out
    }
}

/// Length of `bytes` without an incomplete UTF-8 sequence at the end.
fn utf8_prefix_len(bytes: &[u8]) -> usize {
    match std::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        Err(_) => bytes.len(),
    }
}

/// Number of UTF-8 continuation bytes at the start of `bytes` (at most 3).
fn utf8_continuation_prefix(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take(3)
        .take_while(|b| (**b & 0b1100_0000) == 0b1000_0000)
        .count()
}

/// The largest char boundary of `text` at or before `at` (at most `text.len()`).
pub fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The smallest char boundary of `text` at or after `at` (at most `text.len()`).
pub fn ceil_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// Moves a head cut back to just after a newline when one is in the last quarter of the head.
fn prefer_line_end(text: &str, end: usize) -> usize {
    match text[..end].rfind('\n') {
        Some(nl) if nl + 1 >= end - end / 4 => nl + 1,
        _ => end,
    }
}

/// Moves a tail cut forward to just after a newline when one is in the first quarter of the tail.
fn prefer_line_start(text: &str, start: usize) -> usize {
    if text[..start].ends_with('\n') {
        return start;
    }
    let quarter = (text.len() - start) / 4;
    match text[start..].find('\n') {
        Some(nl) if nl < quarter => start + nl + 1,
        _ => start,
    }
}

#[cfg(test)]
#[path = "output_tests.rs"]
mod tests;
