//! Where each cell of a notebook's `cells` array is in the file's text, so an edit replaces,
//! inserts or removes one cell's bytes and leaves every other byte as it was (serialising
//! the whole notebook again would re-indent and re-order what Jupyter wrote).

use std::ops::Range;

/// The byte ranges of the `cells` array's elements, in order, and the range of the array's
/// inside (between `[` and `]`). `None` when the text is not an object with a `cells` array.
pub(crate) fn cell_spans(text: &str) -> Option<(Vec<Range<usize>>, Range<usize>)> {
    let bytes = text.as_bytes();
    let mut at = skip_ws(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    at += 1;
    loop {
        at = skip_ws(bytes, at);
        match bytes.get(at)? {
            b'}' => return None,
            b',' => {
                at += 1;
                continue;
            }
            b'"' => {}
            _ => return None,
        }
        let key_end = skip_string(bytes, at)?;
        let key = &text[at + 1..key_end - 1];
        at = skip_ws(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        at = skip_ws(bytes, at + 1);
        if key == "cells" {
            return array_elements(bytes, at);
        }
        at = skip_value(bytes, at)?;
    }
}

/// The elements of the array starting at `at`.
fn array_elements(bytes: &[u8], at: usize) -> Option<(Vec<Range<usize>>, Range<usize>)> {
    if bytes.get(at) != Some(&b'[') {
        return None;
    }
    let inside_start = at + 1;
    let mut spans = Vec::new();
    let mut at = inside_start;
    loop {
        at = skip_ws(bytes, at);
        match bytes.get(at)? {
            b']' => return Some((spans, inside_start..at)),
            b',' => at += 1,
            _ => {
                let end = skip_value(bytes, at)?;
                spans.push(at..end);
                at = end;
            }
        }
    }
}

fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|b| b.is_ascii_whitespace()) {
        at += 1;
    }
    at
}

/// The end (after the closing quote) of the string starting at `at`.
fn skip_string(bytes: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    loop {
        match bytes.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// The end of the value starting at `at`.
fn skip_value(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => skip_string(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            loop {
                match bytes.get(i)? {
                    b'"' => {
                        i = skip_string(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let mut i = at;
            while bytes
                .get(i)
                .is_some_and(|b| !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace())
            {
                i += 1;
            }
            (i > at).then_some(i)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cells_are_found_whatever_comes_before_them() {
        let text = r#"{"metadata": {"a": [1, "]"]}, "cells": [ {"x": "}"} , {"y": [2]} ], "n": 4}"#;
        let (spans, inside) = cell_spans(text).unwrap();
        let cells: Vec<&str> = spans.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(cells, [r#"{"x": "}"}"#, r#"{"y": [2]}"#]);
        assert_eq!(&text[inside], r#" {"x": "}"} , {"y": [2]} "#);
        assert!(cell_spans("[]").is_none());
        assert!(cell_spans(r#"{"cells": 3}"#).is_none());
        assert_eq!(cell_spans(r#"{"cells": []}"#).unwrap().0.len(), 0);
    }
}
