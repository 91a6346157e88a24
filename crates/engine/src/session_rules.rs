//! The rules that would allow a call: the exact ones "yes, this session" adds, and the general
//! ones a refusal suggests writing into a settings file.

use rein_tools::{CallFacts, CallKind, WorkspaceGuard};

/// Rules naming this call exactly: each command of a shell line, each path, or the tool.
/// A line rein cannot analyse gets none (it asks again next time).
pub(crate) fn exact_rules(facts: &CallFacts, guard: &WorkspaceGuard) -> Vec<String> {
    if let Some(shell) = &facts.shell {
        if shell.analysis.unanalysable.is_some() {
            return Vec::new();
        }
        return shell
            .analysis
            .commands
            .iter()
            .map(|c| format!("Bash({})", c.text))
            .collect();
    }
    if let Some(rule) = domain_rule(facts) {
        return vec![rule];
    }
    path_rules(facts, guard).unwrap_or_else(|| vec![facts.claude_name.clone()])
}

/// `WebFetch(domain:docs.rs)` for a fetch: "don't ask again" covers the domain.
fn domain_rule(facts: &CallFacts) -> Option<String> {
    let domain = facts.subject.as_deref()?.strip_prefix("domain:")?;
    (facts.kind == CallKind::Fetch).then(|| format!("{}(domain:{domain})", facts.claude_name))
}

/// Rules for calls like this one: `Bash(cargo test *)` per command (a subcommand kept for
/// tools that have them), the paths for file tools.
pub(crate) fn general_rules(facts: &CallFacts, guard: &WorkspaceGuard) -> Vec<String> {
    let Some(shell) = &facts.shell else {
        if let Some(rule) = domain_rule(facts) {
            return vec![rule];
        }
        return path_rules(facts, guard).unwrap_or_default();
    };
    if shell.analysis.unanalysable.is_some() {
        return Vec::new();
    }
    let with_sub = [
        "git", "cargo", "npm", "pnpm", "yarn", "go", "docker", "kubectl", "uv",
    ];
    let mut rules: Vec<String> = Vec::new();
    for command in &shell.analysis.commands {
        let mut words = command.argv.iter();
        let Some(program) = words.next() else {
            continue;
        };
        let rule = match words.next() {
            Some(sub) if with_sub.contains(&program.as_str()) && !sub.starts_with('-') => {
                format!("Bash({program} {sub} *)")
            }
            _ => format!("Bash({program} *)"),
        };
        if !rules.contains(&rule) {
            rules.push(rule);
        }
    }
    rules
}

/// `Edit(src/lib.rs)`/`Read(…)` rules for a file tool's paths, relative to the root.
fn path_rules(facts: &CallFacts, guard: &WorkspaceGuard) -> Option<Vec<String>> {
    let kind = match facts.kind {
        CallKind::Edit => "Edit",
        CallKind::Read => "Read",
        _ => return None,
    };
    let rules: Vec<String> = facts
        .paths()
        .map(|p| format!("{kind}(./{})", guard.display(p)))
        .collect();
    (!rules.is_empty()).then_some(rules)
}

#[cfg(test)]
#[path = "session_rules_tests.rs"]
mod tests;
