//! Streaming Markdown to styled terminal lines.
//!
//! Rendering is line by line, so a line can be shown as soon as its newline arrives: the only
//! state carried from one line to the next is whether a fenced code block is open. Each line
//! outside code goes through pulldown-cmark on its own, which covers headings, list items,
//! quotes, rules and inline emphasis, code and links; constructs that span lines (setext
//! headings, tables, lazy continuations) come out as plain text. Lines are not wrapped here.

use std::borrow::Cow;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

use crate::highlight::{CodeBlock, Fence};
use crate::theme::Theme;

/// How many `─` a horizontal rule draws.
const RULE_WIDTH: usize = 40;
/// Tab stops, in columns.
const TAB_WIDTH: usize = 4;

/// Renders assistant Markdown incrementally: text arrives in arbitrary fragments and comes out
/// as finished lines.
#[derive(Debug)]
pub struct MarkdownStream {
    theme: Theme,
    partial: String,
    code: Option<CodeBlock>,
}

impl MarkdownStream {
    /// A renderer with `theme`.
    pub fn new(theme: Theme) -> Self {
        Self {
            theme,
            partial: String::new(),
            code: None,
        }
    }

    /// Adds streamed text (fragments may split lines and words anywhere); returns the lines
    /// this text completed.
    pub fn push(&mut self, text: &str) -> Vec<Line<'static>> {
        self.partial.push_str(text);
        let Some(end) = text
            .rfind('\n')
            .map(|at| self.partial.len() - text.len() + at)
        else {
            return Vec::new();
        };
        let rest = self.partial.split_off(end + 1);
        let complete = std::mem::replace(&mut self.partial, rest);
        complete
            .split_terminator('\n')
            .map(|line| self.complete_line(line))
            .collect()
    }

    /// The incomplete last line rendered as it would look now (for a live area); empty when
    /// nothing is pending.
    pub fn pending(&self) -> Vec<Line<'static>> {
        if self.partial.is_empty() {
            return Vec::new();
        }
        let line = clean(&self.partial);
        let rendered = match &self.code {
            Some(block) if block.is_closed_by(&line) => block.footer(),
            Some(block) => block.peek(&line),
            None => match Fence::parse(&line) {
                Some(fence) => fence.header(self.theme),
                None => markdown_line(&line, self.theme),
            },
        };
        vec![rendered]
    }

    /// Ends the text: renders and returns whatever is still held back (an unterminated last
    /// line). An unclosed code block simply ends.
    pub fn finish(&mut self) -> Vec<Line<'static>> {
        let rest = std::mem::take(&mut self.partial);
        let lines = if rest.is_empty() {
            Vec::new()
        } else {
            vec![self.complete_line(&rest)]
        };
        self.code = None;
        lines
    }

    /// Renders one complete line (without its newline), updating the code-block state.
    fn complete_line(&mut self, raw: &str) -> Line<'static> {
        let line = clean(raw);
        if let Some(block) = self.code.as_mut() {
            if block.is_closed_by(&line) {
                let footer = block.footer();
                self.code = None;
                return footer;
            }
            return block.line(&line);
        }
        match Fence::parse(&line) {
            Some(fence) => {
                let header = fence.header(self.theme);
                self.code = Some(CodeBlock::new(fence, self.theme));
                header
            }
            None => markdown_line(&line, self.theme),
        }
    }
}

/// Renders a whole Markdown text (push + finish).
pub fn render(text: &str, theme: Theme) -> Vec<Line<'static>> {
    let mut stream = MarkdownStream::new(theme);
    let mut lines = stream.push(text);
    lines.extend(stream.finish());
    lines
}

