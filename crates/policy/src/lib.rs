//! Permissions: may this tool call run? Decided in code, before the call, from the mode, the
//! user's rules and the built-in lists of dangerous commands and protected paths — never from
//! the model's say-so. Everything is read from the call's [`CallFacts`], computed once by the
//! tool that will run it.
//!
//! Order of evaluation (the first that applies decides):
//! 1. a `deny` rule matching any part of the call (in every mode, `bypass` included); for a
//!    shell line, any command as written or as it really runs (wrappers, `sh -c` bodies…),
//!    and, for a line rein cannot analyse, any deny rule whose program appears in it;
//! 2. a path the call touches is on the sensitive list (`.env`, `~/.ssh`…, `Read` deny globs);
//! 3. `plan` mode refuses anything mutating;
//! 4. an `ask` rule (not in `bypass`);
//! 5. a write to a file that grants powers or runs code later (`.rein/`, `.claude/`, `.git/`,
//!    `.mcp.json`, CI workflows…) asks (not in `bypass`);
//! 6. a dangerous command asks (not in `bypass`), unless an allow rule names that very form;
//! 7. an `allow` rule covering every part of the call;
//! 8. the mode: `bypass` allows; proven read-only calls are allowed; in `accept-edits` file
//!    edits in the workspace are allowed; everything else asks.

mod dangerous;
mod lists;
mod matching;
mod protected;
mod rule;

use std::fmt;

pub use dangerous::{dangerous, dangerous_in};
pub use lists::{RuleEdit, RuleList};
pub use protected::protected;
pub use rule::{Rule, RuleError};

use rein_tool::{CallFacts, CallKind, Effect, WorkspaceGuard};

use rule::READ_TOOLS;

/// The tool that leaves plan mode (`ExitPlanMode`): allowed in plan mode, where it asks.
pub const PLAN_TOOL: &str = "exit_plan_mode";

/// How much the agent may do without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PermissionMode {
    /// Read-only tools run; edits and non-read-only shell commands ask.
    #[default]
    Default,
    /// File edits in the workspace run too, and shell lines proven to change only workspace
    /// files (`mkdir`, `touch`, `rm`, `mv`, `cp`, redirections); other commands ask.
    AcceptEdits,
    /// Read-only tools only; anything mutating is refused.
    Plan,
    /// Everything runs (deny rules and the workspace guard still hold).
    Bypass,
    /// Shell commands and file edits inside the workspace run without asking, the shell
    /// confined by the OS sandbox (`workspace-write`, no network); a command asking to leave
    /// the sandbox asks. Needs the sandbox: refused where this machine has none.
    Auto,
}

