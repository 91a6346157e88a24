//! Reading a command line into tokens: words (quotes removed, escapes applied), separators
//! and redirection operators.

use super::Unsupported;

/// One token of a command line.
#[derive(Debug, PartialEq)]
pub(super) enum Token {
    Word {
        text: String,
        start: usize,
        literal: bool,
        /// Starts with an unquoted `NAME=`.
        assignment: bool,
    },
    /// `&&`, `||`, `;`, `|`, `|&` or a newline: ends a simple command.
    Separator(usize),
    Redirect(&'static str),
}

/// Whether `source` starts with an unquoted `NAME=` (or `NAME+=`, `NAME[..]=`).
fn is_assignment(source: &[u8]) -> bool {
    let name = source
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    let starts_well = source
        .first()
        .is_some_and(|b| !b.is_ascii_digit() && *b != b'=');
    starts_well && name > 0 && matches!(source.get(name), Some(b'=' | b'+' | b'['))
}

/// Where the word starting at `start` ends in `line` (quotes and escapes skipped).
pub(super) fn word_end(line: &str, start: usize) -> usize {
    let bytes = line.as_bytes();
    let mut i = start;
    let mut quote: Option<u8> = None;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(b'"') if b == b'\\' => i += 1,
            Some(_) => {}
            None if b == b'\\' => i += 1,
            None if b == b'\'' || b == b'"' => quote = Some(b),
            None if b.is_ascii_whitespace() || b"|&;<>()".contains(&b) => break,
            None => {}
        }
        i += 1;
    }
    i.min(bytes.len())
}

/// The tokens of a line, read one at a time. Every byte that means something to the shell
/// is ASCII, so the line is read byte by byte and text between special bytes copied whole.
pub(super) struct Tokens<'a> {
    line: &'a str,
    /// The next byte to read.
    i: usize,
}

impl<'a> Tokens<'a> {
    pub(super) fn new(line: &'a str) -> Self {
        Self { line, i: 0 }
    }

    /// The next token, `None` at the end of the line.
    pub(super) fn next_token(&mut self) -> Result<Option<Token>, Unsupported> {
        let line = self.line;
        let bytes = line.as_bytes();
        let at = |i: usize| bytes.get(i).copied();
        while let Some(&b) = bytes.get(self.i) {
            let i = self.i;
            let (token, next) = match b {
                b' ' | b'\t' => (None, i + 1),
                b'\\' if at(i + 1) == Some(b'\n') => (None, i + 2),
                b'\n' | b';' => {
                    if b == b';' && at(i + 1) == Some(b';') {
                        return Err(Unsupported("case syntax"));
                    }
                    (Some(Token::Separator(i)), i + 1)
                }
                // A comment runs to the end of the line.
                b'#' => (
                    None,
                    bytes[i..]
                        .iter()
                        .position(|b| *b == b'\n')
                        .map_or(bytes.len(), |n| i + n),
                ),
                b'|' => {
                    let len = if matches!(at(i + 1), Some(b'|' | b'&')) {
                        2
                    } else {
                        1
                    };
                    (Some(Token::Separator(i)), i + len)
                }
                b'&' => match at(i + 1) {
                    Some(b'&') => (Some(Token::Separator(i)), i + 2),
                    Some(b'>') if at(i + 2) == Some(b'>') => (Some(Token::Redirect("&>>")), i + 3),
                    Some(b'>') => (Some(Token::Redirect("&>")), i + 2),
                    _ => return Err(Unsupported("a background job (&)")),
                },
                b'(' | b')' => return Err(Unsupported("a subshell or grouping")),
                b'<' | b'>' => {
                    let op = redirect_op(&line[i..])?;
                    (Some(Token::Redirect(op)), i + op.len())
                }
                // `2>`, `2>>`, `2>&1`: the descriptor belongs to the operator.
                d if d.is_ascii_digit() && is_fd_redirect(&bytes[i..]) => (None, i + 1),
                _ => {
                    let (text, literal, next) = read_word(line, i)?;
                    let word = Token::Word {
                        text,
                        start: i,
                        literal,
                        assignment: is_assignment(&bytes[i..]),
                    };
                    (Some(word), next)
                }
            };
            self.i = next;
            if token.is_some() {
                return Ok(token);
            }
        }
        Ok(None)
    }
}

/// Whether `source` starts with digits followed by `<` or `>` (a descriptor redirection).
fn is_fd_redirect(source: &[u8]) -> bool {
    let digits = source.iter().take_while(|b| b.is_ascii_digit()).count();
    digits > 0 && matches!(source.get(digits), Some(b'<' | b'>'))
}

fn redirect_op(s: &str) -> Result<&'static str, Unsupported> {
    let op = if s.starts_with("<<<") {
        "<<<"
    } else if s.starts_with("<<") {
        return Err(Unsupported("a heredoc"));
    } else if s.starts_with("<(") || s.starts_with(">(") {
        return Err(Unsupported("a process substitution"));
    } else if s.starts_with(">>") {
        ">>"
    } else if s.starts_with(">&") {
        ">&"
    } else if s.starts_with("<&") {
        "<&"
    } else if s.starts_with(">|") {
        ">|"
    } else if s.starts_with("<>") {
        "<>"
    } else if s.starts_with('>') {
        ">"
    } else {
        "<"
    };
    Ok(op)
}

