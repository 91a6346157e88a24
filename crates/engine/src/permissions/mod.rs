//! Permissions: may this tool call run? Decided in code, before the call, from the mode, the
//! user's rules and the built-in list of dangerous commands — never from the model's say-so.
//!
//! Order of evaluation (the first that applies decides):
//! 1. a `deny` rule matching the call (in every mode, `bypass` included);
//! 2. `plan` mode refuses anything mutating;
//! 3. an `ask` rule (not in `bypass`);
//! 4. an `allow` rule;
//! 5. a dangerous command asks (not in `bypass`);
//! 6. the mode: `bypass` allows; read-only calls are allowed; in `accept-edits` file edits in
//!    the workspace are allowed; everything else asks.
//!
//! For `bash`, a line is split into its simple commands: it is allowed by rules only when
//! every part matches an allow rule, and denied when any part matches a deny rule.

mod dangerous;
mod rule;

use std::fmt;
use std::path::{Path, PathBuf};

pub use dangerous::dangerous;
pub use rule::{CallFacts, Rule};

use rein_tools::shell::split_commands;
use rein_tools::{Effect, WorkspaceGuard};
use serde_json::Value;

use rule::EDIT_TOOLS;

/// How much the agent may do without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PermissionMode {
    /// Read-only tools run; edits and non-read-only shell commands ask.
    #[default]
    Default,
    /// File edits in the workspace run too; shell commands still ask.
    AcceptEdits,
    /// Read-only tools only; anything mutating is refused.
    Plan,
    /// Everything runs (deny rules and the workspace guard still hold).
    Bypass,
}

impl PermissionMode {
    /// The name used on the command line and in config (`accept-edits`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::AcceptEdits => "accept-edits",
            Self::Plan => "plan",
            Self::Bypass => "bypass",
        }
    }

    /// Parses a mode name; Claude Code's spellings (`acceptEdits`, `bypassPermissions`) too.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "default" => Some(Self::Default),
            "accept-edits" | "acceptEdits" => Some(Self::AcceptEdits),
            "plan" => Some(Self::Plan),
            "bypass" | "bypassPermissions" => Some(Self::Bypass),
            _ => None,
        }
    }
}

/// The outcome of a check: allow, ask (refused when nobody can be asked) or deny.
pub use rein_protocol::PermissionVerdict as Verdict;

/// A verdict and what decided it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// The outcome.
    pub verdict: Verdict,
    /// What decided, for the user and the model: `deny rule Bash(rm *) (project config)`,
    /// `mode plan`, `read-only call`, `dangerous command: a recursive delete of /`.
    pub reason: String,
}

impl Decision {
    pub(crate) fn new(verdict: Verdict, reason: impl Into<String>) -> Self {
        Self {
            verdict,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = match self.verdict {
            Verdict::Allow => "allowed",
            Verdict::Ask => "needs approval",
            Verdict::Deny => "denied",
        };
        write!(f, "{verdict} by {}", self.reason)
    }
}

/// A rule and where it came from.
#[derive(Debug, Clone)]
pub struct SourcedRule {
    /// The rule.
    pub rule: Rule,
    /// Where it was written: `--allowed-tools`, a config file path…
    pub source: String,
}

/// The allow, ask and deny lists.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    /// Calls that run without asking.
    pub allow: Vec<SourcedRule>,
    /// Calls that always ask.
    pub ask: Vec<SourcedRule>,
    /// Calls that never run.
    pub deny: Vec<SourcedRule>,
}

/// The permission policy of a session: mode plus rules.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// The mode; may change during a session (`/permissions`).
    pub mode: PermissionMode,
    /// The rules.
    pub rules: Rules,
    /// Rules added for this session by "allow always" answers.
    pub session_allow: Vec<SourcedRule>,
}

