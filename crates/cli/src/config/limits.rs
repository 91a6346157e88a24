//! The limits of a run and of each request: `max_turns`, `context_window` and the
//! `[context_windows]` table, `max_tokens` and the `[max_output_tokens]` table, and the model
//! stream's timeouts. Zero is refused everywhere: no limit of 0 makes sense.

use super::file::TomlFile;
use super::{Config, ConfigError, Reader, set};

/// Adds the turn, window and output limits of `file` to `config`; the tables' prefixes are
/// lower-cased, a later file's entry replacing an earlier one's.
pub(super) fn merge(
    config: &mut Config,
    file: &TomlFile,
    reader: &Reader<'_>,
) -> Result<(), ConfigError> {
    if let Some(turns) = &file.max_turns
        && *turns.get_ref() == 0
    {
        return Err(reader.error(turns, "max_turns", "a run needs at least 1 turn"));
    }
    set(&mut config.max_turns, file.max_turns.as_ref(), reader);
    set(
        &mut config.context_window,
        file.context_window.as_ref(),
        reader,
    );
    for (prefix, window) in &file.context_windows {
        let key = format!("context_windows.{prefix}");
        if prefix.trim().is_empty() {
            return Err(reader.error(window, &key, "the model name prefix is empty"));
        }
        if *window.get_ref() == 0 {
            return Err(reader.error(window, &key, "a context window must be above 0 tokens"));
        }
        config
            .context_windows
            .insert(prefix.to_ascii_lowercase(), reader.sourced(window));
    }
    set(&mut config.max_tokens, file.max_tokens.as_ref(), reader);
    if let Some(limit) = &file.max_tokens
        && *limit.get_ref() == 0
    {
        return Err(reader.error(
            limit,
            "max_tokens",
            "an output limit must be above 0 tokens",
        ));
    }
    for (prefix, limit) in &file.max_output_tokens {
        let key = format!("max_output_tokens.{prefix}");
        if prefix.trim().is_empty() {
            return Err(reader.error(limit, &key, "the model name prefix is empty"));
        }
        if *limit.get_ref() == 0 {
            return Err(reader.error(limit, &key, "an output limit must be above 0 tokens"));
        }
        config
            .max_output_tokens
            .insert(prefix.to_ascii_lowercase(), reader.sourced(limit));
    }
    Ok(())
}

/// Adds the model stream's timeouts of `file` (`idle_timeout_secs`,
/// `no_progress_timeout_secs`) and the longest retry wait (`max_retry_wait_secs`, which may
/// be 0) to `config`.
pub(super) fn merge_stream_timeouts(
    config: &mut Config,
    file: &TomlFile,
    reader: &Reader<'_>,
) -> Result<(), ConfigError> {
    for (key, value, slot) in [
        (
            "idle_timeout_secs",
            &file.idle_timeout_secs,
            &mut config.idle_timeout_secs,
        ),
        (
            "no_progress_timeout_secs",
            &file.no_progress_timeout_secs,
            &mut config.no_progress_timeout_secs,
        ),
    ] {
        if let Some(secs) = value {
            if *secs.get_ref() == 0 {
                return Err(reader.error(secs, key, "a timeout must be at least 1 second"));
            }
            *slot = Some(reader.sourced(secs));
        }
    }
    let retry_wait = file.max_retry_wait_secs.as_ref();
    set(&mut config.max_retry_wait_secs, retry_wait, reader);
    Ok(())
}
