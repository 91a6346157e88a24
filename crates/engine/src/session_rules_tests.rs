//! A fetch's facts, as the `web_fetch` tool computes them, decided by the policy: a domain
//! asks unless a rule decides, and "don't ask again" stores a rule for the domain.

use pretty_assertions::assert_eq;
use rein_policy::{PermissionMode, Policy, Rule, Rules, SourcedRule, Verdict};
use rein_tools::{CallFacts, WorkspaceGuard};
use serde_json::json;

struct Setup {
    _dir: tempfile::TempDir,
    guard: WorkspaceGuard,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let guard = WorkspaceGuard::new(dir.path()).unwrap();
    Setup { _dir: dir, guard }
}

fn rules(guard: &WorkspaceGuard, allow: &[&str], ask: &[&str], deny: &[&str]) -> Rules {
    let make = |list: &[&str]| {
        list.iter()
            .map(|t| SourcedRule {
                rule: Rule::parse(t, guard.root(), None).unwrap(),
                source: "test".into(),
            })
            .collect()
    };
    Rules {
        allow: make(allow),
        ask: make(ask),
        deny: make(deny),
    }
}

/// `web_fetch`'s facts for `url`, as dispatch computes them.
fn fetch_facts(guard: &WorkspaceGuard, url: &str) -> CallFacts {
    use rein_tools::Tool;
    let tool = crate::web::WebFetch::for_tests();
    tool.facts(&json!({"url": url, "prompt": "p"}), guard)
}

#[test]
fn a_fetch_asks_per_domain_unless_a_rule_decides_in_plan_mode_too() {
    let s = setup();
    let docs = fetch_facts(&s.guard, "https://docs.rs/serde");
    let other = fetch_facts(&s.guard, "https://evil.example/x");
    let nested = fetch_facts(&s.guard, "https://doc.rust-lang.org/book/");
    assert_eq!(docs.subject.as_deref(), Some("domain:docs.rs"));
    let verdict = |policy: &Policy, facts: &CallFacts| policy.decide(facts, &s.guard).verdict;
    let mut policy = Policy {
        rules: rules(
            &s.guard,
            &[
                "WebFetch(domain:docs.rs)",
                "WebFetch(domain:*.rust-lang.org)",
            ],
            &[],
            &["WebFetch(domain:evil.example)"],
        ),
        ..Policy::default()
    };
    for mode in [
        PermissionMode::Default,
        PermissionMode::Plan,
        PermissionMode::AcceptEdits,
        PermissionMode::Auto,
    ] {
        policy.mode = mode;
        assert_eq!(verdict(&policy, &docs), Verdict::Allow, "{mode:?}");
        assert_eq!(verdict(&policy, &nested), Verdict::Allow, "{mode:?}");
        assert_eq!(verdict(&policy, &other), Verdict::Deny, "{mode:?}");
        let new = fetch_facts(&s.guard, "https://crates.io/");
        assert_eq!(
            verdict(&policy, &new),
            Verdict::Ask,
            "{mode:?}: a new domain asks"
        );
    }
    policy.mode = PermissionMode::Bypass;
    assert_eq!(
        verdict(&policy, &other),
        Verdict::Deny,
        "deny holds in bypass"
    );
    let new = fetch_facts(&s.guard, "https://crates.io/");
    assert_eq!(verdict(&policy, &new), Verdict::Allow);
    // An ask rule asks whatever the allow rules say.
    let asking = Policy {
        rules: rules(&s.guard, &["WebFetch(domain:docs.rs)"], &["WebFetch"], &[]),
        ..Policy::default()
    };
    assert_eq!(verdict(&asking, &docs), Verdict::Ask);
    // "Yes, and don't ask again" covers the domain.
    assert_eq!(
        super::exact_rules(&docs, &s.guard),
        ["WebFetch(domain:docs.rs)"]
    );
}