impl Policy {
    /// The guard's sensitive-path list extended with the path globs of deny rules that cover
    /// reading, so file tools refuse those paths and searches skip them, whatever the mode.
    pub fn guard_list(
        &self,
        base: rein_tools::SensitivePaths,
    ) -> Result<rein_tools::SensitivePaths, String> {
        let mut list = base;
        for sourced in &self.rules.deny {
            if !sourced.rule.covers("read_file") {
                continue;
            }
            if let Some(globs) = sourced.rule.path_globs() {
                let label = describe("deny", sourced);
                for glob in globs {
                    list = list.with_glob(&glob, &label)?;
                }
            }
        }
        Ok(list)
    }

    /// Decides whether the call of `tool` with `input` (whose effect is `effect`) may run.
    pub fn decide(
        &self,
        tool: &str,
        input: &Value,
        effect: Effect,
        guard: &WorkspaceGuard,
    ) -> Decision {
        let facts = facts(tool, input, guard);
        if let Some(rule) = self
            .rules
            .deny
            .iter()
            .find(|r| matches_any(&r.rule, &facts))
        {
            return Decision::new(Verdict::Deny, describe("deny", rule));
        }
        if let Some(pattern) = facts
            .words
            .iter()
            .find_map(|w| guard.sensitive(&absolute(w, guard)).map(str::to_string))
        {
            return Decision::new(Verdict::Deny, format!("off-limits path ({pattern})"));
        }
        if self.mode == PermissionMode::Plan && effect == Effect::Mutating {
            return Decision::new(Verdict::Deny, "mode plan");
        }
        let bypass = self.mode == PermissionMode::Bypass;
        if !bypass && let Some(rule) = self.rules.ask.iter().find(|r| matches_any(&r.rule, &facts))
        {
            return Decision::new(Verdict::Ask, describe("ask", rule));
        }
        let allow = self.rules.allow.iter().chain(&self.session_allow);
        if let Some(rule) = allow_covering(allow, &facts) {
            return Decision::new(Verdict::Allow, rule);
        }
        if bypass {
            return Decision::new(Verdict::Allow, "mode bypass");
        }
        if tool == "bash"
            && let Some(command) = input.get("command").and_then(Value::as_str)
            && let Some(what) = dangerous(command)
        {
            return Decision::new(Verdict::Ask, format!("dangerous command: {what}"));
        }
        if effect == Effect::ReadOnly {
            return Decision::new(Verdict::Allow, "read-only call");
        }
        if self.mode == PermissionMode::AcceptEdits
            && EDIT_TOOLS.contains(&tool)
            && !facts.paths.is_empty()
            && facts.paths.iter().all(|p| guard.contains(p))
        {
            return Decision::new(Verdict::Allow, "mode accept-edits");
        }
        Decision::new(Verdict::Ask, format!("mode {}", self.mode.name()))
    }
}

fn describe(list: &str, rule: &SourcedRule) -> String {
    format!("{list} rule {} ({})", rule.rule.text, rule.source)
}

/// Whether the rule matches the call or any part of it (deny and ask rules).
fn matches_any(rule: &Rule, facts: &CallFacts) -> bool {
    if !rule.covers(&facts.tool) {
        return false;
    }
    if rule.is_whole_tool() {
        return true;
    }
    facts.commands.iter().any(|c| rule.matches_command(c))
        || facts.paths.iter().any(|p| rule.matches_path(p))
}

/// The allow rule(s) covering every part of the call, described; `None` unless all parts are
/// covered.
fn allow_covering<'a>(
    rules: impl Iterator<Item = &'a SourcedRule> + Clone,
    facts: &CallFacts,
) -> Option<String> {
    let relevant: Vec<&SourcedRule> = rules.filter(|r| r.rule.covers(&facts.tool)).collect();
    if let Some(rule) = relevant.iter().find(|r| r.rule.is_whole_tool()) {
        return Some(describe("allow", rule));
    }
    if facts.opaque {
        return None;
    }
    let mut used: Vec<&SourcedRule> = Vec::new();
    let parts = facts.commands.len() + facts.paths.len();
    if parts == 0 {
        return None;
    }
    for candidates in &facts.commands {
        let rule = relevant
            .iter()
            .find(|r| r.rule.matches_command(candidates))?;
        used.push(rule);
    }
    for path in &facts.paths {
        let rule = relevant.iter().find(|r| r.rule.matches_path(path))?;
        used.push(rule);
    }
    used.dedup_by(|a, b| a.rule.text == b.rule.text);
    let names: Vec<String> = used.iter().map(|r| describe("allow", r)).collect();
    Some(names.join(", "))
}

