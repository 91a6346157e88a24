use std::collections::HashSet;

use pretty_assertions::assert_eq;
use ratatui::style::Color;

use super::*;

fn texts(lines: &[Line<'_>]) -> Vec<String> {
    let text = |line: &Line<'_>| line.spans.iter().map(|s| s.content.as_ref()).collect();
    lines.iter().map(text).collect()
}

fn has(span: &Span<'_>, modifier: Modifier) -> bool {
    span.style.add_modifier.contains(modifier)
}

/// The span of `line` whose content is `content`.
fn span<'a>(line: &'a Line<'_>, content: &str) -> &'a Span<'a> {
    let found = line.spans.iter().find(|s| s.content == content);
    found.unwrap_or_else(|| unreachable!("no span {content:?} in {line:?}"))
}

const SAMPLE: &str = "# Plan\n\nSome **bold**, *em*, `code` and [a link](https://example.com).\n\
    - one\n  - nested `x`\n3. three\n- [ ] todo\n> quoted *text*\n---\n\n```rust\n\
    fn main() {\n\tlet s = \"# not a heading\";\n}\n```\n~~~\nplain ~~~ text\n~~~\n\
    | a | b |\ntrailing 🦀 line without newline";

#[test]
fn renders_text() {
    let rule = "─".repeat(RULE_WIDTH);
    let cases: &[(&str, &[&str])] = &[
        ("", &[]),
        ("plain", &["plain"]),
        ("plain\n", &["plain"]),
        ("a\n\nb", &["a", "", "b"]),
        ("a\r\nb\r\n", &["a", "b"]),
        ("# Title", &["Title"]),
        ("###### Small #", &["Small"]),
        ("- item", &["• item"]),
        ("  * nested", &["  • nested"]),
        ("    + deeper", &["    • deeper"]),
        ("-", &["• "]),
        ("3. third", &["3. third"]),
        ("10) tenth", &["10) tenth"]),
        ("- [ ] todo", &["☐ todo"]),
        ("* [x] done", &["☒ done"]),
        ("1. [ ] first", &["1. ☐ first"]),
        ("> quoted", &["│ quoted"]),
        ("> - in quote", &["│ • in quote"]),
        ("**b** *i* _u_ ~~s~~", &["b i u s"]),
        ("use `cargo test` now", &["use cargo test now"]),
        ("[docs](https://x.dev)", &["docs (https://x.dev)"]),
        ("<https://x.dev>", &["https://x.dev"]),
        ("[https://x.dev](https://x.dev)", &["https://x.dev"]),
        ("![logo](a.png)", &["logo (a.png)"]),
        ("---", &[&rule]),
        ("* * *", &[&rule]),
        ("| a | b |\n|---|---|", &["a │ b", "──┼──"]),
        ("<div>hi</div>", &["<div>hi</div>"]),
        ("x <br> y", &["x <br> y"]),
        ("[ref]: https://x.dev", &["[ref]: https://x.dev"]),
        ("\\# not a heading &amp;", &["# not a heading &"]),
        ("a\tb", &["a   b"]),
        (
            "```rust\nfn main() {}\n```\nafter",
            &["╭─ rust", "│ fn main() {}", "╰─", "after"],
        ),
        (
            "```\n# not a heading\n- *no*\n```",
            &["╭─", "│ # not a heading", "│ - *no*", "╰─"],
        ),
        (
            "~~~ py title=x\n```\n~~~",
            &["╭─ py title=x", "│ ```", "╰─"],
        ),
        ("````md\n```\n````", &["╭─ md", "│ ```", "╰─"]),
        ("```\n```rust\n```", &["╭─", "│ ```rust", "╰─"]),
        ("  ```sh\n  ls\n ```", &["  ╭─ sh", "  │ ls", "  ╰─"]),
        ("```\n\tx\n\n", &["╭─", "│     x", "│ "]),
        ("```rust", &["╭─ rust"]),
        ("```a``` b", &["a b"]),
        ("``", &["``"]),
    ];
    for (input, expected) in cases {
        for theme in [Theme::COLOR, Theme::PLAIN] {
            let got = texts(&render(input, theme));
            assert_eq!(got, *expected, "input {input:?}, {theme:?}");
        }
    }
}

