//! The policy's decisions about shell lines: secrets named in words, `auto`, what a proven
//! line's rules see, and the file commands `accept-edits` runs.

use serde_json::json;

use super::tests::{bash, decide, facts, rules, setup};
use super::*;

#[test]
fn shell_words_naming_secrets_are_denied_in_every_mode() {
    let s = setup();
    for mode in [PermissionMode::Default, PermissionMode::Bypass] {
        let policy = Policy {
            mode,
            ..Policy::default()
        };
        for line in [
            "cat .env",
            "grep KEY app/.env.local",
            "cp .env /tmp/x",
            "tail < .env",
        ] {
            let decision = decide(&policy, &s.guard, &bash(line));
            assert_eq!(decision.verdict, Verdict::Deny, "{line}: {decision}");
            assert_eq!(decision.reason, "off-limits path (.env*)");
        }
        let ok = decide(&policy, &s.guard, &bash("cat src/main.rs && echo .env"));
        assert_eq!(ok.verdict, Verdict::Allow, "{ok}");
    }
}

#[test]
fn auto_runs_commands_and_workspace_edits_but_asks_to_leave_the_sandbox() {
    let s = setup();
    let policy = Policy {
        mode: PermissionMode::Auto,
        rules: rules(&s.guard, &["Bash(npm install *)"], &[], &["Bash(rm *)"]),
        ..Policy::default()
    };
    let edit = (
        "write_file".to_string(),
        json!({"path": "src/a.rs", "content": ""}),
    );
    let outside = (
        "write_file".to_string(),
        json!({"path": "/tmp/x", "content": ""}),
    );
    let escape = (
        "bash".to_string(),
        json!({"command": "npm install left-pad", "unsandboxed": "needs the registry\nsecond line"}),
    );
    let cases = [
        (
            bash("cargo build"),
            Verdict::Allow,
            "mode auto (in the workspace-write sandbox)",
        ),
        (edit, Verdict::Allow, "mode auto"),
        (outside, Verdict::Deny, "/tmp/x is outside the workspace"),
        (
            bash("rm -rf src"),
            Verdict::Deny,
            "deny rule Bash(rm *) (test)",
        ),
        (
            bash("git push --force"),
            Verdict::Ask,
            "dangerous command: a force push to main",
        ),
        // Even an allow rule covering the command does not let it leave the sandbox.
        (
            escape,
            Verdict::Ask,
            "a request to run outside the sandbox: needs the registry",
        ),
    ];
    for (call, verdict, reason) in cases {
        let decision = decide(&policy, &s.guard, &call);
        assert_eq!(
            (decision.verdict, decision.reason.as_str()),
            (verdict, reason),
            "{call:?}"
        );
    }
    // Bypass lets the request through, as everything else.
    let bypass = Policy {
        mode: PermissionMode::Bypass,
        ..Policy::default()
    };
    let escape = (
        "bash".to_string(),
        json!({"command": "ls", "unsandboxed": "why"}),
    );
    assert_eq!(decide(&bypass, &s.guard, &escape).verdict, Verdict::Allow);
    assert_eq!(PermissionMode::parse("auto"), Some(PermissionMode::Auto));
}

#[test]
fn a_proven_lines_rules_see_its_reads_through_links_and_its_other_words_as_written() {
    let s = setup();
    let root = s.guard.root();
    std::fs::create_dir_all(root.join("secrets")).unwrap();
    std::fs::write(root.join("secrets/key"), "k").unwrap();
    std::fs::write(root.join("src/main.rs"), "fn main() {}").unwrap();
    std::os::unix::fs::symlink("secrets/key", root.join("notes")).unwrap();
    let policy = Policy {
        rules: rules(&s.guard, &[], &[], &["Read(./secrets/**)"]),
        ..Policy::default()
    };
    // `cat` reads `notes`: the classifier resolved it through the link, and the rule holds.
    let read = decide(&policy, &s.guard, &bash("cat notes"));
    assert_eq!(read.verdict, Verdict::Deny, "{read}");
    // grep's pattern is not a file: the word stays as written and names no secret.
    let pattern = decide(&policy, &s.guard, &bash("grep -n notes src/main.rs"));
    assert_eq!(pattern.verdict, Verdict::Allow, "{pattern}");
    // Written as a path, the pattern still meets the rule (what it names is not looked up).
    let spelled = decide(&policy, &s.guard, &bash("grep -n secrets/key src/main.rs"));
    assert_eq!(spelled.verdict, Verdict::Deny, "{spelled}");
    // Not proven, every word is resolved: the link counts.
    let unproven = decide(&policy, &s.guard, &bash("mystery notes"));
    assert_eq!(unproven.verdict, Verdict::Deny, "{unproven}");
}

