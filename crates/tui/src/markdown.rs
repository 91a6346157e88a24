//! Streaming Markdown to styled terminal lines.
//!
//! Rendering is line by line, so a line can be shown as soon as its newline arrives: the only
//! state carried from one line to the next is whether a fenced code block is open. Each line
//! outside code goes through pulldown-cmark on its own, which covers headings, list items,
//! quotes, rules and inline emphasis, code and links; constructs that span lines (setext
//! headings, lazy continuations) come out as plain text, except tables, whose rows are held
//! until the table ends and then aligned ([`crate::markdown_table`]). Lines are not wrapped
//! here.

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

/// How much of an unfinished line the live area renders: its end (the rows shown), so that a
/// very long line does not cost a full parse at every redraw.
const PENDING_SHOWN: usize = 4096;

/// Renders assistant Markdown incrementally: text arrives in arbitrary fragments and comes out
/// as finished lines.
#[derive(Debug)]
pub struct MarkdownStream {
    theme: Theme,
    partial: String,
    code: Option<CodeBlock>,
    /// The rows of a table being streamed, held back until it ends.
    table: Vec<String>,
}

impl MarkdownStream {
    /// A renderer with `theme`.
    pub fn new(theme: Theme) -> Self {
        Self {
            theme,
            partial: String::new(),
            code: None,
            table: Vec::new(),
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
        let mut lines = Vec::new();
        for line in complete.split_terminator('\n') {
            self.complete_line(line, &mut lines);
        }
        lines
    }

    /// The incomplete last line rendered as it would look now (for a live area); empty when
    /// nothing is pending.
    pub fn pending(&self) -> Vec<Line<'static>> {
        let mut lines = self.table_lines();
        if self.partial.is_empty() {
            return lines;
        }
        let mut start = self.partial.len().saturating_sub(PENDING_SHOWN);
        while !self.partial.is_char_boundary(start) {
            start += 1;
        }
        let line = clean(&self.partial[start..]);
        let rendered = match &self.code {
            Some(block) if block.is_closed_by(&line) => block.footer(),
            Some(block) => block.peek(&line),
            None => match Fence::parse(&line) {
                Some(fence) => fence.header(self.theme),
                None => markdown_line(&line, self.theme),
            },
        };
        lines.push(rendered);
        lines
    }

    /// The held-back table rendered as it stands.
    fn table_lines(&self) -> Vec<Line<'static>> {
        if self.table.is_empty() {
            return Vec::new();
        }
        let theme = self.theme;
        crate::markdown_table::render(&self.table, theme, |text| markdown_line(text, theme))
    }

    /// Ends the text: renders and returns whatever is still held back (an unterminated last
    /// line). An unclosed code block simply ends.
    pub fn finish(&mut self) -> Vec<Line<'static>> {
        let rest = std::mem::take(&mut self.partial);
        let mut lines = Vec::new();
        if !rest.is_empty() {
            self.complete_line(&rest, &mut lines);
        }
        lines.extend(self.table_lines());
        self.table.clear();
        self.code = None;
        lines
    }

    /// Renders one complete line (without its newline), updating the code-block state.
    fn complete_line(&mut self, raw: &str, out: &mut Vec<Line<'static>>) {
        let line = clean(raw);
        if let Some(block) = self.code.as_mut() {
            if block.is_closed_by(&line) {
                out.push(block.footer());
                self.code = None;
            } else {
                out.push(block.line(&line));
            }
            return;
        }
        if crate::markdown_table::is_row(&line) {
            self.table.push(line.into_owned());
            return;
        }
        out.extend(self.table_lines());
        self.table.clear();
        out.push(match Fence::parse(&line) {
            Some(fence) => {
                let header = fence.header(self.theme);
                self.code = Some(CodeBlock::new(fence, self.theme));
                header
            }
            None => markdown_line(&line, self.theme),
        });
    }
}

/// Renders a whole Markdown text (push + finish).
pub fn render(text: &str, theme: Theme) -> Vec<Line<'static>> {
    let mut stream = MarkdownStream::new(theme);
    let mut lines = stream.push(text);
    lines.extend(stream.finish());
    lines
}

/// `line` without a trailing carriage return, with tabs expanded and without terminal escape
/// sequences or other control characters.
fn clean(line: &str) -> Cow<'_, str> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if !line.contains('\t') {
        return crate::sanitize::clean(line);
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
    Cow::Owned(crate::sanitize::clean(&out).into_owned())
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
#[path = "markdown_tests.rs"]
mod tests;