#[test]
fn key_styles() {
    let theme = Theme::COLOR;
    let lines = render("# H1\n## H2\na **b** *c* ~~d~~ `e` [f](g)\n> q\n- i", theme);
    let h1 = span(&lines[0], "H1").style;
    assert!(
        h1.add_modifier
            .contains(Modifier::BOLD | Modifier::UNDERLINED)
    );
    let h2 = span(&lines[1], "H2");
    assert!(has(h2, Modifier::BOLD) && !has(h2, Modifier::UNDERLINED));
    let inline = &lines[2];
    assert_eq!(span(inline, "a ").style, Style::new());
    assert_eq!(span(inline, "b").style, theme.bold());
    assert_eq!(span(inline, "c").style, Style::new().italic());
    assert!(has(span(inline, "d"), Modifier::CROSSED_OUT));
    assert_eq!(span(inline, "e").style, theme.code());
    assert_eq!(span(inline, "f").style.add_modifier, Modifier::UNDERLINED);
    assert_eq!(span(inline, " (g)").style, theme.dim());
    assert_eq!(span(&lines[3], "│ ").style, theme.dim());
    assert!(has(span(&lines[3], "q"), Modifier::ITALIC));
    assert_eq!(span(&lines[4], "• ").style, theme.accent());
}

#[test]
fn no_color_keeps_emphasis_but_drops_colours() {
    let lines = render(SAMPLE, Theme::PLAIN);
    let spans = lines.iter().flat_map(|line| &line.spans);
    for span in spans.clone() {
        assert_eq!((span.style.fg, span.style.bg), (None, None), "{span:?}");
    }
    assert!(spans.clone().any(|s| has(s, Modifier::BOLD)));
    assert!(spans.clone().any(|s| has(s, Modifier::DIM)));
    assert!(spans.clone().any(|s| s.content == "│ "), "the gutter stays");
}

#[test]
fn rust_fence_is_highlighted_with_colour() {
    let lines = render("```rust\nfn main() { let x = \"s\"; }\n```", Theme::COLOR);
    let code = lines[1].spans.iter().skip(1);
    let colours: HashSet<Color> = code.filter_map(|s| s.style.fg).collect();
    assert!(colours.len() > 1, "{lines:?}");
}

