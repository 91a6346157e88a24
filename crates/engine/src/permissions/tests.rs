use rein_tools::CallFacts;
use serde_json::{Value, json};

use super::*;

struct Setup {
    _dir: tempfile::TempDir,
    guard: WorkspaceGuard,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    // A repository of its own, so `git status` reads no configuration from outside it.
    rein_testkit::git_init(dir.path()).unwrap();
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

fn bash(command: &str) -> (String, Value) {
    ("bash".into(), json!({"command": command}))
}

/// The facts the registry computes for the call, as dispatch does.
fn facts(guard: &WorkspaceGuard, call: &(String, Value)) -> CallFacts {
    rein_tools::ToolRegistry::builtin().facts(&call.0, &call.1, guard)
}

fn decide(policy: &Policy, guard: &WorkspaceGuard, call: &(String, Value)) -> Decision {
    policy.decide(&facts(guard, call), guard)
}

#[test]
fn modes_decide_when_no_rule_does() {
    let s = setup();
    let edit = (
        "write_file".to_string(),
        json!({"path": "src/a.rs", "content": ""}),
    );
    let outside = (
        "write_file".to_string(),
        json!({"path": "/tmp/x", "content": ""}),
    );
    let cases = [
        (
            PermissionMode::Default,
            bash("ls -la"),
            Verdict::Allow,
            "read-only call",
        ),
        (
            PermissionMode::Default,
            bash("cargo build"),
            Verdict::Ask,
            "mode default",
        ),
        (
            PermissionMode::Default,
            edit.clone(),
            Verdict::Ask,
            "mode default",
        ),
        (
            PermissionMode::AcceptEdits,
            edit.clone(),
            Verdict::Allow,
            "mode accept-edits",
        ),
        // A file tool cannot write there whatever the answer: refused without asking.
        (
            PermissionMode::AcceptEdits,
            outside,
            Verdict::Deny,
            "/tmp/x is outside the workspace",
        ),
        (
            PermissionMode::AcceptEdits,
            bash("cargo build"),
            Verdict::Ask,
            "mode accept-edits",
        ),
        (
            PermissionMode::Plan,
            bash("git status"),
            Verdict::Allow,
            "read-only call",
        ),
        (
            PermissionMode::Plan,
            edit.clone(),
            Verdict::Deny,
            "mode plan",
        ),
        (
            PermissionMode::Plan,
            bash("touch x"),
            Verdict::Deny,
            "mode plan",
        ),
        (
            PermissionMode::Bypass,
            bash("cargo build"),
            Verdict::Allow,
            "mode bypass",
        ),
        (PermissionMode::Bypass, edit, Verdict::Allow, "mode bypass"),
    ];
    for (mode, call, verdict, reason) in cases {
        let policy = Policy {
            mode,
            ..Policy::default()
        };
        let decision = decide(&policy, &s.guard, &call);
        assert_eq!(
            (decision.verdict, decision.reason.as_str()),
            (verdict, reason),
            "{mode:?} {call:?}"
        );
    }
}

#[test]
fn rules_take_precedence_deny_then_ask_then_allow() {
    let s = setup();
    let policy = Policy {
        mode: PermissionMode::Default,
        rules: rules(
            &s.guard,
            &[
                "Bash(cargo *)",
                "Bash(git *)",
                "Edit(src/**)",
                "Bash(rm -rf build)",
            ],
            &["Bash(git push *)"],
            &["Bash(rm *)", "Read(./secrets/**)"],
        ),
        ..Policy::default()
    };
    let cases = [
        (
            bash("cargo test"),
            Verdict::Allow,
            "allow rule Bash(cargo *) (test)",
        ),
        (
            bash("cargo fmt && cargo test"),
            Verdict::Allow,
            "allow rule Bash(cargo *) (test)",
        ),
        (bash("cargo test && make"), Verdict::Ask, "mode default"),
        (
            bash("git push origin x"),
            Verdict::Ask,
            "ask rule Bash(git push *) (test)",
        ),
        (
            bash("rm -rf build"),
            Verdict::Deny,
            "deny rule Bash(rm *) (test)",
        ),
        (
            bash("cargo test; rm x"),
            Verdict::Deny,
            "deny rule Bash(rm *) (test)",
        ),
        (
            bash("FOO=1 /bin/rm x"),
            Verdict::Deny,
            "deny rule Bash(rm *) (test)",
        ),
        (
            ("read_file".into(), json!({"path": "secrets/k.pem"})),
            Verdict::Deny,
            "deny rule Read(./secrets/**) (test)",
        ),
        (
            ("grep".into(), json!({"pattern": "x", "path": "secrets/a"})),
            Verdict::Deny,
            "deny rule Read(./secrets/**) (test)",
        ),
        (
            (
                "edit_file".into(),
                json!({"path": "src/lib.rs", "old_string": "a", "new_string": "b"}),
            ),
            Verdict::Allow,
            "allow rule Edit(src/**) (test)",
        ),
        (
            (
                "edit_file".into(),
                json!({"path": "README.md", "old_string": "a", "new_string": "b"}),
            ),
            Verdict::Ask,
            "mode default",
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
}

#[test]
fn deny_rules_hold_in_bypass_and_plan_refuses_even_allowed_edits() {
    let s = setup();
    let mut policy = Policy {
        mode: PermissionMode::Bypass,
        rules: rules(&s.guard, &["Edit"], &["Bash(git *)"], &["Bash(rm *)"]),
        ..Policy::default()
    };
    assert_eq!(
        decide(&policy, &s.guard, &bash("rm -rf x")).verdict,
        Verdict::Deny
    );
    assert_eq!(
        decide(&policy, &s.guard, &bash("git push")).verdict,
        Verdict::Allow
    );
    policy.mode = PermissionMode::Plan;
    let edit = (
        "edit_file".to_string(),
        json!({"path": "src/a.rs", "old_string": "a", "new_string": "b"}),
    );
    assert_eq!(decide(&policy, &s.guard, &edit).verdict, Verdict::Deny);
}

#[test]
fn a_hard_link_to_a_secret_is_refused_in_every_mode_bypass_included() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(home.join(".ssh/id_ed25519"), "PRIVATE KEY").unwrap();
    // Made before the session: a name in the workspace for the key's inode.
    std::fs::hard_link(home.join(".ssh/id_ed25519"), ws.join("innocent.txt")).unwrap();
    std::fs::write(ws.join("notes.txt"), "notes").unwrap();
    std::fs::hard_link(ws.join("notes.txt"), ws.join("notes-again.txt")).unwrap();
    let sensitive = rein_tools::SensitivePaths::new(["~/.ssh"], Some(&home)).unwrap();
    let guard = WorkspaceGuard::new(&ws)
        .unwrap()
        .with_home(&home)
        .with_sensitive(sensitive);
    let read = ("read_file".to_string(), json!({"path": "innocent.txt"}));
    for mode in [
        PermissionMode::Bypass,
        PermissionMode::Auto,
        PermissionMode::AcceptEdits,
        PermissionMode::Default,
        PermissionMode::Plan,
    ] {
        let policy = Policy {
            mode,
            rules: rules(&guard, &["Bash", "Read"], &[], &[]),
            ..Policy::default()
        };
        for call in [
            bash("cat innocent.txt"),
            bash("cp innocent.txt copy"),
            read.clone(),
        ] {
            let decision = decide(&policy, &guard, &call);
            assert_eq!(
                (decision.verdict, decision.reason.as_str()),
                (Verdict::Deny, "off-limits path (~/.ssh)"),
                "{mode:?} {call:?}"
            );
        }
        // A hard link between two files of the workspace is nobody's secret.
        let ordinary = decide(&policy, &guard, &bash("cat notes-again.txt"));
        assert!(!ordinary.reason.contains("off-limits"), "{mode:?}");
    }
}

#[test]
fn dangerous_commands_ask_unless_bypass_or_an_explicit_allow_rule() {
    let s = setup();
    let line = bash("rm -rf ~");
    for mode in [PermissionMode::Default, PermissionMode::AcceptEdits] {
        let policy = Policy {
            mode,
            ..Policy::default()
        };
        let decision = decide(&policy, &s.guard, &line);
        assert_eq!(decision.verdict, Verdict::Ask);
        assert_eq!(
            decision.reason,
            "dangerous command: a recursive delete of ~"
        );
    }
    let bypass = Policy {
        mode: PermissionMode::Bypass,
        ..Policy::default()
    };
    assert_eq!(decide(&bypass, &s.guard, &line).verdict, Verdict::Allow);
    let allowed = Policy {
        rules: rules(&s.guard, &["Bash(rm -rf ~)"], &[], &[]),
        ..Policy::default()
    };
    assert_eq!(decide(&allowed, &s.guard, &line).verdict, Verdict::Allow);
    // A read-only-looking dangerous line still asks: sudo is never read-only anyway.
    let sudo = decide(&Policy::default(), &s.guard, &bash("sudo ls"));
    assert_eq!(sudo.verdict, Verdict::Ask);
}

#[test]
fn unsplittable_lines_need_a_whole_line_rule() {
    let s = setup();
    let policy = Policy {
        rules: rules(&s.guard, &["Bash(echo *)"], &[], &["Bash(rm *)"]),
        ..Policy::default()
    };
    // `$(…)` cannot be analysed: the allow rule does not cover the hidden command, and the
    // deny rule still sees it.
    let hidden = decide(&policy, &s.guard, &bash("echo $(ls)"));
    assert_eq!(hidden.verdict, Verdict::Ask, "{hidden}");
    let denied = decide(&policy, &s.guard, &bash("echo $(rm -rf x)"));
    assert_eq!(denied.verdict, Verdict::Deny, "{denied}");
    let bash_allowed = Policy {
        rules: rules(&s.guard, &["Bash"], &[], &[]),
        ..Policy::default()
    };
    assert_eq!(
        decide(&bash_allowed, &s.guard, &bash("echo $(ls)")).verdict,
        Verdict::Allow
    );
}

#[test]
fn session_allows_are_used_after_configured_rules() {
    let s = setup();
    let mut policy = Policy::default();
    policy.session_allow.push(SourcedRule {
        rule: Rule::parse("Bash(make *)", s.guard.root(), None).unwrap(),
        source: "allowed for this session".into(),
    });
    let decision = decide(&policy, &s.guard, &bash("make all"));
    assert_eq!(decision.verdict, Verdict::Allow);
    assert_eq!(
        decision.reason,
        "allow rule Bash(make *) (allowed for this session)"
    );
}

#[test]
fn apply_patch_paths_are_all_checked() {
    let s = setup();
    let policy = Policy {
        rules: rules(&s.guard, &["Edit(src/**)"], &[], &["Edit(./Cargo.toml)"]),
        ..Policy::default()
    };
    let patch = |body: &str| ("apply_patch".to_string(), json!({"patch": body}));
    let inside = patch("*** Begin Patch\n*** Add File: src/new.rs\n+x\n*** End Patch");
    assert_eq!(decide(&policy, &s.guard, &inside).verdict, Verdict::Allow);
    let mixed = patch(
        "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-a\n+b\n*** Update File: README.md\n@@\n-a\n+b\n*** End Patch",
    );
    assert_eq!(decide(&policy, &s.guard, &mixed).verdict, Verdict::Ask);
    let denied = patch(
        "*** Begin Patch\n*** Update File: src/a.rs\n*** Move to: Cargo.toml\n@@\n-a\n+b\n*** End Patch",
    );
    assert_eq!(decide(&policy, &s.guard, &denied).verdict, Verdict::Deny);
}

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
