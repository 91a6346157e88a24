use pretty_assertions::assert_eq;

use super::*;

#[test]
fn short_text_is_unchanged() {
    assert_eq!(truncate_head_tail("hello\nworld\n", 100), "hello\nworld\n");
}

#[test]
fn long_text_keeps_head_and_tail_and_states_the_omitted_size() {
    let text: String = (0..1000).map(|i| format!("line {i:04}\n")).collect();
    let out = truncate_head_tail(&text, 200);
    assert!(out.starts_with("line 0000\nline 0001\n"), "{out}");
    assert!(out.ends_with("line 0998\nline 0999\n"), "{out}");
    // Cut on line boundaries: 10 bytes per line, 100 bytes per side.
    assert_eq!(out, {
        let head: String = (0..10).map(|i| format!("line {i:04}\n")).collect();
        let tail: String = (990..1000).map(|i| format!("line {i:04}\n")).collect();
        format!("{head}\n[... 9800 bytes omitted ...]\n{tail}")
    });
}

#[test]
fn truncation_respects_multibyte_characters() {
    let text = "é".repeat(100);
    let out = truncate_head_tail(&text, 51);
    assert!(out.starts_with(&"é".repeat(12)), "{out}");
    assert!(out.ends_with(&"é".repeat(12)), "{out}");
    assert!(out.contains("[... 152 bytes omitted ...]"), "{out}");
}

#[test]
fn buffer_under_the_limit_keeps_everything() {
    let mut buf = HeadTailBuffer::new(10);
    buf.push(b"hello");
    buf.push(b"world");
    assert_eq!(buf.total(), 10);
    assert_eq!(buf.finish(), "helloworld");
}

#[test]
fn buffer_over_the_limit_keeps_head_and_rolling_tail() {
    let mut buf = HeadTailBuffer::new(10);
    for chunk in [&b"abc"[..], b"defgh", b"ijklmnop", b"qr", b"stuvwxyz"] {
        buf.push(chunk);
    }
    assert_eq!(buf.total(), 26);
    assert_eq!(buf.finish(), "abcde\n[... 16 bytes omitted ...]\nvwxyz");
}

#[test]
fn buffer_cuts_split_characters_out_of_the_seams() {
    let mut buf = HeadTailBuffer::new(10);
    buf.push("aaaaé".as_bytes()); // 6 bytes: the é straddles the head limit
    buf.push(b"0123456789");
    buf.push("ébbbb".as_bytes());
    let out = buf.finish();
    assert_eq!(out, "aaaa\n[... 14 bytes omitted ...]\nbbbb");
}