/// `line` without a trailing carriage return and with tabs expanded.
fn clean(line: &str) -> Cow<'_, str> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if !line.contains('\t') {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len() + TAB_WIDTH);
    let mut column = 0;
    for c in line.chars() {
        if c == '\t' {
            let spaces = TAB_WIDTH - column % TAB_WIDTH;
            out.extend(std::iter::repeat_n(' ', spaces));
            column += spaces;
        } else {
            out.push(c);
            column += c.width().unwrap_or(0);
        }
    }
    Cow::Owned(out)
}

/// Renders one line of Markdown outside code.
fn markdown_line(line: &str, theme: Theme) -> Line<'static> {
    let body = line.trim_start_matches(' ');
    if body.trim().is_empty() {
        return Line::default();
    }
    // Parsing without the indentation keeps nested list items from reading as indented code.
    let indent = line.len() - body.len();
    let mut inline = Inline::new(body, theme);
    let options = Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    for (event, range) in Parser::new_ext(body, options).into_offset_iter() {
        inline.event(event, range.start);
    }
    inline.flush_marker();
    let mut spans = inline.spans;
    if spans.iter().all(|span| span.content.is_empty()) {
        // Something the parser swallowed, such as a link reference definition.
        spans = vec![Span::raw(body.trim_end().to_string())];
    }
    if indent > 0 {
        spans.insert(0, Span::raw(" ".repeat(indent)));
    }
    Line::from(merge(spans))
}

/// Joins neighbouring spans of the same style.
fn merge(spans: Vec<Span<'static>>) -> Vec<Span<'static>> {
    let mut out: Vec<Span<'static>> = Vec::with_capacity(spans.len());
    for span in spans.into_iter().filter(|span| !span.content.is_empty()) {
        match out.last_mut() {
            Some(last) if last.style == span.style => last.content.to_mut().push_str(&span.content),
            _ => out.push(span),
        }
    }
    out
}

/// Turns the events of one line into spans.
struct Inline<'s> {
    source: &'s str,
    theme: Theme,
    spans: Vec<Span<'static>>,
    styles: Vec<Style>,
    /// Whether each open list is ordered.
    lists: Vec<bool>,
    /// Open links and images: their destination and the index of their first span.
    links: Vec<(String, usize)>,
    /// The list marker of an item not drawn yet (a task marker may still replace it).
    marker: Option<String>,
}

impl<'s> Inline<'s> {
    fn new(source: &'s str, theme: Theme) -> Self {
        Self {
            source,
            theme,
            spans: Vec::new(),
            styles: Vec::new(),
            lists: Vec::new(),
            links: Vec::new(),
            marker: None,
        }
    }

    fn style(&self) -> Style {
        self.styles
            .iter()
            .fold(Style::new(), |acc, style| acc.patch(*style))
    }

    fn push(&mut self, text: impl Into<String>, style: Style) {
        self.flush_marker();
        let text: String = text.into();
        let text = text
            .trim_end_matches(['\n', '\r'])
            .replace(['\n', '\r'], " ");
        self.spans.push(Span::styled(text, style));
    }

    fn text(&mut self, text: &str) {
        let style = self.style();
        self.push(text, style);
    }

    fn flush_marker(&mut self) {
        if let Some(marker) = self.marker.take() {
            self.spans.push(Span::styled(marker, self.theme.accent()));
        }
    }

    fn event(&mut self, event: Event<'_>, offset: usize) {
        let theme = self.theme;
        match event {
            Event::Start(tag) => {
                let style = self.start(tag, offset);
                self.styles.push(style);
            }
            Event::End(tag) => {
                self.styles.pop();
                self.end(tag);
            }
            Event::Text(text) | Event::Html(text) | Event::InlineHtml(text) => self.text(&text),
            Event::Code(code) => {
                let style = self.style().patch(theme.code());
                self.push(code.as_ref(), style);
            }
            Event::InlineMath(math) => self.text(&format!("${math}$")),
            Event::DisplayMath(math) => self.text(&format!("$${math}$$")),
            Event::FootnoteReference(name) => self.text(&format!("[^{name}]")),
            Event::SoftBreak | Event::HardBreak => self.text(" "),
            Event::Rule => self.push("─".repeat(RULE_WIDTH), theme.dim()),
            Event::TaskListMarker(checked) => {
                // A box replaces a bullet but follows a number.
                let number = self.marker.take().filter(|_| self.ordered());
                let check = if checked { "☒ " } else { "☐ " };
                self.marker = Some(number.unwrap_or_default() + check);
            }
        }
    }

