//! What programs and models print for a terminal (colours, cursor moves, window titles,
//! clipboard writes) must not reach ours: text from tool output, the model and the network is
//! cleaned of escape sequences and control characters before it is drawn.

use std::borrow::Cow;
use std::iter::Peekable;
use std::str::Chars;

use ratatui::text::Line;

/// `text` without terminal escape sequences (CSI, OSC, DCS and the other string sequences,
/// two- and three-character ESC sequences, and their 8-bit forms) or other control
/// characters. Borrows when there is nothing to remove.
pub fn clean(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => skip_escape(&mut chars),
            '\u{9b}' => skip_csi(&mut chars),
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Multi-line text for a terminal: each line as [`output_line`] leaves it, newlines kept.
pub fn text_block(text: &str) -> String {
    if !text.chars().any(|c| c.is_control() && c != '\n') {
        return text.to_string();
    }
    text.split('\n')
        .map(output_line)
        .collect::<Vec<_>>()
        .join("\n")
}

/// One line of a program's output as a terminal would leave it: a carriage return starts the
/// line over (progress bars), tabs become spaces, and the rest is [`clean`]ed.
pub fn output_line(line: &str) -> String {
    let shown = line
        .rsplit('\r')
        .find(|part| !part.is_empty())
        .unwrap_or("");
    clean(&shown.replace('\t', "    ")).into_owned()
}

/// `lines` with every span [`clean`]ed: the last word before anything reaches the terminal.
pub fn lines(mut lines: Vec<Line<'static>>) -> Vec<Line<'static>> {
    for line in &mut lines {
        for span in &mut line.spans {
            if let Cow::Owned(cleaned) = clean(&span.content) {
                span.content = Cow::Owned(cleaned);
            }
        }
    }
    lines
}

/// After ESC: the rest of the sequence it starts.
fn skip_escape(chars: &mut Peekable<Chars<'_>>) {
    match chars.next() {
        Some('[') => skip_csi(chars),
        Some(']' | 'P' | 'X' | '^' | '_') => skip_string(chars),
        // Intermediate bytes, then one final byte: `ESC ( B`, `ESC # 8`.
        Some(' '..='/') => {
            for c in chars.by_ref() {
                if !(' '..='/').contains(&c) {
                    break;
                }
            }
        }
        // A final byte alone (`ESC 7`, `ESC M`) or nothing.
        _ => {}
    }
}

/// A control sequence's parameters and intermediates, up to its final byte.
fn skip_csi(chars: &mut Peekable<Chars<'_>>) {
    for c in chars.by_ref() {
        if ('@'..='~').contains(&c) {
            break;
        }
    }
}

/// A string sequence (OSC, DCS, …) up to its terminator: BEL, `ESC \` or the 8-bit ST.
fn skip_string(chars: &mut Peekable<Chars<'_>>) {
    while let Some(c) = chars.next() {
        match c {
            '\u{7}' | '\u{9c}' => break,
            '\u{1b}' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                break;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn escape_sequences_of_every_kind_are_removed() {
        let cases = [
            ("plain text", "plain text"),
            ("\u{1b}[31mred\u{1b}[0m", "red"),
            ("\u{1b}[2J\u{1b}[Hcleared", "cleared"),
            ("a\u{1b}]52;c;aGk=\u{7}b", "ab"),
            ("a\u{1b}]0;title\u{1b}\\b", "ab"),
            ("a\u{1b}P1$r0m\u{1b}\\b", "ab"),
            ("a\u{1b}(Bb\u{1b}7c", "abc"),
            ("a\u{9b}31mb", "ab"),
            ("a\u{9d}0;t\u{9c}b", "ab"),
            (
                "bell\u{7} and nul\u{0} and del\u{7f}",
                "bell and nul and del",
            ),
            ("tab\there", "tabhere"),
            ("unterminated \u{1b}]0;title", "unterminated "),
            ("ends with escape \u{1b}", "ends with escape "),
            ("中文 🎉 é", "中文 🎉 é"),
        ];
        for (text, expected) in cases {
            assert_eq!(clean(text), expected, "{text:?}");
        }
    }

    #[test]
    fn clean_text_is_borrowed() {
        assert!(matches!(clean("nothing to do"), Cow::Borrowed(_)));
    }

    #[test]
    fn output_lines_show_what_the_last_carriage_return_left() {
        assert_eq!(output_line(" 10%\r 50%\r100%"), "100%");
        assert_eq!(output_line("done\r"), "done");
        assert_eq!(output_line("a\tb"), "a    b");
        assert_eq!(output_line("\u{1b}[32mok\u{1b}[0m"), "ok");
    }
}