/// Whether an unquoted byte ends a plain run of a word: it ends the word, quotes or escapes,
/// or may expand.
fn is_special(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t'
            | b'\n'
            | b';'
            | b'|'
            | b'&'
            | b'<'
            | b'>'
            | b'('
            | b')'
            | b'\\'
            | b'\''
            | b'"'
            | b'`'
            | b'$'
            | b'*'
            | b'?'
            | b'['
            | b'{'
            | b'}'
            | b'!'
            | b'~'
    )
}

/// Where the word starting at byte `i` ends when it is one plain run (`src/lib.rs`, `-n`):
/// nothing to unquote, unescape or expand, so it is copied whole. `None` otherwise.
fn plain_word(bytes: &[u8], i: usize) -> Option<usize> {
    let end = bytes[i..]
        .iter()
        .position(|b| is_special(*b))
        .map_or(bytes.len(), |n| i + n);
    let ends_word = |b: &u8| {
        matches!(
            b,
            b' ' | b'\t' | b'\n' | b';' | b'|' | b'&' | b'<' | b'>' | b'(' | b')'
        )
    };
    (end > i && bytes.get(end).is_none_or(ends_word)).then_some(end)
}

/// Reads one word starting at byte `i`: quotes removed, escapes applied, and whether it is
/// literal ([`super::Word::literal`]). Substitutions are refused.
fn read_word(line: &str, mut i: usize) -> Result<(String, bool, usize), Unsupported> {
    let bytes = line.as_bytes();
    if let Some(plain) = plain_word(bytes, i) {
        return Ok((line[i..plain].to_string(), true, plain));
    }
    let mut word = String::new();
    let mut literal = true;
    let at = |i: usize| bytes.get(i).copied();
    while let Some(b) = at(i) {
        match b {
            b' ' | b'\t' | b'\n' | b';' | b'|' | b'&' | b'<' | b'>' | b'(' | b')' => break,
            b'\\' => {
                // The escaped character (whole, if not ASCII); a backslash at the very end
                // stays itself.
                match line[i + 1..].chars().next() {
                    Some(c) => {
                        word.push(c);
                        i += 1 + c.len_utf8();
                    }
                    None => {
                        word.push('\\');
                        i += 2;
                    }
                }
            }
            b'\'' => {
                let body = &line[i + 1..];
                let Some(close) = body.find('\'') else {
                    return Err(Unsupported("an unterminated quote"));
                };
                word.push_str(&body[..close]);
                i += close + 2;
            }
            b'"' => i = read_double_quoted(line, i + 1, &mut word, &mut literal)?,
            b'`' => return Err(Unsupported("a command substitution")),
            b'$' if at(i + 1) == Some(b'(') => return Err(Unsupported("a command substitution")),
            b'~' => {
                // A tilde expands at the start of a word and after `=` or `:`.
                if word.is_empty() || word.ends_with(['=', ':']) {
                    literal = false;
                }
                word.push('~');
                i += 1;
            }
            b'$' | b'*' | b'?' | b'[' | b'{' | b'}' | b'!' => {
                literal = false;
                word.push(char::from(b));
                i += 1;
            }
            _ => {
                let run = bytes[i..]
                    .iter()
                    .position(|b| is_special(*b))
                    .map_or(bytes.len(), |n| i + n);
                word.push_str(&line[i..run]);
                i = run;
            }
        }
    }
    // A lone `[` is the `test` builtin, not a pattern.
    let lone_bracket = word == "[";
    Ok((word, literal || lone_bracket, i))
}

/// Reads the body of a double-quoted string starting at byte `i` (after the quote) into
/// `word`; `literal` turns false at a `$` expansion. Returns the index after the closing
/// quote. Substitutions are refused.
fn read_double_quoted(
    line: &str,
    mut i: usize,
    word: &mut String,
    literal: &mut bool,
) -> Result<usize, Unsupported> {
    let bytes = line.as_bytes();
    let at = |i: usize| bytes.get(i).copied();
    loop {
        match at(i) {
            None => return Err(Unsupported("an unterminated quote")),
            Some(b'"') => return Ok(i + 1),
            Some(b'\\') if matches!(at(i + 1), Some(b'"' | b'\\' | b'$' | b'`')) => {
                i += 1;
                word.push(char::from(bytes[i]));
                i += 1;
            }
            Some(b'$') if at(i + 1) == Some(b'(') => {
                return Err(Unsupported("a command substitution"));
            }
            Some(b'`') => return Err(Unsupported("a command substitution")),
            Some(b'$') => {
                *literal = false;
                word.push('$');
                i += 1;
            }
            Some(_) => {
                // A run up to the next byte that means something here.
                let run = bytes[i..]
                    .iter()
                    .position(|b| matches!(b, b'"' | b'\\' | b'$' | b'`'))
                    .map_or(bytes.len(), |n| i + n.max(1));
                word.push_str(&line[i..run]);
                i = run;
            }
        }
    }
}