    /// Whether the innermost open list is ordered.
    fn ordered(&self) -> bool {
        self.lists.last().copied().unwrap_or(false)
    }

    /// Handles the start of `tag` at byte `offset`; returns the style its content gets.
    fn start(&mut self, tag: Tag<'_>, offset: usize) -> Style {
        let theme = self.theme;
        match tag {
            Tag::Heading { level, .. } => match level {
                HeadingLevel::H1 => theme.bold().add_modifier(Modifier::UNDERLINED),
                _ => theme.bold(),
            },
            Tag::BlockQuote(_) => {
                self.push("│ ", theme.dim());
                Style::new().add_modifier(Modifier::ITALIC)
            }
            Tag::List(start) => {
                self.lists.push(start.is_some());
                Style::new()
            }
            Tag::Item => {
                self.flush_marker();
                // The number as written: `3.` or `3)`.
                let number = (self.source.get(offset..))
                    .and_then(|rest| rest.split_whitespace().next())
                    .filter(|_| self.ordered());
                self.marker = Some(number.map_or_else(|| "• ".to_string(), |n| format!("{n} ")));
                Style::new()
            }
            Tag::Emphasis => Style::new().add_modifier(Modifier::ITALIC),
            Tag::Strong => theme.bold(),
            Tag::Strikethrough => Style::new().add_modifier(Modifier::CROSSED_OUT),
            Tag::Link { dest_url, .. } => {
                self.flush_marker();
                self.links.push((dest_url.to_string(), self.spans.len()));
                Style::new().add_modifier(Modifier::UNDERLINED)
            }
            Tag::Image { dest_url, .. } => {
                self.flush_marker();
                self.links.push((dest_url.to_string(), self.spans.len()));
                Style::new().add_modifier(Modifier::ITALIC)
            }
            Tag::CodeBlock(_) => theme.code(),
            _ => Style::new(),
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Link | TagEnd::Image => {
                let Some((url, first)) = self.links.pop() else {
                    return;
                };
                let text: String = self
                    .spans
                    .get(first..)
                    .unwrap_or_default()
                    .iter()
                    .map(|span| span.content.as_ref())
                    .collect();
                let bare = url.strip_prefix("mailto:").unwrap_or(&url);
                if !url.is_empty() && text != url && text != bare {
                    self.push(format!(" ({url})"), self.theme.dim());
                }
            }
            TagEnd::Item => self.flush_marker(),
            TagEnd::List(_) => {
                self.lists.pop();
            }
            _ => {}
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
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
            ("| a | b |\n|---|---|", &["| a | b |", "|---|---|"]),
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
    fn odd_input_does_not_panic() {
        #[rustfmt::skip]
        let odd = [
            "`", "```", "~~~~", "> ", ">>>", "[", "](", "#", "1.", "- [", "- [x]", "\u{0}\u{1b}[31m",
            "🦀\t🦀\t", "<", "<!--", "&#0;", "- - - x", "* **", "[a]()", "![](", "\\", "1. - > # x",
            "123456789012. x", "\t\t- x", "```\u{a0}rust", "> ```", "$x$", "[^1]", "\r", "\n\n\r\n",
        ];
        for input in odd {
            for theme in [Theme::COLOR, Theme::PLAIN] {
                let _ = render(input, theme);
                let mut stream = MarkdownStream::new(theme);
                for c in input.chars() {
                    let _ = stream.push(&c.to_string());
                    let _ = stream.pending();
                }
                let _ = stream.finish();
            }
        }
    }
}
