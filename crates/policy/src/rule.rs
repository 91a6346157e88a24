//! Permission rules: `Tool` or `Tool(specifier)`, in Claude Code's notation.
//!
//! Claude Code's tool names map onto ours (`Bash` → `bash`, `Read` → every reading file tool,
//! `Edit` → every file-changing tool, `Write` → `write_file`…), so a team's existing rules
//! apply. Specifiers: for `bash`, a command pattern where `*` matches anything (`cargo test *`,
//! legacy `npm run test:*` is a prefix); for file tools, a gitignore-style path glob
//! (`./.env`, `src/**`, `*.lock`, `~/secrets/**`, `//etc/**` for an absolute path); for other
//! tools, a name the call's subject must match (`Skill(commit)`, `Agent(explore)`) or a
//! specifier kept as written for tools rein does not have (`WebFetch(domain:docs.rs)`).
//! Every form Claude Code accepts loads; a rule for a tool rein lacks simply matches nothing.

use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};

/// Tools that read files by path.
pub(crate) const READ_TOOLS: &[&str] = &["read_file", "view_image", "glob", "grep"];
/// Tools that create, change or delete files by path.
pub(crate) const EDIT_TOOLS: &[&str] = &["edit_file", "write_file", "apply_patch", "notebook_edit"];

/// Why a rule's text could not be parsed; each names the rule as written.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RuleError {
    /// `Tool(spec` without its `)`.
    #[error("permission rule {text:?}: missing the closing parenthesis")]
    Unclosed {
        /// The rule as written.
        text: String,
    },
    /// `(spec)` with nothing before it.
    #[error("permission rule {text:?}: no tool name")]
    NoToolName {
        /// The rule as written.
        text: String,
    },
    /// A file tool's specifier that is not a valid glob.
    #[error("permission rule {text:?}: invalid path pattern: {source}")]
    PathPattern {
        /// The rule as written.
        text: String,
        /// What the glob parser refused.
        source: globset::Error,
    },
}

/// One parsed rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The rule as written, for explanations.
    pub text: String,
    tools: Vec<String>,
    matcher: Matcher,
}

#[derive(Debug, Clone)]
enum Matcher {
    /// Every call of the tools.
    Any,
    /// A `bash` command pattern.
    Command(CommandPattern),
    /// A path glob for file tools.
    Path(PathPattern),
    /// Any other specifier: matched against the call's subject (a skill or agent name),
    /// `*` as a wildcard.
    Subject(Vec<String>),
}

impl Rule {
    /// Parses `Tool` or `Tool(specifier)`; `home` and `root` anchor `~/` and relative globs.
    pub fn parse(text: &str, root: &Path, home: Option<&Path>) -> Result<Self, RuleError> {
        let text = text.trim();
        let (name, spec) = match text.split_once('(') {
            Some((name, rest)) => {
                let spec = rest.strip_suffix(')').ok_or_else(|| RuleError::Unclosed {
                    text: text.to_string(),
                })?;
                (name.trim(), Some(spec.trim()))
            }
            None => (text, None),
        };
        if name.is_empty() {
            return Err(RuleError::NoToolName {
                text: text.to_string(),
            });
        }
        let tools = tool_names(name);
        let matcher = match spec {
            None | Some("" | "*" | "**") => Matcher::Any,
            Some(spec) if tools.iter().any(|t| t == "bash") => {
                Matcher::Command(CommandPattern::new(spec))
            }
            Some(spec) if tools.iter().all(|t| takes_paths(t)) => {
                Matcher::Path(PathPattern::new(spec, root, home).map_err(|source| {
                    RuleError::PathPattern {
                        text: text.to_string(),
                        source,
                    }
                })?)
            }
            Some(spec) => Matcher::Subject(spec.split('*').map(str::to_string).collect()),
        };
        Ok(Self {
            text: text.to_string(),
            tools,
            matcher,
        })
    }

    /// Whether the rule names this tool at all. `mcp__<server>` covers the tools named
    /// `mcp__<server>__…`: the server is the whole component up to the next `__`, because
    /// rein refuses server names holding `__` (or `_` at an end) when it loads them
    /// (`rein_mcp::check_name`), so `mcp__docs` cannot reach a server `docs__x`.
    pub fn covers(&self, tool: &str) -> bool {
        self.tools.iter().any(|t| {
            t == tool
                || (t.ends_with("__*") && tool.starts_with(&t[..t.len() - 1]))
                || (t.starts_with("mcp__")
                    && !t[5..].contains("__")
                    && tool.starts_with(&format!("{t}__")))
        })
    }

    /// Whether every call `other` matches, this rule matches too (judged conservatively:
    /// `other`'s tools are all this one's, and this one takes every call of them or has the
    /// very same specifier). A list derived from another may keep only rules it includes.
    pub fn includes(&self, other: &Rule) -> bool {
        let spec = |rule: &Rule| {
            rule.text
                .split_once('(')
                .map(|(_, rest)| rest.trim_end_matches(')').trim().to_string())
        };
        other.tools.iter().all(|tool| self.covers(tool))
            && (matches!(self.matcher, Matcher::Any) || spec(self) == spec(other))
    }

