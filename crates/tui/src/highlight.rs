//! Fenced code blocks: fence lines, the gutter, and syntax highlighting one line at a time.
//!
//! syntect's syntaxes and themes are loaded once, lazily, and only when a code block names a
//! language that could be highlighted and the theme has colours: loading costs tens of
//! milliseconds.

use std::fmt;
use std::sync::OnceLock;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use syntect::highlighting::{
    Color as SynColor, FontStyle, HighlightIterator, HighlightState, Highlighter,
    Style as SynStyle, Theme as SynTheme, ThemeSet,
};
use syntect::parsing::{ParseState, ScopeStack, SyntaxSet};

use crate::theme::Theme;

/// The syntect theme code is drawn with.
const SYNTAX_THEME: &str = "base16-ocean.dark";

/// Info-string tokens that name no language worth loading syntect for.
const PLAIN_TOKENS: &[&str] = &["text", "txt", "plain", "plaintext", "none", "output", "log"];

fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

fn syntax_theme() -> Option<&'static SynTheme> {
    static THEME: OnceLock<Option<SynTheme>> = OnceLock::new();
    THEME
        .get_or_init(|| ThemeSet::load_defaults().themes.remove(SYNTAX_THEME))
        .as_ref()
}

/// Maps common info-string spellings to a token syntect's default syntaxes know.
fn alias(token: &str) -> &str {
    match token {
        "shell" | "console" | "zsh" | "sh" | "shellscript" => "bash",
        "ts" | "typescript" | "tsx" | "jsx" | "javascript" | "mjs" | "cjs" => "js",
        "jsonc" | "json5" => "json",
        "c++" | "hpp" | "cxx" => "cpp",
        "golang" => "go",
        "py3" | "python3" => "py",
        "yml" => "yaml",
        "md" => "markdown",
        other => other,
    }
}

/// What a highlighted block is drawn with.
struct Syntax {
    highlighter: Highlighter<'static>,
    syntaxes: &'static SyntaxSet,
    /// The theme's plain-text colour, left to the terminal so light backgrounds work too.
    plain_fg: Option<SynColor>,
}

/// Where a highlighted block is: carried from one line to the next.
#[derive(Clone)]
struct State {
    parse: ParseState,
    highlight: HighlightState,
}

/// A highlighted block.
struct Active {
    syntax: Syntax,
    state: State,
}

/// Highlights the lines of one code block in order, keeping syntect's state between lines.
pub(crate) struct CodeHighlighter {
    theme: Theme,
    active: Option<Active>,
}

impl fmt::Debug for CodeHighlighter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CodeHighlighter")
            .field("theme", &self.theme)
            .field("highlighting", &self.active.is_some())
            .finish()
    }
}

impl CodeHighlighter {
    /// A highlighter for a block whose info string starts with `language` (e.g. `rust`,
    /// `py`); plain text when it is absent or unknown, or when `theme` has no colours.
    pub(crate) fn new(language: Option<&str>, theme: Theme) -> Self {
        let active = language
            .map(str::to_ascii_lowercase)
            .filter(|token| theme.has_color() && !token.is_empty())
            .filter(|token| !PLAIN_TOKENS.contains(&token.as_str()))
            .and_then(|token| {
                let syntaxes = syntaxes();
                let syntax = syntaxes.find_syntax_by_token(alias(&token))?;
                let colours = syntax_theme()?;
                let highlighter = Highlighter::new(colours);
                let state = State {
                    parse: ParseState::new(syntax),
                    highlight: HighlightState::new(&highlighter, ScopeStack::new()),
                };
                let plain_fg = colours.settings.foreground;
                let syntax = Syntax {
                    highlighter,
                    syntaxes,
                    plain_fg,
                };
                Some(Active { syntax, state })
            });
        Self { theme, active }
    }

    /// Whether lines get colours (a known language and a theme with colours).
    #[cfg(test)]
    pub(crate) fn is_highlighting(&self) -> bool {
        self.active.is_some()
    }

