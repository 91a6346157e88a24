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
    let mut tokens = tokens.into_iter().peekable();
    while let Some(token) = tokens.next() {
        match token {
            Token::Word {
                text,
                start,
                literal,
                assignment,
            } => current.word(Word { text, literal }, start, assignment, line),
            Token::Separator(at) => {
                if let Some(command) = current.finish(line, at)? {
                    commands.push(command);
                }
                current = Builder::default();
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
                current.end = current.end.max(word_end(line, start));
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
    end: usize,
    assignments: Vec<String>,
    words: Vec<Word>,
    redirects: Vec<Redirect>,
}

impl Builder {
    fn word(&mut self, word: Word, start: usize, assignment: bool, line: &str) {
        self.start.get_or_insert(start);
        // The word's end in the source: up to the next unquoted blank or operator. Tokens do
        // not carry it, so take the longest of the known positions.
        self.end = self.end.max(word_end(line, start));
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
        let end = self.end.min(at).max(start);
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

/// Whether the source at `chars` starts with an unquoted `NAME=` (or `NAME+=`, `NAME[..]=`).
fn is_assignment(chars: &[(usize, char)]) -> bool {
    let name = chars
        .iter()
        .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_')
        .count();
    let starts_well = chars
        .first()
        .is_some_and(|(_, c)| !c.is_ascii_digit() && *c != '=');
    starts_well && name > 0 && matches!(chars.get(name), Some((_, '=' | '+' | '[')))
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

fn tokenize(line: &str) -> Result<Vec<Token>, Unsupported> {
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    let at = |i: usize| chars.get(i).map(|(_, c)| *c);
    while i < chars.len() {
        let (pos, c) = chars[i];
        match c {
            ' ' | '\t' => i += 1,
            '\\' if at(i + 1) == Some('\n') => i += 2,
            '\n' | ';' => {
                if c == ';' && at(i + 1) == Some(';') {
                    return Err(Unsupported("case syntax"));
                }
                tokens.push(Token::Separator(pos));
                i += 1;
            }
            '#' => {
                // A comment runs to the end of the line.
                while i < chars.len() && chars[i].1 != '\n' {
                    i += 1;
                }
            }
            '|' => {
                tokens.push(Token::Separator(pos));
                i += if matches!(at(i + 1), Some('|' | '&')) {
                    2
                } else {
                    1
                };
            }
            '&' => match at(i + 1) {
                Some('&') => {
                    tokens.push(Token::Separator(pos));
                    i += 2;
                }
                Some('>') if at(i + 2) == Some('>') => {
                    tokens.push(Token::Redirect("&>>"));
                    i += 3;
                }
                Some('>') => {
                    tokens.push(Token::Redirect("&>"));
                    i += 2;
                }
                _ => return Err(Unsupported("a background job (&)")),
            },
            '(' | ')' => return Err(Unsupported("a subshell or grouping")),
            '<' | '>' => {
                let (op, len) = redirect_op(&chars[i..])?;
                tokens.push(Token::Redirect(op));
                i += len;
            }
            d if d.is_ascii_digit() && is_fd_redirect(&chars[i..]) => {
                // `2>`, `2>>`, `2>&1`: the descriptor belongs to the operator.
                i += 1;
            }
            _ => {
                let (text, literal, next) = read_word(&chars, i)?;
                tokens.push(Token::Word {
                    text,
                    start: pos,
                    literal,
                    assignment: is_assignment(&chars[i..]),
                });
                i = next;
            }
        }
    }
    Ok(tokens)
}

/// Whether `chars` starts with digits followed by `<` or `>` (a descriptor redirection).
fn is_fd_redirect(chars: &[(usize, char)]) -> bool {
    let digits = chars.iter().take_while(|(_, c)| c.is_ascii_digit()).count();
    digits > 0 && matches!(chars.get(digits), Some((_, '<' | '>')))
}

fn redirect_op(chars: &[(usize, char)]) -> Result<(&'static str, usize), Unsupported> {
    let s: String = chars.iter().take(3).map(|(_, c)| *c).collect();
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
    Ok((op, op.chars().count()))
}

/// Reads one word starting at `i`: quotes removed, escapes applied, and whether it is literal
/// ([`Word::literal`]). Substitutions are refused.
fn read_word(chars: &[(usize, char)], mut i: usize) -> Result<(String, bool, usize), Unsupported> {
    let mut word = String::new();
    let mut literal = true;
    let at = |i: usize| chars.get(i).map(|(_, c)| *c);
    while let Some(c) = at(i) {
        match c {
            ' ' | '\t' | '\n' | ';' | '|' | '&' | '<' | '>' | '(' | ')' => break,
            '\\' => {
                // A backslash at the very end stays itself.
                word.push(at(i + 1).unwrap_or('\\'));
                i += 2;
            }
            '\'' => {
                i += 1;
                loop {
                    match at(i) {
                        None => return Err(Unsupported("an unterminated quote")),
                        Some('\'') => break,
                        Some(c) => word.push(c),
                    }
                    i += 1;
                }
                i += 1;
            }
            '"' => {
                i += 1;
                loop {
                    match at(i) {
                        None => return Err(Unsupported("an unterminated quote")),
                        Some('"') => break,
                        Some('\\') if matches!(at(i + 1), Some('"' | '\\' | '$' | '`')) => {
                            i += 1;
                            word.extend(at(i));
                        }
                        Some('$') if at(i + 1) == Some('(') => {
                            return Err(Unsupported("a command substitution"));
                        }
                        Some('`') => return Err(Unsupported("a command substitution")),
                        Some(c) => {
                            literal &= c != '$';
                            word.push(c);
                        }
                    }
                    i += 1;
                }
                i += 1;
            }
            '`' => return Err(Unsupported("a command substitution")),
            '$' if at(i + 1) == Some('(') => return Err(Unsupported("a command substitution")),
            c => {
                // A tilde expands at the start of a word and after `=` or `:`.
                let tilde = c == '~' && (word.is_empty() || word.ends_with(['=', ':']));
                literal &= !tilde && !matches!(c, '$' | '*' | '?' | '[' | '{' | '}' | '!');
                word.push(c);
                i += 1;
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