#[test]
fn accept_edits_runs_file_commands_inside_the_workspace_and_asks_for_the_rest() {
    let s = setup();
    std::fs::write(s.guard.root().join("tracked.txt"), "t").unwrap();
    std::fs::create_dir_all(s.guard.root().join("b3/deep")).unwrap();
    let accept = Policy {
        mode: PermissionMode::AcceptEdits,
        ..Policy::default()
    };
    let allowed = "mode accept-edits (file commands inside the workspace)";
    for line in [
        "mkdir -p build && touch build/out.txt",
        "cat tracked.txt > copy.txt",
        "rm -Rf b3",
    ] {
        let decision = decide(&accept, &s.guard, &bash(line));
        assert_eq!(
            (decision.verdict, decision.reason.as_str()),
            (Verdict::Allow, allowed),
            "{line}"
        );
        // The default mode still asks.
        let default = decide(&Policy::default(), &s.guard, &bash(line));
        assert_eq!(default.verdict, Verdict::Ask, "{line}");
    }
    let asked = [
        ("touch /tmp/elsewhere", "mode accept-edits"),
        ("rm -rf .", "mode accept-edits"),
        (
            "touch .git/hooks/pre-commit",
            "a change to .git/hooks/pre-commit",
        ),
        ("echo '{}' > .mcp.json", "a change to .mcp.json"),
        ("mkdir x && cargo build", "mode accept-edits"),
    ];
    for (line, reason) in asked {
        let decision = decide(&accept, &s.guard, &bash(line));
        assert_eq!(
            decision.verdict,
            Verdict::Ask,
            "{line}: {}",
            decision.reason
        );
        assert!(
            decision.reason.starts_with(reason),
            "{line}: {}",
            decision.reason
        );
    }
    // Deny rules and secrets hold first.
    let denying = Policy {
        mode: PermissionMode::AcceptEdits,
        rules: rules(&s.guard, &[], &[], &["Bash(rm:*)"]),
        ..Policy::default()
    };
    assert_eq!(
        decide(&denying, &s.guard, &bash("rm -Rf b3")).verdict,
        Verdict::Deny
    );
    assert_eq!(
        decide(&accept, &s.guard, &bash("cp .env env.txt")).verdict,
        Verdict::Deny
    );
}

/// A command typed into a terminal's shell is a command: the `Bash(...)` rules judge it as they
/// judge the same line sent to `bash` (its facts are the same, only the tool differs).
#[test]
fn bash_rules_judge_a_line_typed_into_a_shell() {
    let s = setup();
    let policy = Policy {
        mode: PermissionMode::Bypass,
        rules: rules(
            &s.guard,
            &["Bash(cargo test *)"],
            &["Bash(git push *)"],
            &["Bash(touch *)"],
        ),
        ..Policy::default()
    };
    let typed = |line: &str| {
        let mut facts = facts(&s.guard, &bash(line));
        facts.tool = "write_stdin".to_string();
        policy.decide(&facts, &s.guard).verdict
    };
    assert_eq!(typed("touch CANARY"), Verdict::Deny);
    assert_eq!(typed("echo hi"), Verdict::Allow, "bypass runs the rest");
    let default = Policy {
        mode: PermissionMode::Default,
        ..policy
    };
    let mut pushed = facts(&s.guard, &bash("git push origin main"));
    pushed.tool = "write_stdin".to_string();
    assert_eq!(default.decide(&pushed, &s.guard).verdict, Verdict::Ask);
    let mut allowed = facts(&s.guard, &bash("cargo test -q"));
    allowed.tool = "write_stdin".to_string();
    assert_eq!(default.decide(&allowed, &s.guard).verdict, Verdict::Allow);
    // A poll (no line) is not a command.
    let mut poll = facts(&s.guard, &bash("touch x"));
    poll.tool = "write_stdin".to_string();
    poll.shell = None;
    assert_ne!(default.decide(&poll, &s.guard).verdict, Verdict::Deny);
}
