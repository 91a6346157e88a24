//! The process environment as the CLI reads it: one reader, [`process`], handed down to every
//! function that needs a variable as `&dyn Fn(&str) -> Option<String>` (tests pass their own),
//! so nothing below `main` reads the environment on its own.

use std::path::PathBuf;

/// A reader of the environment that lives as long as the run ([`process`], or a test's).
pub type ReadEnv = fn(&str) -> Option<String>;

/// The environment's reader type.
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The process environment: a variable's value, `None` when it is unset or not UTF-8.
#[allow(clippy::disallowed_methods)] // the home: the one reader of the environment the CLI hands down
pub fn process(key: &str) -> Option<String> {
    std::env::var(key).ok()
}

/// `HOME` as `env` gives it, when it is set.
pub fn home(env: Env<'_>) -> Option<PathBuf> {
    env("HOME").map(PathBuf::from)
}

/// rein's cache folder: `$XDG_CACHE_HOME/rein`, else `~/.cache/rein`, else one in the
/// system's temp folder.
pub fn cache_dir(env: Env<'_>) -> PathBuf {
    let absolute = |value: Option<String>| value.map(PathBuf::from).filter(|p| p.is_absolute());
    absolute(env("XDG_CACHE_HOME"))
        .or_else(|| absolute(env("HOME")).map(|home| home.join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("rein")
}

/// rein's data folder: `$XDG_DATA_HOME/rein`, else `~/.local/share/rein`; `None` when neither
/// variable gives an absolute path.
pub fn data_dir(env: Env<'_>) -> Option<PathBuf> {
    let absolute = |value: Option<String>| value.map(PathBuf::from).filter(|p| p.is_absolute());
    absolute(env("XDG_DATA_HOME"))
        .or_else(|| absolute(env("HOME")).map(|home| home.join(".local/share")))
        .map(|base| base.join("rein"))
}