    /// The spans of the block's next `line` (without its line ending). A syntect error ends
    /// highlighting for the rest of the block.
    pub(crate) fn highlight(&mut self, line: &str) -> Vec<Span<'static>> {
        let Some(active) = self.active.as_mut() else {
            return plain(line);
        };
        match active.syntax.spans(&mut active.state, line, self.theme) {
            Some(spans) => spans,
            None => {
                self.active = None;
                plain(line)
            }
        }
    }

    /// The spans `line` would get as the next line, without advancing the state (for a line
    /// still being streamed).
    pub(crate) fn peek(&self, line: &str) -> Vec<Span<'static>> {
        let Some(active) = self.active.as_ref() else {
            return plain(line);
        };
        let mut state = active.state.clone();
        let spans = active.syntax.spans(&mut state, line, self.theme);
        spans.unwrap_or_else(|| plain(line))
    }
}

fn plain(line: &str) -> Vec<Span<'static>> {
    if line.is_empty() {
        Vec::new()
    } else {
        vec![Span::raw(line.to_string())]
    }
}

impl Syntax {
    /// Highlights `line`, advancing `state`; `None` on a syntect error.
    fn spans(&self, state: &mut State, line: &str, theme: Theme) -> Option<Vec<Span<'static>>> {
        // The "newlines" syntaxes expect every line to end with its newline.
        let text = format!("{line}\n");
        let ops = state.parse.parse_line(&text, self.syntaxes).ok()?;
        let regions = HighlightIterator::new(&mut state.highlight, &ops, &text, &self.highlighter);
        let mut out: Vec<Span<'static>> = Vec::new();
        for (syn_style, piece) in regions {
            let piece = piece.trim_end_matches(['\n', '\r']);
            if piece.is_empty() {
                continue;
            }
            let style = self.style(syn_style, theme);
            match out.last_mut() {
                Some(last) if last.style == style => last.content.to_mut().push_str(piece),
                _ => out.push(Span::styled(piece.to_string(), style)),
            }
        }
        Some(out)
    }

    /// syntect's foreground and font style as a ratatui style; the background is ignored.
    fn style(&self, style: SynStyle, theme: Theme) -> Style {
        let fg = style.foreground;
        let mut out = if Some(fg) == self.plain_fg {
            Style::new()
        } else {
            theme.fg(Color::Rgb(fg.r, fg.g, fg.b))
        };
        for (font, modifier) in [
            (FontStyle::BOLD, Modifier::BOLD),
            (FontStyle::ITALIC, Modifier::ITALIC),
            (FontStyle::UNDERLINE, Modifier::UNDERLINED),
        ] {
            if style.font_style.contains(font) {
                out = out.add_modifier(modifier);
            }
        }
        out
    }
}

/// A code fence line: three or more backticks or tildes, then an optional info string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fence {
    indent: usize,
    marker: char,
    len: usize,
    info: String,
}

impl Fence {
    /// The fence `line` is, if it is one. Any indentation is accepted (CommonMark allows
    /// three spaces, but models indent fences inside list items by four as well).
    pub(crate) fn parse(line: &str) -> Option<Self> {
        let body = line.trim_start_matches(' ');
        let marker = body.chars().next().filter(|c| matches!(c, '`' | '~'))?;
        let rest = body.trim_start_matches(marker);
        let len = body.len() - rest.len();
        let info = rest.trim();
        if len < 3 || (marker == '`' && info.contains('`')) {
            return None;
        }
        let indent = line.len() - body.len();
        Some(Self {
            indent,
            marker,
            len,
            info: info.to_string(),
        })
    }

    /// The language token of the info string: `rust` of `rust,ignore` or `{.rust}`.
    fn language(&self) -> Option<&str> {
        self.info
            .split(|c: char| c.is_whitespace() || matches!(c, ',' | '{' | '}'))
            .map(|token| token.trim_start_matches('.'))
            .find(|token| !token.is_empty())
    }

    /// The line shown for an opening fence: a dim `╭─ info`.
    pub(crate) fn header(&self, theme: Theme) -> Line<'static> {
        let mut head = format!("{}╭─", " ".repeat(self.indent));
        if !self.info.is_empty() {
            head.push(' ');
            head.push_str(&self.info);
        }
        Line::from(Span::styled(head, theme.dim()))
    }
}

/// An open fenced code block: renders its lines behind a dim `│ ` gutter.
#[derive(Debug)]
pub(crate) struct CodeBlock {
    fence: Fence,
    theme: Theme,
    highlighter: CodeHighlighter,
}

impl CodeBlock {
    /// The block `fence` opens.
    pub(crate) fn new(fence: Fence, theme: Theme) -> Self {
        let highlighter = CodeHighlighter::new(fence.language(), theme);
        Self {
            fence,
            theme,
            highlighter,
        }
    }

