//! Splitting a command line into simple commands.

/// One simple command of a command line: `FOO=1 cargo test --lib > out.txt`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// The command's source text, trimmed (quotes as written).
    pub text: String,
    /// Leading `NAME=value` assignments.
    pub assignments: Vec<String>,
    /// The words after quote removal; `argv[0]` is the program.
    pub argv: Vec<String>,
    /// The same words as `argv`, each saying whether bash could expand it.
    pub words: Vec<Word>,
    /// Redirections, in order.
    pub redirects: Vec<Redirect>,
}

/// One word as bash reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The word after quote removal (`$VAR`, globs and braces kept as written).
    pub text: String,
    /// Whether no expansion of any kind could change it: no `$` or backquote outside single
    /// quotes (parameters, arithmetic, `$'..'`, `$".."`), and no unquoted glob character
    /// (`*`, `?`, `[`), brace (`{`, `}`), `!` (extglob) or tilde that could expand (at the start,
    /// after `=` or `:`). Inside single quotes and
    /// after a backslash everything is literal.
    pub literal: bool,
}

impl Word {
    /// A literal word (one that came from an analysis rather than from bash source).
    pub fn plain(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            literal: true,
        }
    }
}

impl SimpleCommand {
    /// A command made of literal words, as the analysis synthesises them (`text` is the argv
    /// joined with spaces).
    pub fn from_words(words: Vec<Word>, redirects: Vec<Redirect>) -> Self {
        let argv: Vec<String> = words.iter().map(|w| w.text.clone()).collect();
        Self {
            text: argv.join(" "),
            assignments: Vec::new(),
            argv,
            words,
            redirects,
        }
    }
}

/// A redirection: `2>&1`, `> out.txt`, `< in.txt`, `&>> log`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The operator without the file descriptor: `>`, `>>`, `<`, `>&`, `<&`, `&>`, `&>>`,
    /// `<<<`, `<>`, `>|`.
    pub op: String,
    /// The target word (a file, a descriptor for `>&`, the string for `<<<`).
    pub target: String,
    /// Whether the target is a plain literal (see [`Word::literal`]).
    pub literal: bool,
}

impl Redirect {
    /// Whether the redirection may create or change a file: output to anything but
    /// `/dev/null` or another descriptor.
    pub fn writes_file(&self) -> bool {
        match self.op.as_str() {
            "<" | "<<<" | "<&" => false,
            ">&" => !self.target.chars().all(|c| c.is_ascii_digit() || c == '-'),
            _ => self.target != "/dev/null",
        }
    }
}