    /// The tool names the rule applies to (ours where Claude Code's name maps onto one).
    pub fn tools(&self) -> &[String] {
        &self.tools
    }

    /// Whether the rule matches one part of the call: a simple command (its candidates) or
    /// a path. `None` when the rule does not apply to the tool.
    pub(crate) fn matches_command<I>(&self, candidates: I) -> bool
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        match &self.matcher {
            Matcher::Any => true,
            Matcher::Command(pattern) => {
                candidates.into_iter().any(|c| pattern.matches(c.as_ref()))
            }
            Matcher::Path(_) | Matcher::Subject(_) => false,
        }
    }

    pub(crate) fn matches_path(&self, path: &Path) -> bool {
        match &self.matcher {
            Matcher::Any => true,
            Matcher::Path(pattern) => pattern.matches(path),
            Matcher::Command(_) | Matcher::Subject(_) => false,
        }
    }

    pub(crate) fn matches_subject(&self, subject: &str) -> bool {
        match &self.matcher {
            Matcher::Any => true,
            Matcher::Subject(parts) => wildcard_match(parts, subject),
            Matcher::Command(_) | Matcher::Path(_) => false,
        }
    }

    /// For a command rule: the first word of its pattern (`rm` for `Bash(rm -rf *)`), which
    /// a line rein cannot analyse is searched for.
    pub(crate) fn program(&self) -> Option<&str> {
        match &self.matcher {
            Matcher::Command(pattern) => pattern.program(),
            _ => None,
        }
    }

    /// For a command rule: the command it names with its wildcards dropped
    /// (`git push --force` for `Bash(git push --force *)`), to tell whether the rule names a
    /// dangerous form itself.
    pub(crate) fn named_command(&self) -> Option<String> {
        match &self.matcher {
            Matcher::Command(pattern) => Some(pattern.literal()),
            _ => None,
        }
    }

    /// Whether a path rule covers reading (`Read`), changing (`Edit`, `Write`) or both.
    pub(crate) fn path_access(&self) -> Option<PathAccess> {
        if !matches!(self.matcher, Matcher::Path(_)) {
            return None;
        }
        Some(PathAccess {
            reads: self.tools.iter().any(|t| READ_TOOLS.contains(&t.as_str())),
            writes: self.tools.iter().any(|t| EDIT_TOOLS.contains(&t.as_str())),
        })
    }

    /// Whether the rule has no specifier (matches every call of its tools).
    pub(crate) fn is_whole_tool(&self) -> bool {
        matches!(self.matcher, Matcher::Any)
    }

    /// For a path rule: its anchored globs (the path itself, and everything under it).
    pub fn path_globs(&self) -> Option<[String; 2]> {
        match &self.matcher {
            Matcher::Path(p) => Some([
                p.exact.glob().glob().to_string(),
                p.within.glob().glob().to_string(),
            ]),
            _ => None,
        }
    }
}

/// What a path rule is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PathAccess {
    /// It names reading tools.
    pub reads: bool,
    /// It names file-changing tools.
    pub writes: bool,
}

/// Our tool names for a rule's tool name (Claude Code's or ours).
fn tool_names(name: &str) -> Vec<String> {
    let mapped: &[&str] = match name {
        "Bash" => &["bash"],
        "Read" => READ_TOOLS,
        "Edit" | "MultiEdit" => EDIT_TOOLS,
        "Write" => &["write_file"],
        "Glob" => &["glob"],
        "Grep" => &["grep"],
        "Task" | "Agent" => &["task"],
        "TodoWrite" => &["todo_write"],
        "TaskCreate" => &["task_create"],
        "TaskGet" => &["task_get"],
        "TaskList" => &["task_list"],
        "TaskUpdate" => &["task_update"],
        "SendMessage" => &["send_message"],
        "EnterWorktree" => &["enter_worktree"],
        "ExitWorktree" => &["exit_worktree"],
        "CronCreate" => &["cron_create"],
        "CronDelete" => &["cron_delete"],
        "CronList" => &["cron_list"],
        "ScheduleWakeup" => &["schedule_wakeup"],
        "Memory" => &["memory"],
        "Skill" => &["skill"],
        "WebFetch" => &["web_fetch"],
        "NotebookEdit" => &["notebook_edit"],
        "WebSearch" => &["web_search"],
        "LS" => &["glob"],
        _ => return vec![name.to_string()],
    };
    mapped.iter().map(|s| s.to_string()).collect()
}

fn takes_paths(tool: &str) -> bool {
    READ_TOOLS.contains(&tool) || EDIT_TOOLS.contains(&tool)
}

