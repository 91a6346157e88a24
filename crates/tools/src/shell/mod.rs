//! Reading shell command lines without running them: the pure part is `rein-shell`'s
//! (re-exported here); this module proves lines read-only against the workspace.
//!
//! [`analyse`] splits a line into simple commands with a conservative parser ([`split_commands`])
//! and sees through wrappers to what actually runs ([`ShellLine::effective`]), so permission
//! rules hold however a command is dressed. [`is_read_only`] proves a line only observes —
//! which lets it run concurrently and pass read-only permission modes — or says no: "prove or
//! ask". It knows a small set of programs and parses exactly their options; anything else,
//! any word bash could expand, any assignment prefix, any path outside the workspace, is not
//! proven. [`read_only_env`] is the environment to run a proven line with, so that `git` cannot
//! be made to run hooks, pagers or diff programs.
//!
//! "Conservative" is the parser's contract: it understands words, quotes, escapes, the list
//! and pipe operators and redirections, and refuses everything else (substitutions,
//! subshells, heredocs, control flow, background jobs). A refused line is unanalysable: never
//! read-only, and a policy sees only its [`ShellLine::naive_words`].

mod classify;
mod file_ops;
mod git;
mod programs;
mod reads;
mod repo_config;
mod repo_memo;
mod scripts;

pub use classify::is_read_only;
pub(crate) use classify::is_read_only_with;
pub use file_ops::only_changes_workspace_files;
pub(crate) use file_ops::only_changes_workspace_files_with;
pub(crate) use repo_memo::RepoMemo;
// The pure reading of a line lives in `rein-shell`; the classifier above applies it to the
// workspace.
use rein_shell::options;
pub use rein_shell::{
    LiteralFlags, ReadOnlyEnv, Redirect, ShellLine, SimpleCommand, Unsupported, Word, analyse,
    basename, naive_words, read_only_env, split_commands,
};
