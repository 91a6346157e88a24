use super::*;
use pretty_assertions::assert_eq;

fn ev(event: Option<&str>, data: &str) -> SseEvent {
    SseEvent {
        event: event.map(str::to_string),
        data: data.to_string(),
    }
}

fn decode_whole(input: &[u8]) -> Vec<SseEvent> {
    let mut decoder = SseDecoder::default();
    let mut events = decoder.push(input).unwrap();
    events.extend(decoder.finish());
    events
}

fn decode_split(input: &[u8], at: usize) -> Vec<SseEvent> {
    let mut decoder = SseDecoder::default();
    let mut events = decoder.push(&input[..at]).unwrap();
    events.extend(decoder.push(&input[at..]).unwrap());
    events.extend(decoder.finish());
    events
}

fn decode_bytewise(input: &[u8]) -> Vec<SseEvent> {
    let mut decoder = SseDecoder::default();
    let mut events = Vec::new();
    for byte in input {
        events.extend(decoder.push(std::slice::from_ref(byte)).unwrap());
    }
    events.extend(decoder.finish());
    events
}

/// (name, stream, expected events)
fn cases() -> Vec<(&'static str, &'static [u8], Vec<SseEvent>)> {
    vec![
        (
            "lf endings with event names",
            b"event: message_start\ndata: {\"a\":1}\n\nevent: ping\ndata: {}\n\n",
            vec![
                ev(Some("message_start"), "{\"a\":1}"),
                ev(Some("ping"), "{}"),
            ],
        ),
        (
            "crlf endings",
            b"event: e\r\ndata: x\r\n\r\ndata: y\r\n\r\n",
            vec![ev(Some("e"), "x"), ev(None, "y")],
        ),
        (
            "cr endings",
            b"data: one\r\rdata: two\r\r",
            vec![ev(None, "one"), ev(None, "two")],
        ),
        (
            "multi-line data joined with newline",
            b"data: first\ndata: second\ndata:third\n\n",
            vec![ev(None, "first\nsecond\nthird")],
        ),
        (
            "comments, ids and retry ignored",
            b": keep-alive\nid: 7\nretry: 100\ndata: hi\n\n:\n\n",
            vec![ev(None, "hi")],
        ),
        (
            "data without space and utf-8 text",
            "data:héllo wörld ✓ 🎉\n\ndata: [DONE]\n\n".as_bytes(),
            vec![ev(None, "héllo wörld ✓ 🎉"), ev(None, "[DONE]")],
        ),
        (
            "event without data is not dispatched",
            b"event: lonely\n\ndata: x\n\n",
            vec![ev(None, "x")],
        ),
        (
            "empty data line dispatches an empty event",
            b"data\n\ndata:\n\n",
            vec![ev(None, ""), ev(None, "")],
        ),
        (
            "final event without blank line is flushed at the end",
            b"data: a\n\ndata: [DONE]",
            vec![ev(None, "a"), ev(None, "[DONE]")],
        ),
        (
            "leading byte order mark",
            b"\xEF\xBB\xBFdata: bom\n\n",
            vec![ev(None, "bom")],
        ),
        (
            "mixed endings",
            b"data: a\r\n\ndata: b\r\rdata: c\n\r\n",
            vec![ev(None, "a"), ev(None, "b"), ev(None, "c")],
        ),
    ]
}

#[test]
fn decodes_every_sample_whole() {
    for (name, input, expected) in cases() {
        assert_eq!(decode_whole(input), expected, "case {name}");
    }
}

#[test]
fn splitting_at_every_byte_position_yields_identical_events() {
    for (name, input, expected) in cases() {
        for at in 0..=input.len() {
            assert_eq!(
                decode_split(input, at),
                expected,
                "case {name} split at {at}"
            );
        }
    }
}

#[test]
fn one_byte_chunks_yield_identical_events() {
    for (name, input, expected) in cases() {
        assert_eq!(decode_bytewise(input), expected, "case {name}");
    }
}

#[test]
fn an_event_over_the_size_cap_is_refused() {
    let mut decoder = SseDecoder::new(16);
    assert_eq!(decoder.push(b"data: 0123456789\n").unwrap(), vec![]);
    assert_eq!(
        decoder.push(b"data: 0123456789\n"),
        Err(SseTooLarge { max: 16 })
    );
}

#[test]
fn an_endless_line_is_refused_before_it_ends() {
    let mut decoder = SseDecoder::new(8);
    assert_eq!(decoder.push(b"data: 0123"), Err(SseTooLarge { max: 8 }));
}

/// The recorded provider streams, when `../shared` is there.
fn recordings() -> &'static [Vec<u8>] {
    static BODIES: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    BODIES.get_or_init(|| {
        let Ok(Some(manifest)) =
            rein_testkit::conformance_file("real-streams/corpus/manifest.json")
        else {
            return Vec::new();
        };
        let manifest: serde_json::Value = serde_json::from_str(&manifest).unwrap_or_default();
        manifest["recordings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["file"].as_str())
            .filter_map(|file| {
                rein_testkit::conformance_file(&format!("real-streams/corpus/{file}")).ok()?
            })
            .map(String::into_bytes)
            .collect()
    })
}

proptest::proptest! {
    /// Fuzz target (`bench/fuzz`): a real recording cut at arbitrary places decodes to the same
    /// events as whole.
    #[test]
    fn fuzz_sse_decoder_splits_real_streams_like_whole(
        pick in proptest::prelude::any::<proptest::sample::Index>(),
        cuts in proptest::collection::vec(proptest::prelude::any::<proptest::sample::Index>(), 0..24),
    ) {
        let bodies = recordings();
        if bodies.is_empty() {
            return Ok(());
        }
        let body = &bodies[pick.index(bodies.len())];
        let mut at: Vec<usize> = cuts.iter().map(|c| c.index(body.len() + 1)).collect();
        at.sort_unstable();
        let mut decoder = SseDecoder::default();
        let mut events = Vec::new();
        let mut from = 0;
        for cut in at.into_iter().chain([body.len()]) {
            events.extend(decoder.push(&body[from..cut]).unwrap());
            from = cut;
        }
        events.extend(decoder.finish());
        proptest::prop_assert_eq!(events, decode_whole(body));
    }

    /// Fuzz target: any bytes, in any pieces, decode or are refused, never panic.
    #[test]
    fn fuzz_sse_decoder_takes_any_bytes(
        bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..600),
        cut in 0usize..600,
    ) {
        let mut decoder = SseDecoder::default();
        let cut = cut.min(bytes.len());
        let _ = decoder.push(&bytes[..cut]);
        let _ = decoder.push(&bytes[cut..]);
        let _ = decoder.finish();
    }
}