/// A command pattern: `*` matches any run of characters; a trailing ` *` also matches the bare
/// command; a trailing `:*` (Claude Code's older form) is a word prefix.
#[derive(Debug, Clone)]
struct CommandPattern {
    parts: Vec<String>,
    prefix: Option<String>,
    /// For a pattern ending in ` *`: the bare command it also matches (`cargo test`).
    bare: Option<String>,
}

impl CommandPattern {
    fn new(spec: &str) -> Self {
        if let Some(prefix) = spec.strip_suffix(":*") {
            return Self {
                parts: Vec::new(),
                prefix: Some(prefix.trim().to_string()),
                bare: None,
            };
        }
        let parts: Vec<String> = spec.split('*').map(str::to_string).collect();
        // `cargo test *` also matches plain `cargo test`.
        let bare = match parts.as_slice() {
            [head, tail] if tail.is_empty() && head.ends_with(' ') => {
                Some(head.trim_end().to_string())
            }
            _ => None,
        };
        Self {
            parts,
            prefix: None,
            bare,
        }
    }

    fn program(&self) -> Option<&str> {
        let text = self
            .prefix
            .as_deref()
            .or(self.parts.first().map(String::as_str))?;
        text.split_whitespace().next()
    }

    fn literal(&self) -> String {
        match &self.prefix {
            Some(prefix) => prefix.clone(),
            None => self
                .parts
                .join(" ")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
        }
    }

    fn matches(&self, command: &str) -> bool {
        let command = trimmed(command);
        if let Some(prefix) = &self.prefix {
            return command == prefix
                || command
                    .strip_prefix(prefix.as_str())
                    .is_some_and(|rest| rest.starts_with(char::is_whitespace));
        }
        wildcard_match(&self.parts, command) || self.bare.as_deref() == Some(command)
    }
}

/// `text` without surrounding whitespace ([`str::trim`]), without decoding characters when
/// its ends are plain ASCII (as a command's text almost always is).
fn trimmed(text: &str) -> &str {
    let plain = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii() && !b.is_ascii_whitespace());
    if plain(text.as_bytes().first()) && plain(text.as_bytes().last()) {
        text
    } else {
        text.trim()
    }
}

/// Whether `text` is `parts` joined by arbitrary runs of characters.
fn wildcard_match(parts: &[String], text: &str) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return text.is_empty();
    };
    // Most texts differ from the pattern at their first byte.
    if first
        .as_bytes()
        .first()
        .is_some_and(|b| text.as_bytes().first() != Some(b))
    {
        return false;
    }
    let Some(mut remaining) = text.strip_prefix(first.as_str()) else {
        return false;
    };
    if rest.is_empty() {
        return remaining.is_empty();
    }
    for (i, part) in rest.iter().enumerate() {
        let last = i == rest.len() - 1;
        if last {
            return remaining.ends_with(part.as_str());
        }
        match remaining.find(part.as_str()) {
            Some(at) => remaining = &remaining[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// A gitignore-style path glob, anchored like Claude Code's: `//abs`, `~/home`, `./rel` or
/// `/rel` (relative to the workspace root), and a name without `/` at any depth.
#[derive(Debug, Clone)]
struct PathPattern {
    exact: GlobMatcher,
    within: GlobMatcher,
    /// The pattern's text up to its first wildcard: every path either glob matches starts
    /// with it, and most paths a call names do not, which this tells without a regex.
    literal_prefix: String,
}

impl PathPattern {
    fn new(spec: &str, root: &Path, home: Option<&Path>) -> Result<Self, globset::Error> {
        let root = root.display().to_string();
        let anchored = if let Some(abs) = spec.strip_prefix("//") {
            format!("/{abs}")
        } else if let Some(rest) = spec.strip_prefix("~/") {
            match home {
                Some(home) => format!("{}/{rest}", home.display()),
                None => format!("/nonexistent-home/{rest}"),
            }
        } else if let Some(rest) = spec.strip_prefix("./").or_else(|| spec.strip_prefix('/')) {
            format!("{root}/{rest}")
        } else if spec.contains('/') {
            format!("{root}/{spec}")
        } else {
            format!("{root}/**/{spec}")
        };
        let anchored = anchored.trim_end_matches('/').to_string();
        let build = |pattern: &str| {
            GlobBuilder::new(pattern)
                .literal_separator(true)
                .build()
                .map(|g| g.compile_matcher())
        };
        let literal_end = anchored
            .find(['*', '?', '[', '{', '\\'])
            .unwrap_or(anchored.len());
        Ok(Self {
            exact: build(&anchored)?,
            within: build(&format!("{anchored}/**"))?,
            literal_prefix: anchored[..literal_end].to_string(),
        })
    }

    /// Matches the path itself or anything under a matching folder.
    fn matches(&self, path: &Path) -> bool {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str()
            .as_bytes()
            .starts_with(self.literal_prefix.as_bytes())
            && (self.exact.is_match(path) || self.within.is_match(path))
    }
}

#[cfg(test)]
#[path = "rule_tests.rs"]
mod tests;