    /// Whether `line` is this block's closing fence.
    pub(crate) fn is_closed_by(&self, line: &str) -> bool {
        Fence::parse(line).is_some_and(|f| {
            f.marker == self.fence.marker && f.len >= self.fence.len && f.info.is_empty()
        })
    }

    /// The line shown for the closing fence: a dim `╰─`.
    pub(crate) fn footer(&self) -> Line<'static> {
        Line::from(Span::styled(
            format!("{}╰─", " ".repeat(self.fence.indent)),
            self.theme.dim(),
        ))
    }

    /// Renders the block's next line.
    pub(crate) fn line(&mut self, line: &str) -> Line<'static> {
        let code = self.highlighter.highlight(self.strip_indent(line));
        self.gutter(code)
    }

    /// Renders `line` as the block's next line without advancing (for a partial line).
    pub(crate) fn peek(&self, line: &str) -> Line<'static> {
        self.gutter(self.highlighter.peek(self.strip_indent(line)))
    }

    /// `line` without up to the fence's indentation.
    fn strip_indent<'a>(&self, line: &'a str) -> &'a str {
        let spaces = line.len() - line.trim_start_matches(' ').len();
        line.get(spaces.min(self.fence.indent)..).unwrap_or(line)
    }

    fn gutter(&self, code: Vec<Span<'static>>) -> Line<'static> {
        let gutter = format!("{}│ ", " ".repeat(self.fence.indent));
        let gutter = Span::styled(gutter, self.theme.dim());
        Line::from(std::iter::once(gutter).chain(code).collect::<Vec<_>>())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::HashSet;

    use pretty_assertions::assert_eq;

    use super::*;

    fn text(spans: &[Span<'_>]) -> String {
        spans.iter().map(|s| s.content.as_ref()).collect()
    }

    fn colours(spans: &[Span<'_>]) -> HashSet<Color> {
        spans.iter().filter_map(|s| s.style.fg).collect()
    }

    #[test]
    fn rust_gets_several_colours_and_keeps_the_text() {
        let mut hl = CodeHighlighter::new(Some("rust"), Theme::COLOR);
        assert!(hl.is_highlighting());
        let line = "fn main() { let x = \"hi\"; }";
        let spans = hl.highlight(line);
        assert_eq!(text(&spans), line);
        assert!(colours(&spans).len() > 1, "{spans:?}");
        assert!(spans.iter().all(|s| s.style.bg.is_none()));
    }

    #[test]
    fn state_carries_across_lines() {
        let mut hl = CodeHighlighter::new(Some("rs"), Theme::COLOR);
        let open = hl.highlight("/* a comment");
        let inside = hl.highlight("still comment */ fn");
        let fresh = CodeHighlighter::new(Some("rs"), Theme::COLOR).highlight("still comment */ fn");
        assert_eq!(text(&open), "/* a comment");
        assert_eq!(text(&inside), "still comment */ fn");
        assert!(inside != fresh, "the comment state should carry over");
    }

    #[test]
    fn peek_does_not_advance() {
        let mut hl = CodeHighlighter::new(Some("python"), Theme::COLOR);
        let peeked = hl.peek("def f(x):");
        assert_eq!(peeked, hl.highlight("def f(x):"));
        assert_eq!(hl.peek("    return x"), hl.highlight("    return x"));
    }

    #[test]
    fn plain_without_language_colour_or_known_syntax() {
        let cases = [
            (None, Theme::COLOR),
            (Some(""), Theme::COLOR),
            (Some("text"), Theme::COLOR),
            (Some("no-such-language"), Theme::COLOR),
            (Some("rust"), Theme::PLAIN),
        ];
        for (language, theme) in cases {
            let mut hl = CodeHighlighter::new(language, theme);
            assert!(!hl.is_highlighting(), "{language:?} {theme:?}");
            assert_eq!(hl.highlight("let x = 1;"), vec![Span::raw("let x = 1;")]);
            assert_eq!(hl.highlight(""), Vec::<Span<'static>>::new());
        }
    }

    #[test]
    fn aliases_find_a_syntax() {
        for token in [
            "shell", "sh", "bash", "ts", "py", "json", "C++", "Go", "yml",
        ] {
            assert!(
                CodeHighlighter::new(Some(token), Theme::COLOR).is_highlighting(),
                "{token}"
            );
        }
    }
}