/// Why a command line could not be analysed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot analyse the command: {0}")]
pub struct Unsupported(pub &'static str);

#[derive(Debug, PartialEq)]
enum Token {
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

/// Splits `line` into its simple commands (separated by `&&`, `||`, `;`, `|`, `|&` or
/// newlines), or says why it cannot.
pub fn split_commands(line: &str) -> Result<Vec<SimpleCommand>, Unsupported> {
    let tokens = tokenize(line)?;
    let mut commands = Vec::new();
    let mut current = Builder::default();
    let mut tokens = tokens.into_iter();
    while let Some(token) = tokens.next() {
        match token {
            Token::Word {
                text,
                start,
                literal,
                assignment,
            } => current.word(Word { text, literal }, start, assignment),
            Token::Separator(at) => {
                if let Some(command) = std::mem::take(&mut current).finish(line, at)? {
                    commands.push(command);
                }
            }
            Token::Redirect(op) => {
                let Some(Token::Word {
                    text,
                    start,
                    literal,
                    ..
                }) = tokens.next()
                else {
                    return Err(Unsupported("a redirection without a target"));
                };
                current.start.get_or_insert(start);
                current.last = start;
                current.redirects.push(Redirect {
                    op: op.to_string(),
                    target: text,
                    literal,
                });
            }
        }
    }
    if let Some(command) = current.finish(line, line.len())? {
        commands.push(command);
    }
    Ok(commands)
}

#[derive(Default)]
struct Builder {
    start: Option<usize>,
    /// Where the last word (or redirection target) starts: the command's text ends with it.
    last: usize,
    assignments: Vec<String>,
    words: Vec<Word>,
    redirects: Vec<Redirect>,
}

impl Builder {
    fn word(&mut self, word: Word, start: usize, assignment: bool) {
        self.start.get_or_insert(start);
        self.last = start;
        if self.words.is_empty() && assignment {
            self.assignments.push(word.text);
        } else {
            self.words.push(word);
        }
    }

    fn finish(self, line: &str, at: usize) -> Result<Option<SimpleCommand>, Unsupported> {
        let Some(start) = self.start else {
            return Ok(None);
        };
        if let Some(first) = self.words.first()
            && KEYWORDS.contains(&first.text.as_str())
        {
            return Err(Unsupported(
                "control flow (if, for, while, case, functions)",
            ));
        }
        // The text ends where the last word does (up to the next unquoted blank or operator):
        // words come in order and each ends before the next starts.
        let end = word_end(line, self.last).min(at).max(start);
        Ok(Some(SimpleCommand {
            text: line[start..end].trim().to_string(),
            assignments: self.assignments,
            argv: self.words.iter().map(|w| w.text.clone()).collect(),
            words: self.words,
            redirects: self.redirects,
        }))
    }
}

/// Reserved words that start compound commands. (`time` is read as a wrapper instead.)
const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
    "function", "select", "{", "}", "[[", "]]", "!", "coproc",
];

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
fn word_end(line: &str, start: usize) -> usize {
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

/// The tokens of `line`. Every byte that means something to the shell is ASCII, so the line
/// is read byte by byte and text between special bytes copied whole.
fn tokenize(line: &str) -> Result<Vec<Token>, Unsupported> {
    let bytes = line.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    let at = |i: usize| bytes.get(i).copied();
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b' ' | b'\t' => i += 1,
            b'\\' if at(i + 1) == Some(b'\n') => i += 2,
            b'\n' | b';' => {
                if b == b';' && at(i + 1) == Some(b';') {
                    return Err(Unsupported("case syntax"));
                }
                tokens.push(Token::Separator(i));
                i += 1;
            }
            b'#' => {
                // A comment runs to the end of the line.
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'|' => {
                tokens.push(Token::Separator(i));
                i += if matches!(at(i + 1), Some(b'|' | b'&')) {
                    2
                } else {
                    1
                };
            }
            b'&' => match at(i + 1) {
                Some(b'&') => {
                    tokens.push(Token::Separator(i));
                    i += 2;
                }
                Some(b'>') if at(i + 2) == Some(b'>') => {
                    tokens.push(Token::Redirect("&>>"));
                    i += 3;
                }
                Some(b'>') => {
                    tokens.push(Token::Redirect("&>"));
                    i += 2;
                }
                _ => return Err(Unsupported("a background job (&)")),
            },
            b'(' | b')' => return Err(Unsupported("a subshell or grouping")),
            b'<' | b'>' => {
                let op = redirect_op(&line[i..])?;
                tokens.push(Token::Redirect(op));
                i += op.len();
            }
            d if d.is_ascii_digit() && is_fd_redirect(&bytes[i..]) => {
                // `2>`, `2>>`, `2>&1`: the descriptor belongs to the operator.
                i += 1;
            }
            _ => {
                let (text, literal, next) = read_word(line, i)?;
                tokens.push(Token::Word {
                    text,
                    start: i,
                    literal,
                    assignment: is_assignment(&bytes[i..]),
                });
                i = next;
            }
        }
    }
    Ok(tokens)
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

/// Reads one word starting at byte `i`: quotes removed, escapes applied, and whether it is
/// literal ([`Word::literal`]). Substitutions are refused.
fn read_word(line: &str, mut i: usize) -> Result<(String, bool, usize), Unsupported> {
    let bytes = line.as_bytes();
    let mut word = String::with_capacity(word_end(line, i).saturating_sub(i));
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
            b'"' => {
                i += 1;
                loop {
                    match at(i) {
                        None => return Err(Unsupported("an unterminated quote")),
                        Some(b'"') => break,
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
                            literal = false;
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
                i += 1;
            }
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

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
