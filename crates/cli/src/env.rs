//! The process environment as the CLI reads it: one reader, [`process`], handed down to every
//! function that needs a variable as `&dyn Fn(&str) -> Option<String>` (tests pass their own),
//! so nothing below `main` reads the environment on its own.

use std::path::PathBuf;

/// A reader of the environment that lives as long as the run ([`process`], or a test's).
pub type ReadEnv = fn(&str) -> Option<String>;

/// The environment's reader type.
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The process environment: a variable's value, `None` when it is unset or not UTF-8.
pub fn process(key: &str) -> Option<String> {
    std::env::var(key).ok()
}

/// `HOME` as `env` gives it, when it is set.
pub fn home(env: Env<'_>) -> Option<PathBuf> {
    env("HOME").map(PathBuf::from)
}
