//! Splitting a command line into simple commands.

mod tokens;

use smallvec::SmallVec;

use tokens::{Token, Tokens, word_end};

/// One simple command of a command line: `FOO=1 cargo test --lib > out.txt`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// The command's source text, trimmed (quotes as written).
    pub text: String,
    /// Leading `NAME=value` assignments.
    pub assignments: Vec<String>,
    /// The words after quote removal; `argv[0]` is the program.
    pub argv: Vec<String>,
    /// For each word of `argv`, whether it is literal (see [`Word::literal`]); a word
    /// without a flag counts as not literal. Kept inline for the usual handful of words: every
    /// command of a line has its flags.
    pub literal: LiteralFlags,
    /// Redirections, in order.
    pub redirects: Vec<Redirect>,
}

/// The `literal` flags of a command's words ([`SimpleCommand::literal`]).
pub type LiteralFlags = SmallVec<[bool; 16]>;

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
    /// A command made of `words`, as the analysis synthesises them (`text` is the words
    /// joined with spaces).
    pub fn from_words(words: Vec<Word>, redirects: Vec<Redirect>) -> Self {
        let (argv, literal) = split_words(words);
        Self {
            text: argv.join(" "),
            assignments: Vec::new(),
            argv,
            literal,
            redirects,
        }
    }

    /// Its words from the `from`th on (none past the end), each with its `literal` flag.
    pub fn words_from(&self, from: usize) -> Vec<Word> {
        (from..self.argv.len())
            .map(|i| Word {
                text: self.argv[i].clone(),
                literal: self.is_literal(i),
            })
            .collect()
    }

    /// Whether word `i` is literal.
    pub fn is_literal(&self, i: usize) -> bool {
        self.literal.get(i).copied().unwrap_or(false)
    }

    /// Whether every word is literal.
    pub fn all_literal(&self) -> bool {
        (0..self.argv.len()).all(|i| self.is_literal(i))
    }
}

/// The texts and `literal` flags of `words`, moved apart.
fn split_words(words: Vec<Word>) -> (Vec<String>, LiteralFlags) {
    let literal = words.iter().map(|w| w.literal).collect();
    let argv = words.into_iter().map(|w| w.text).collect();
    (argv, literal)
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

/// Splits `line` into its simple commands (separated by `&&`, `||`, `;`, `|`, `|&` or
/// newlines), or says why it cannot.
pub fn split_commands(line: &str) -> Result<Vec<SimpleCommand>, Unsupported> {
    split_into(line, |command| command)
}

/// [`split_commands`], each command wrapped by `wrap` as it is made (into an `Arc` for the
/// analysis, so a long line never moves its commands around while the list grows).
pub(super) fn split_into<T>(
    line: &str,
    wrap: impl Fn(SimpleCommand) -> T,
) -> Result<Vec<T>, Unsupported> {
    let mut tokens = Tokens::new(line);
    let mut commands = Vec::new();
    let mut current = Builder::default();
    // A malformed command is reported once the whole line is read: an error of the
    // tokenizer anywhere in the line comes first.
    let mut malformed: Option<Unsupported> = None;
    while let Some(token) = tokens.next_token()? {
        if malformed.is_some() {
            continue;
        }
        match token {
            Token::Word {
                text,
                start,
                literal,
                assignment,
            } => current.word(Word { text, literal }, start, assignment),
            Token::Separator(at) => match std::mem::take(&mut current).finish(line, at) {
                Ok(Some(command)) => commands.push(wrap(command)),
                Ok(None) => {}
                Err(why) => malformed = Some(why),
            },
            Token::Redirect(op) => {
                let Some(Token::Word {
                    text,
                    start,
                    literal,
                    ..
                }) = tokens.next_token()?
                else {
                    malformed = Some(Unsupported("a redirection without a target"));
                    continue;
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
    if let Some(why) = malformed {
        return Err(why);
    }
    if let Some(command) = current.finish(line, line.len())? {
        commands.push(wrap(command));
    }
    Ok(commands)
}

#[derive(Default)]
struct Builder {
    start: Option<usize>,
    /// Where the last word (or redirection target) starts: the command's text ends with it.
    last: usize,
    assignments: Vec<String>,
    argv: Vec<String>,
    literal: LiteralFlags,
    redirects: Vec<Redirect>,
}

impl Builder {
    fn word(&mut self, word: Word, start: usize, assignment: bool) {
        self.start.get_or_insert(start);
        self.last = start;
        if self.argv.is_empty() && assignment {
            self.assignments.push(word.text);
        } else {
            self.argv.push(word.text);
            self.literal.push(word.literal);
        }
    }

    fn finish(self, line: &str, at: usize) -> Result<Option<SimpleCommand>, Unsupported> {
        let Some(start) = self.start else {
            return Ok(None);
        };
        if let Some(first) = self.argv.first()
            && KEYWORDS.contains(&first.as_str())
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
            argv: self.argv,
            literal: self.literal,
            redirects: self.redirects,
        }))
    }
}

/// Reserved words that start compound commands. (`time` is read as a wrapper instead.)
const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
    "function", "select", "{", "}", "[[", "]]", "!", "coproc",
];

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
