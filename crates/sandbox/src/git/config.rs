//! A tiny reader of git's config files, for the few keys that decide what git runs or reads
//! next: `core.hooksPath`, `extensions.worktreeConfig` and the include paths.
//!
//! Why not `git config`: running git on a repository the command may have prepared is what
//! this module protects against, and the few keys needed read fine with a line reader.

use std::path::{Path, PathBuf};

/// The keys of one config file that matter to the sandbox.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct GitConfig {
    /// `core.hooksPath`, the last one set.
    pub hooks_path: Option<String>,
    /// `extensions.worktreeConfig`: git then also reads `config.worktree`.
    pub worktree_config: bool,
    /// Every `include.path` and `includeIf.<condition>.path`, whatever the condition (a
    /// condition true only later still makes git read the file then).
    pub includes: Vec<String>,
    /// Every `submodule.<name>.path` (read from `.gitmodules`).
    pub submodule_paths: Vec<String>,
}

impl GitConfig {
    /// Reads the file at `path`; a missing or unreadable one has no keys.
    pub(crate) fn read(path: &Path) -> Self {
        std::fs::read(path)
            .map(|bytes| Self::parse(&String::from_utf8_lossy(&bytes)))
            .unwrap_or_default()
    }

    /// The keys of config text `text`.
    pub(crate) fn parse(text: &str) -> Self {
        let mut config = Self::default();
        let mut section = String::new();
        for line in logical_lines(text) {
            let line = line.trim_start();
            let rest = match line.strip_prefix('[') {
                Some(header) => {
                    let Some(end) = header.find(']') else {
                        continue;
                    };
                    section = section_name(&header[..end]);
                    &header[end + 1..]
                }
                None => line,
            };
            let Some((key, value)) = entry(rest) else {
                continue;
            };
            match (section.as_str(), key.as_str()) {
                ("core", "hookspath") => config.hooks_path = Some(value),
                ("extensions", "worktreeconfig") => config.worktree_config = truthy(&value),
                ("include", "path") => config.includes.push(value),
                (s, "path") if s.starts_with("includeif.") => config.includes.push(value),
                (s, "path") if s.starts_with("submodule.") => config.submodule_paths.push(value),
                _ => {}
            }
        }
        config
    }
}

/// The file `value` (an include path or `core.hooksPath`) names, relative to `base`; `None`
/// for one under `~` (the home folder is not writable in the view).
pub(crate) fn config_path(value: &str, base: &Path) -> Option<PathBuf> {
    if value.starts_with('~') || value.is_empty() {
        return None;
    }
    Some(base.join(value))
}

/// The text's lines with `\`-newline continuations joined.
fn logical_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        match line.strip_suffix('\\') {
            Some(head) if !head.ends_with('\\') => current.push_str(head),
            _ => {
                current.push_str(line);
                lines.push(std::mem::take(&mut current));
            }
        }
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

/// `core`, `includeif.gitdir:~/x/` (the subsection kept as written, the section lowered).
fn section_name(header: &str) -> String {
    let header = header.trim();
    match header.split_once(|c: char| c.is_whitespace()) {
        Some((name, sub)) => {
            let sub = sub.trim().trim_matches('"').replace("\\\"", "\"");
            format!("{}.{sub}", name.to_ascii_lowercase())
        }
        // The old `[section.sub]` form.
        None => header.to_ascii_lowercase(),
    }
}

/// `key = value` (the key lowered, the value unquoted and without its comment); a key alone
/// is `true`.
fn entry(text: &str) -> Option<(String, String)> {
    let text = text.trim();
    if text.is_empty() || text.starts_with(['#', ';']) {
        return None;
    }
    let (key, raw) = match text.split_once('=') {
        Some((key, value)) => (key.trim(), value),
        None => (text, "true"),
    };
    if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return None;
    }
    Some((key.to_ascii_lowercase(), value(raw)))
}

/// A value with quotes removed, escapes read and a trailing comment dropped.
fn value(raw: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut chars = raw.trim().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            },
            '#' | ';' if !quoted => break,
            other => out.push(other),
        }
    }
    if quoted {
        out
    } else {
        out.trim_end().to_string()
    }
}

fn truthy(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "true" | "yes" | "on" | "1"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_that_decide_what_git_runs_are_read_in_every_spelling() {
        let text = "[core]\n\thooksPath = .githooks\n[CORE]\n\tHOOKSPATH = \".husky/_\" ; husky\n\
                    [extensions]\n\tworktreeConfig\n[include]\n\tpath = ../shared.cfg # note\n\
                    [includeIf \"gitdir:~/work/\"]\n\tpath = \"with \\\"quote\\\".cfg\"\n\
                    [core] fsmonitor = evil\n";
        assert_eq!(
            GitConfig::parse(text),
            GitConfig {
                hooks_path: Some(".husky/_".into()),
                worktree_config: true,
                includes: vec!["../shared.cfg".into(), "with \"quote\".cfg".into()],
                submodule_paths: vec![],
            }
        );
    }

    #[test]
    fn continued_lines_old_subsections_and_comments_read_as_git_reads_them() {
        let text = "# [core] hooksPath = no\n[core.x]\nhooksPath = no\n[core]\nhooksPath = \
                    a\\\nb\n[extensions]\nworktreeConfig = false\n";
        let config = GitConfig::parse(text);
        assert_eq!(config.hooks_path.as_deref(), Some("ab"));
        assert!(!config.worktree_config);
    }

    #[test]
    fn gitmodules_name_the_submodule_checkouts() {
        let text = "[submodule \"lib/a\"]\n\tpath = lib/a\n\turl = ../a\n\
                    [submodule \"b\"]\n\tpath = vendor/b\n";
        assert_eq!(
            GitConfig::parse(text).submodule_paths,
            ["lib/a", "vendor/b"]
        );
    }

    #[test]
    fn paths_under_home_are_not_in_the_view() {
        assert_eq!(config_path("~/hooks", Path::new("/ws")), None);
        assert_eq!(
            config_path(".husky/_", Path::new("/ws")),
            Some(PathBuf::from("/ws/.husky/_"))
        );
        assert_eq!(
            config_path("/abs/hooks", Path::new("/ws")),
            Some(PathBuf::from("/abs/hooks"))
        );
    }
}
