//! Reading shell command lines without running them: pure functions, no I/O.
//!
//! [`analyse`] splits a line into simple commands with a conservative parser
//! ([`split_commands`]) and sees through wrappers (`sudo`, `env`, `timeout`, `xargs`,
//! `bash -c`…) to what actually runs ([`ShellLine::effective`](ShellLine::effective)), so permission rules hold
//! however a command is dressed. [`options::parse_options`] parses a program's options exactly
//! from a table of them. [`read_only_env`] is the environment a line proven read-only runs
//! with. Deciding what a line does to the file system (the read-only classifier) needs the
//! workspace and lives in `rein-tools`.
//!
//! "Conservative" is the parser's contract: it understands words, quotes, escapes, the list
//! and pipe operators and redirections, and refuses everything else (substitutions,
//! subshells, heredocs, control flow, background jobs). A refused line is unanalysable, and a
//! policy sees only its [`ShellLine::naive_words`].
//!
//! ```
//! let line = rein_shell::analyse("sudo timeout 5 cat notes.txt | wc -l");
//! assert_eq!(line.unanalysable, None);
//! let programs: Vec<&str> = line.effective.iter().map(|c| c.argv[0].as_str()).collect();
//! // As written, then what runs once the wrappers are stripped.
//! assert!(programs.contains(&"cat") && programs.contains(&"wc"));
//! ```

#![deny(missing_docs)]

mod env;
mod line;
pub mod options;
mod parse;
mod unwrap;

pub use env::{ReadOnlyEnv, read_only_env};
pub use line::{ShellLine, analyse, naive_words};
pub use parse::{LiteralFlags, Redirect, SimpleCommand, Unsupported, Word, split_commands};
pub use unwrap::basename;