/// What the rules look at in a call.
fn facts(tool: &str, input: &Value, guard: &WorkspaceGuard) -> CallFacts {
    let mut facts = CallFacts {
        tool: tool.to_string(),
        ..CallFacts::default()
    };
    if tool == "bash" {
        let line = input.get("command").and_then(Value::as_str).unwrap_or("");
        facts.commands = match split_commands(line) {
            Ok(commands) => commands
                .into_iter()
                .map(|c| {
                    facts.words.extend(file_words(&c));
                    let mut candidates = vec![c.text.clone(), c.argv.join(" ")];
                    if let Some(first) = c.argv.first()
                        && let Some(base) = first.rsplit('/').next()
                        && base != first
                    {
                        let mut argv = c.argv.clone();
                        argv[0] = base.to_string();
                        candidates.push(argv.join(" "));
                    }
                    candidates
                })
                .collect(),
            Err(_) => {
                facts.opaque = true;
                let mut parts = vec![vec![line.trim().to_string()]];
                parts.extend(naive_parts(line).into_iter().map(|p| vec![p]));
                parts
            }
        };
        return facts;
    }
    facts.paths = paths_of(tool, input)
        .into_iter()
        .map(|p| absolute(&p, guard))
        .collect();
    facts
}

/// The words of a command that may name files: redirection targets, and the arguments that
/// are not options (the program itself and `echo`/`printf` text excluded).
fn file_words(command: &rein_tools::shell::SimpleCommand) -> Vec<String> {
    let mut words: Vec<String> = command
        .redirects
        .iter()
        .filter(|r| !r.op.contains('&') || r.op.starts_with('&'))
        .map(|r| r.target.clone())
        .collect();
    let program = command.argv.first().map(String::as_str).unwrap_or("");
    if !matches!(program, "echo" | "printf") {
        words.extend(
            command
                .argv
                .iter()
                .skip(1)
                .filter(|a| !a.starts_with('-') && !a.is_empty())
                .cloned(),
        );
    }
    words
}

/// The pieces of a line rein cannot parse, split on every separator-like character, so a
/// deny rule still sees `rm -rf x` inside `echo $(rm -rf x)`.
fn naive_parts(line: &str) -> Vec<String> {
    line.split(['\n', ';', '|', '&', '(', ')', '`', '{', '}', '$'])
        .map(|part| {
            part.split_whitespace()
                .map(|w| w.trim_matches(['\'', '"']))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|part| !part.is_empty())
        .collect()
}

/// The paths a file tool's call names.
fn paths_of(tool: &str, input: &Value) -> Vec<String> {
    let path = input.get("path").and_then(Value::as_str);
    match tool {
        "read_file" | "write_file" | "edit_file" => path.map(str::to_string).into_iter().collect(),
        "glob" | "grep" => vec![path.unwrap_or(".").to_string()],
        "apply_patch" => input
            .get("patch")
            .and_then(Value::as_str)
            .map(patch_paths)
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The file paths an `apply_patch` patch touches (add, update, delete and move targets).
fn patch_paths(patch: &str) -> Vec<String> {
    const MARKERS: [&str; 4] = [
        "*** Add File:",
        "*** Update File:",
        "*** Delete File:",
        "*** Move to:",
    ];
    patch
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            MARKERS
                .iter()
                .find_map(|m| line.strip_prefix(m))
                .map(|p| p.trim().to_string())
        })
        .collect()
}

/// The path as rules see it: resolved by the guard when it can (symlinks followed), else
/// joined to the root and normalised lexically.
fn absolute(path: &str, guard: &WorkspaceGuard) -> PathBuf {
    if let Ok(resolved) = guard.resolve_read(path) {
        return resolved;
    }
    let joined = match path.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default()
            .join(rest),
        None => guard.root().join(path),
    };
    normalise(&joined)
}

fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
