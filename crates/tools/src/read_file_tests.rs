use pretty_assertions::assert_eq;

use super::*;

#[test]
fn display_line_strips_line_endings() {
    assert_eq!(display_line(b"abc\r\n", None), "abc");
    assert_eq!(display_line(b"abc\n", None), "abc");
    assert_eq!(display_line(b"abc", None), "abc");
}

#[test]
fn display_line_cuts_long_lines_with_a_marker() {
    let long = "x".repeat(MAX_LINE_CHARS + 500);
    let shown = display_line(long.as_bytes(), None);
    assert_eq!(
        shown,
        format!(
            "{} [... line cut: 2500 characters in all]",
            "x".repeat(MAX_LINE_CHARS)
        )
    );
}

#[test]
fn count_lines_counts_an_unterminated_last_line() {
    let cases: &[(&[u8], u64)] = &[
        (b"", 0),
        (b"a", 1),
        (b"a\n", 1),
        (b"a\nb", 2),
        (b"a\nb\n", 2),
        (b"\n\n", 2),
    ];
    for (input, expected) in cases {
        let mut reader = BufReader::new(*input);
        assert_eq!(count_lines(&mut reader).unwrap(), *expected, "{input:?}");
    }
}

#[test]
fn binary_detection() {
    let cases: &[(&[u8], bool)] = &[
        (b"plain text\n", false),
        ("caf\u{e9} na\u{ef}ve\n".as_bytes(), false),
        (
            b"one latin-1 byte \xe9 in a long enough line of text\n",
            false,
        ),
        (b"nul \x00 byte", true),
        (b"\xff\xfe\xfd\xfc\xfb\xfa text", true),
        // A multi-byte character cut by the end of the sample is not a sign of binary.
        (b"abc\xe2\x82", false),
    ];
    for (input, expected) in cases {
        assert_eq!(looks_binary(input), *expected, "{input:?}");
    }
}

#[test]
fn image_detection_by_magic_and_extension() {
    let cases: &[(&str, &[u8], Option<&str>)] = &[
        ("a.bin", b"\x89PNG\r\n\x1a\n....", Some("PNG")),
        ("a", b"\xff\xd8\xff\xe0", Some("JPEG")),
        ("a", b"RIFF\x00\x00\x00\x00WEBPVP8 ", Some("WebP")),
        ("photo.JPG", b"not really", Some("JPEG")),
        ("icon.svg", b"<svg/>", None),
        ("main.rs", b"fn main() {}", None),
    ];
    for (name, head, expected) in cases {
        assert_eq!(image_kind(Path::new(name), head), *expected, "{name}");
    }
}

#[test]
fn a_huge_line_is_read_past_without_being_buffered() {
    // A 64 MiB line, then a short one: only the cap of the first is ever held.
    let huge = 64 * 1024 * 1024;
    let source = std::io::repeat(b'a').take(huge).chain(&b"\nnext\n"[..]);
    let mut reader = std::io::BufReader::new(source);
    let mut line = Vec::new();
    let read = read_line_capped(&mut reader, &mut line, LINE_BYTES_CAP).unwrap();
    assert_eq!(read.bytes, huge + 1);
    assert_eq!(line.len(), LINE_BYTES_CAP);
    assert!(line.capacity() < 4 * LINE_BYTES_CAP, "{}", line.capacity());
    let shown = display_line(&line, Some(read.bytes));
    assert!(
        shown.ends_with(&format!("[... line cut: {} bytes in all]", huge + 1)),
        "{}",
        &shown[shown.len() - 60..]
    );
    let kept = shown.split(" [...").next().unwrap();
    assert_eq!(kept, "a".repeat(MAX_LINE_CHARS));
    line.clear();
    let read = read_line_capped(&mut reader, &mut line, LINE_BYTES_CAP).unwrap();
    assert_eq!((read.bytes, line.as_slice()), (5, &b"next\n"[..]));
    line.clear();
    assert_eq!(
        read_line_capped(&mut reader, &mut line, LINE_BYTES_CAP)
            .unwrap()
            .bytes,
        0
    );
}
