//! `[tools]` of a TOML file: the limits of tool calls (output, time, parallelism, loop
//! detection, checkpoints), the `compact` tool, and paths added to the sensitive list.

use super::file::TomlFile;
use super::{Config, Reader, set};

/// Adds the `[tools]` settings of `file` to `config`; its sensitive paths add to the earlier
/// files' (and to the built-in list), never replace them.
pub(super) fn merge(config: &mut Config, file: &TomlFile, reader: &Reader<'_>) {
    let tools = &file.tools;
    set(
        &mut config.output_limit,
        tools.output_limit.as_ref(),
        reader,
    );
    set(
        &mut config.call_timeout_secs,
        tools.call_timeout_secs.as_ref(),
        reader,
    );
    set(
        &mut config.checkpoint_cap_mb,
        tools.checkpoint_cap_mb.as_ref(),
        reader,
    );
    set(
        &mut config.max_parallel,
        tools.max_parallel.as_ref(),
        reader,
    );
    set(&mut config.repeat_warn, tools.repeat_warn.as_ref(), reader);
    set(&mut config.repeat_stop, tools.repeat_stop.as_ref(), reader);
    set(&mut config.compact_tool, tools.compact.as_ref(), reader);
    set(
        &mut config.max_teammates,
        tools.max_teammates.as_ref(),
        reader,
    );
    set(
        &mut config.max_terminals,
        tools.max_terminals.as_ref(),
        reader,
    );
    set(
        &mut config.repo_map_tokens,
        tools.repo_map_tokens.as_ref(),
        reader,
    );
    set(
        &mut config.repo_map_at_start,
        tools.repo_map_at_start.as_ref(),
        reader,
    );
    set(
        &mut config.worktree_base,
        tools.worktree_base.as_ref(),
        reader,
    );
    for path in tools.sensitive_paths.iter().flatten() {
        config.sensitive_paths.push(reader.sourced(path));
    }
}