impl PermissionMode {
    /// The name used on the command line and in config (`accept-edits`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::AcceptEdits => "accept-edits",
            Self::Plan => "plan",
            Self::Bypass => "bypass",
            Self::Auto => "auto",
        }
    }

    /// How much runs without asking, from `plan` (nothing mutating) to `bypass` (everything):
    /// a front end that lets someone else pick the mode (an MCP client) keeps it at or below
    /// its own.
    pub fn breadth(self) -> u8 {
        match self {
            Self::Plan => 0,
            Self::Default => 1,
            Self::AcceptEdits => 2,
            Self::Auto => 3,
            Self::Bypass => 4,
        }
    }

    /// The mode ceiling: `self`, or `ceiling` when `self` is broader. Every mode derived from
    /// another (a teammate's, a subagent's, a caller's, an approved plan's) passes through
    /// here: derived ≤ parent; only the user widens.
    pub fn at_most(self, ceiling: Self) -> Self {
        if self.breadth() > ceiling.breadth() {
            ceiling
        } else {
            self
        }
    }

    /// Parses a mode name; Claude Code's spellings (`acceptEdits`, `bypassPermissions`) too.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "default" => Some(Self::Default),
            "accept-edits" | "acceptEdits" => Some(Self::AcceptEdits),
            "plan" => Some(Self::Plan),
            "bypass" | "bypassPermissions" => Some(Self::Bypass),
            "auto" => Some(Self::Auto),
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
    /// `verdict`, decided by what `reason` says.
    pub fn new(verdict: Verdict, reason: impl Into<String>) -> Self {
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

/// A deny rule's path glob the guard's sensitive-path list refused; shows the guard's message.
#[derive(Debug, thiserror::Error)]
#[error("{source}")]
pub struct DenyGlobError {
    /// The deny rule, described as in decisions (`deny rule … (source)`).
    pub rule: String,
    /// What the guard's list said, naming the glob.
    pub source: rein_fs::SensitiveError,
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
        base: rein_fs::SensitivePaths,
    ) -> Result<rein_fs::SensitivePaths, DenyGlobError> {
        let mut list = base;
        for sourced in &self.rules.deny {
            if !READ_TOOLS.iter().any(|t| sourced.rule.covers(t)) {
                continue;
            }
            if let Some(globs) = sourced.rule.path_globs() {
                let label = describe("deny", sourced);
                for glob in globs {
                    list = list
                        .with_glob(&glob, &label)
                        .map_err(|source| DenyGlobError {
                            rule: label.clone(),
                            source,
                        })?;
                }
            }
        }
        Ok(list)
    }

    /// Decides whether the call described by `facts` may run.
    pub fn decide(&self, facts: &CallFacts, guard: &WorkspaceGuard) -> Decision {
        let call = matching::Call::new(facts);
        if let Some(rule) = self
            .rules
            .deny
            .iter()
            .find(|r| matching::matches_any(&r.rule, &call))
        {
            return Decision::new(Verdict::Deny, describe("deny", rule));
        }
        if facts.tool == PLAN_TOOL {
            // Only the user leaves plan mode, whatever the rules say.
            return if self.mode == PermissionMode::Plan {
                Decision::new(Verdict::Ask, "your approval of the plan")
            } else {
                Decision::new(Verdict::Deny, "not in plan mode")
            };
        }
        // A hard link to a secret too: in every mode, as the file tools refuse it.
        if let Some(pattern) = facts.paths().find_map(|p| guard.off_limits(p)) {
            return Decision::new(Verdict::Deny, format!("off-limits path ({pattern})"));
        }
        // A file tool cannot write outside the workspace whatever the answer: asking would
        // only lead to a failed call.
        if facts.kind == CallKind::Edit
            && let Some(outside) = facts.writes.iter().find(|p| !guard.in_workspace(p))
        {
            return Decision::new(
                Verdict::Deny,
                format!("{} is outside the workspace", outside.display()),
            );
        }
        if self.mode == PermissionMode::Plan && facts.effect == Effect::Mutating {
            return Decision::new(Verdict::Deny, "mode plan");
        }
        let bypass = self.mode == PermissionMode::Bypass;
        let allow: Vec<&SourcedRule> = self.rules.allow.iter().chain(&self.session_allow).collect();
        if !bypass && let Some(decision) = self.asks(&allow, &call, guard) {
            return decision;
        }
        if let Some(reason) = facts.unsandboxed.as_deref()
            && !bypass
        {
            // Leaving the sandbox is the user's call, whatever the rules allow.
            return Decision::new(
                Verdict::Ask,
                format!("a request to run outside the sandbox: {}", one_line(reason)),
            );
        }
        // A proven read-only call needs no allow rule (and naming the rules that would cover
        // every command of a long line costs more than the rest of the decision).
        if facts.effect == Effect::ReadOnly && facts.kind != CallKind::Fetch && !bypass {
            return Decision::new(Verdict::Allow, "read-only call");
        }
        if let Some(rules) = matching::allow_covering(&allow, &call) {
            let names: Vec<String> = rules.iter().map(|r| describe("allow", r)).collect();
            return Decision::new(Verdict::Allow, names.join(", "));
        }
        self.by_mode(facts, guard)
    }

    /// The last step: what the mode says of a call no rule decided.
    fn by_mode(&self, facts: &CallFacts, guard: &WorkspaceGuard) -> Decision {
        if self.mode == PermissionMode::Bypass {
            return Decision::new(Verdict::Allow, "mode bypass");
        }
        if self.mode == PermissionMode::Auto && facts.kind == CallKind::Shell {
            return Decision::new(Verdict::Allow, "mode auto (in the workspace-write sandbox)");
        }
        if self.mode == PermissionMode::AcceptEdits
            && let Some(shell) = &facts.shell
            && shell.workspace_files_only
            && !shell.unresolved_paths
        {
            return Decision::new(
                Verdict::Allow,
                "mode accept-edits (file commands inside the workspace)",
            );
        }
        if matches!(
            self.mode,
            PermissionMode::AcceptEdits | PermissionMode::Auto
        ) && facts.kind == CallKind::Edit
            && !facts.writes.is_empty()
            && facts.writes.iter().all(|p| guard.in_workspace(p))
        {
            return Decision::new(Verdict::Allow, format!("mode {}", self.mode.name()));
        }
        Decision::new(Verdict::Ask, format!("mode {}", self.mode.name()))
    }
}

impl Policy {
    /// Steps 4–6: what asks whatever the allow rules say (outside `bypass`).
    fn asks(
        &self,
        allow: &[&SourcedRule],
        call: &matching::Call<'_>,
        guard: &WorkspaceGuard,
    ) -> Option<Decision> {
        let facts = call.facts;
        if let Some(rule) = self
            .rules
            .ask
            .iter()
            .find(|r| matching::matches_any(&r.rule, call))
        {
            return Some(Decision::new(Verdict::Ask, describe("ask", rule)));
        }
        if let Some(path) = protected::touched(facts, guard) {
            return Some(Decision::new(
                Verdict::Ask,
                format!("a change to {path}, which can grant powers or run code later"),
            ));
        }
        let what = facts
            .shell
            .as_ref()
            .and_then(|s| dangerous_in(&s.line, &s.analysis))?;
        // Only a rule that names the dangerous form itself (`Bash(git push --force *)`),
        // never a broad one (`Bash(git push *)`, `Bash`), lets it through to the allow rules.
        if allow
            .iter()
            .any(|r| matching::names_dangerous(&r.rule) && matching::matches_any(&r.rule, call))
        {
            return None;
        }
        Some(Decision::new(
            Verdict::Ask,
            format!("dangerous command: {what}"),
        ))
    }
}

/// The first line of `text`, at most 200 characters.
fn one_line(text: &str) -> String {
    text.lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(200)
        .collect()
}

fn describe(list: &str, rule: &SourcedRule) -> String {
    format!("{list} rule {} ({})", rule.rule.text, rule.source)
}

#[cfg(test)]
#[path = "shell_tests.rs"]
mod shell_tests;
#[cfg(test)]
#[path = "tests.rs"]
mod tests;