#[test]
fn streaming_matches_rendering_whole() {
    for theme in [Theme::COLOR, Theme::PLAIN] {
        let whole = render(SAMPLE, theme);
        let chars: Vec<char> = SAMPLE.chars().collect();
        // One char at a time, then pseudo-random fragments of 1 to 12 chars.
        let mut seed = 0x2545_f491_u64;
        for random in [false, true, true, true] {
            let mut stream = MarkdownStream::new(theme);
            let mut lines = Vec::new();
            let mut at = 0;
            while at < chars.len() {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let len = if random {
                    (seed >> 33) as usize % 12 + 1
                } else {
                    1
                };
                let end = (at + len).min(chars.len());
                let piece: String = chars[at..end].iter().collect();
                lines.extend(stream.push(&piece));
                at = end;
            }
            let pending = stream.pending();
            let rest = stream.finish();
            assert_eq!(pending, rest, "the live line previews the final one");
            lines.extend(rest);
            assert_eq!(lines, whole);
            assert_eq!(stream.pending(), Vec::<Line<'static>>::new());
        }
    }
}

#[test]
fn pending_previews_partial_line() {
    let theme = Theme::COLOR;
    let mut stream = MarkdownStream::new(theme);
    assert_eq!(stream.push("# Hea"), Vec::<Line<'static>>::new());
    let pending = stream.pending();
    assert_eq!(texts(&pending), ["Hea"]);
    assert!(has(span(&pending[0], "Hea"), Modifier::BOLD));
    assert_eq!(texts(&stream.push("ding\n```ru")), ["Heading"]);
    assert_eq!(texts(&stream.pending()), ["╭─ ru"]);
    assert_eq!(texts(&stream.push("st\nfn ma")), ["╭─ rust"]);
    let pending = stream.pending();
    assert_eq!(texts(&pending), ["│ fn ma"]);
    assert_eq!(pending, stream.push("\n"), "previewed as it will look");
    stream.push("`");
    assert_eq!(texts(&stream.pending()), ["│ `"]);
    assert_eq!(texts(&stream.push("``\n")), ["╰─"]);
    assert_eq!(stream.finish(), Vec::<Line<'static>>::new());
}

#[test]
fn unclosed_fence_ends_at_finish() {
    let mut stream = MarkdownStream::new(Theme::COLOR);
    let mut lines = stream.push("```python\nprint(1)\n");
    lines.extend(stream.finish());
    assert_eq!(texts(&lines), ["╭─ python", "│ print(1)"]);
    // The stream can go on after finish, outside code.
    assert_eq!(texts(&stream.push("# next\n")), ["next"]);
}

#[test]
fn odd_input_streams_as_it_renders_and_stays_terminal_safe() {
    #[rustfmt::skip]
    let odd = [
        "`", "```", "~~~~", "> ", ">>>", "[", "](", "#", "1.", "- [", "- [x]", "\u{0}\u{1b}[31m",
        "🦀\t🦀\t", "<", "<!--", "&#0;", "- - - x", "* **", "[a]()", "![](", "\\", "1. - > # x",
        "123456789012. x", "\t\t- x", "```\u{a0}rust", "> ```", "$x$", "[^1]", "\r", "\n\n\r\n",
    ];
    for input in odd {
        for theme in [Theme::COLOR, Theme::PLAIN] {
            let whole = texts(&render(input, theme));
            let mut stream = MarkdownStream::new(theme);
            let mut streamed = Vec::new();
            for c in input.chars() {
                streamed.extend(texts(&stream.push(&c.to_string())));
                let _ = stream.pending();
            }
            streamed.extend(texts(&stream.finish()));
            // Fed a character at a time, it renders what it renders at once…
            assert_eq!(streamed, whole, "{input:?}");
            // …and nothing in it can drive the terminal.
            for line in &whole {
                assert!(
                    !line.chars().any(|c| c.is_control() && c != '\t'),
                    "{input:?} rendered a control character: {line:?}"
                );
            }
        }
    }
    // Text survives: the words of an odd line are still on screen.
    assert!(
        texts(&render("1. - > # x", Theme::PLAIN))
            .concat()
            .contains('x')
    );
}

#[test]
fn a_very_long_unfinished_line_previews_its_end() {
    let mut stream = MarkdownStream::new(Theme::PLAIN);
    let long = format!("{}THE END", "é".repeat(50_000));
    assert!(stream.push(&long).is_empty());
    let pending = stream.pending();
    let text = pending[0].to_string();
    assert!(text.ends_with("THE END"), "{}", &text[text.len() - 20..]);
    assert!(text.len() <= 4096, "{}", text.len());
}

#[test]
fn escape_sequences_in_model_text_are_dropped() {
    let lines = render(
        "\u{1b}[31mred\u{1b}[0m and \u{1b}]52;c;aGk=\u{7}**bold**\n",
        Theme::PLAIN,
    );
    assert_eq!(lines[0].to_string(), "red and bold");
}

#[test]
fn tables_come_out_as_aligned_columns_once_they_end() {
    let mut stream = MarkdownStream::new(Theme::PLAIN);
    let early = stream.push("Here:\n\n| col a | b |\n|---|:-:|\n| 1 | **two** |\n");
    assert_eq!(
        texts(&early),
        ["Here:", ""],
        "the rows wait for the table's end"
    );
    // The live area shows the table so far.
    assert_eq!(texts(&stream.pending())[0], "col a │ b");
    let rest = stream.push("| three | a \\| b |\nAfter.\n");
    assert_eq!(
        texts(&rest),
        [
            "col a │ b",
            "──────┼──────",
            "1     │ two",
            "three │ a | b",
            "After.",
        ]
    );
}

#[test]
fn pipes_without_a_delimiter_row_stay_as_they_are() {
    assert_eq!(
        texts(&render("| not a table\n| really\n", Theme::PLAIN)),
        ["| not a table", "| really"]
    );
    // A table at the very end of the text is not lost.
    assert_eq!(
        texts(&render("| a | b |\n|---|---|\n| 1 | 2 |", Theme::PLAIN)),
        ["a │ b", "──┼──", "1 │ 2"]
    );
}
