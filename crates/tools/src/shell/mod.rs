//! Reading shell command lines without running them: a conservative parser that splits a
//! command line into simple commands, and the classifier that decides whether a command line
//! only observes (`ls`, `git status`, `grep …`) — which lets it run concurrently and pass
//! read-only permission modes.
//!
//! "Conservative" is the contract: the parser understands words, quotes, escapes, the list and
//! pipe operators and redirections, and refuses everything else (substitutions, subshells,
//! heredocs, control flow, background jobs). A refused line is never read-only and can only be
//! allowed by a rule that matches it whole.

mod classify;
mod parse;

pub use classify::is_read_only;
pub use parse::{Redirect, SimpleCommand, Unsupported, split_commands};
