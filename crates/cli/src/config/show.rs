//! `rein config show`: the configuration a run would use, one setting per line with where it
//! was set and, after it, the values it overrides (most specific first). What the environment
//! and the defaults that depend on other settings give comes resolved (`resolve::layered`, as
//! a run resolves them); defaults are shown as the concrete values a run would use.

use super::DEFAULT;
use super::scalars::{Scalar, scalars};
use super::{Config, Sourced};

/// The values a run takes from beyond the files, by key, with where they came from.
pub type Layered = [(&'static str, Sourced<String>)];

/// One printed setting: `key = value  # source`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Line {
    key: String,
    value: String,
    source: String,
}

/// The configuration with what the environment gives (`layered`) applied, as TOML-like lines
/// each followed by `# source`.
pub fn render(config: &Config, layered: &Layered) -> String {
    let mut out = String::new();
    for line in lines(config, layered) {
        out.push_str(&format!(
            "{} = {}  # {}\n",
            line.key, line.value, line.source
        ));
    }
    for ignored in &config.ignored {
        let why = match ignored.why {
            super::Why::Untrusted => "ignored: the workspace is not trusted (`rein trust`)",
            super::Why::Credentials => "ignored: a workspace file never routes credentials",
            super::Why::UserOnly => "ignored: only your own config (~/.config/rein) sets this",
            super::Why::Unsupported => {
                "ignored: rein does not have this Claude Code setting (for `env`, export \
                 the variables before starting rein)"
            }
        };
        out.push_str(&format!(
            "# {} ({}) — {why}\n",
            ignored.what, ignored.source
        ));
    }
    for unread in &config.unread {
        out.push_str(&format!("# {unread}\n"));
    }
    out
}

fn lines(config: &Config, layered: &Layered) -> Vec<Line> {
    let mut lines: Vec<Line> = scalars(config)
        .into_iter()
        .map(|scalar| scalar_line(config, layered, scalar))
        .collect();
    lines.extend(list_lines(config));
    lines.extend(hook_lines(config));
    lines
}

/// A single-valued setting's line: the value that won (from `layered`, the files or the
/// default) and, when it beat others, the values it overrides.
fn scalar_line(
    config: &Config,
    layered: &[(&'static str, Sourced<String>)],
    scalar: Scalar,
) -> Line {
    let won = layered
        .iter()
        .find(|(key, _)| *key == scalar.key)
        .map(|(_, won)| won.clone())
        .or_else(|| scalar.set.clone())
        .unwrap_or_else(|| Sourced {
            value: scalar.default.to_string(),
            source: DEFAULT.to_string(),
        });
    // The files' value when the environment beat it, then what it replaced, newest first.
    let overridden: Vec<Sourced<String>> = scalar
        .set
        .filter(|set| set.source != won.source)
        .into_iter()
        .chain(
            config
                .replaced
                .iter()
                .rev()
                .filter(|(key, _)| *key == scalar.key)
                .map(|(_, old)| old.clone()),
        )
        .collect();
    let source = if overridden.is_empty() {
        won.source
    } else {
        let list: Vec<String> = overridden
            .iter()
            .map(|old| format!("{} at {}", old.value, old.source))
            .collect();
        format!("{} (overrides {})", won.source, list.join(", "))
    };
    Line {
        key: scalar.key,
        value: won.value,
        source,
    }
}

/// The list settings, which accumulate across files: the rules, sensitive paths, MCP
/// variables and sandbox roots, each with its built-in part first where it has one.
fn list_lines(config: &Config) -> Vec<Line> {
    let mut lines = Vec::new();
    for (key, rules) in [
        ("permissions.allow", &config.allow),
        ("permissions.ask", &config.ask),
        ("permissions.deny", &config.deny),
    ] {
        if rules.is_empty() {
            lines.push(line(key, "[]".into(), DEFAULT));
        }
        lines.extend(per_file(key, rules));
    }
    let sensitive = "tools.sensitive_paths";
    let built_in = format!("{:?}", rein_tools::DEFAULT_SENSITIVE);
    lines.push(line(sensitive, built_in, DEFAULT));
    lines.extend(per_file(sensitive, &config.sensitive_paths));
    lines.extend(per_file("mcp_env_allow", &config.mcp_env_allow));
    lines.extend(per_file(
        "web.allow_private_hosts",
        &config.web.allow_private_hosts,
    ));
    lines.extend(per_file(
        "additional_directories",
        &config.additional_directories,
    ));
    let read_roots = "sandbox_settings.read_roots";
    let built_in = format!("{:?}", rein_sandbox::DEFAULT_READ_ROOTS);
    lines.push(line(read_roots, built_in, DEFAULT));
    lines.extend(per_file(read_roots, &config.sandbox.read_roots));
    lines.extend(per_file(
        "sandbox_settings.writable_roots",
        &config.sandbox.writable_roots,
    ));
    lines
}

/// One line per hook, in the order they were set, each with the file that set it.
fn hook_lines(config: &Config) -> impl Iterator<Item = Line> + '_ {
    config.hooks.iter().map(|hook| {
        let matcher = hook
            .matcher
            .as_deref()
            .map(|m| format!(" matcher={m:?}"))
            .unwrap_or_default();
        line(
            &format!("hooks.{}", hook.event.name()),
            format!(
                "{:?}{matcher} timeout={}s",
                hook.command,
                hook.timeout.as_secs()
            ),
            &hook.source,
        )
    })
}

fn line(key: &str, value: String, source: &str) -> Line {
    Line {
        key: key.to_string(),
        value,
        source: source.to_string(),
    }
}

/// A list setting as one line per file that adds to it (lists accumulate across files): the
/// file's entries in order, with the file and its lines (`path:3`, `path:3-5`).
fn per_file(key: &str, items: &[Sourced<String>]) -> Vec<Line> {
    let mut groups: Vec<(&str, Vec<&Sourced<String>>)> = Vec::new();
    for item in items {
        let file = file_of(&item.source);
        match groups.last_mut() {
            Some((last, group)) if *last == file => group.push(item),
            _ => groups.push((file, vec![item])),
        }
    }
    groups
        .into_iter()
        .map(|(file, group)| {
            let values: Vec<String> = group.iter().map(|s| format!("{:?}", s.value)).collect();
            let first = group.first().map_or("", |s| s.source.as_str());
            let last = group.last().map_or("", |s| s.source.as_str());
            let source = match last.strip_prefix(file).and_then(|l| l.strip_prefix(':')) {
                Some(last_line) if first != last => format!("{first}-{last_line}"),
                _ => first.to_string(),
            };
            line(key, format!("[{}]", values.join(", ")), &source)
        })
        .collect()
}

/// The file of a `path:line` source (a source without a line is its own file).
fn file_of(source: &str) -> &str {
    match source.rsplit_once(':') {
        Some((file, line)) if !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()) => file,
        _ => source,
    }
}
